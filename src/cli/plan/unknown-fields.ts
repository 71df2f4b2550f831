// Fields the API server would silently drop (pruning of unknown fields): usually a typo, like `fles:`
// for `files:`, that would otherwise leave a config quietly doing less than its author meant.

import { pruneUnknown } from '../../api/structural.ts';
import type { JSONSchemaProps } from '../../apiserver/registry/resource-definition.ts';
import { isPlainObject } from '../../util/plain-object.ts';

function collect(original: unknown, pruned: unknown, path: string, out: string[]): void {
  if (Array.isArray(original) && Array.isArray(pruned)) {
    original.forEach((item, i) => {
      collect(item, pruned[i], `${path}[${i}]`, out);
    });
    return;
  }
  if (!isPlainObject(original) || !isPlainObject(pruned)) return;
  for (const [key, value] of Object.entries(original)) {
    const field = path ? `${path}.${key}` : key;
    if (!(key in pruned)) out.push(field);
    else collect(value, pruned[key], field, out);
  }
}

/** Field paths (prefixed with `path`) of `value` that `schema` does not declare. */
export function unknownFields(schema: JSONSchemaProps, value: unknown, path: string): string[] {
  const out: string[] = [];
  collect(value, pruneUnknown(schema, value), path, out);
  return out;
}
