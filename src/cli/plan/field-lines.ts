// Maps a field path from validation (`spec.files[0].path`) to the line of a YAML document where it is
// written, through the yaml library's source ranges. A missing field (a required one) maps to the
// nearest enclosing node that exists, which is where the user has to add it.

import { type Document, isCollection, type LineCounter, type Node } from 'yaml';

/** `spec.files[0].path` → ['spec', 'files', 0, 'path']. */
export function fieldSegments(path: string): (string | number)[] {
  const segments: (string | number)[] = [];
  for (const match of path.matchAll(/\[(\d+)\]|\.?([^.[\]]+)/g)) {
    if (match[1] !== undefined) segments.push(Number(match[1]));
    else if (match[2] !== undefined) segments.push(match[2]);
  }
  return segments;
}

/** 1-based line of the field (or of its nearest existing ancestor); undefined when nothing matches. */
export function lineOfField(document: Document, lineCounter: LineCounter, path: string): number | undefined {
  const segments = fieldSegments(path);
  let best: Node | undefined = document.contents ?? undefined;
  let node: unknown = document.contents;
  for (const segment of segments) {
    if (!isCollection(node)) break;
    // The key's position is where the field is written; its value may start on a later line.
    const pair = node.items.find((item: unknown) => {
      const key = (item as { key?: unknown }).key;
      const keyValue =
        key && typeof key === 'object' && 'value' in key ? (key as { value: unknown }).value : key;
      return keyValue === segment;
    }) as { key?: Node; value?: Node } | undefined;
    if (pair && typeof segment === 'string') {
      best = (pair.key as Node | undefined) ?? best;
      node = pair.value;
      continue;
    }
    const item = typeof segment === 'number' ? (node.items[segment] as Node | undefined) : undefined;
    if (!item) break;
    best = item;
    node = item;
  }
  const offset = best?.range?.[0];
  return offset === undefined ? undefined : lineCounter.linePos(offset).line;
}
