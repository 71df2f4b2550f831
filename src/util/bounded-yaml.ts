// YAML read from a client, bounded by what it produces and not only by what it reads: an alias repeats
// its anchored node, so 3 MiB of YAML naming a 1 MiB string 99 times expands to 100 MiB of objects
// (the yaml library's maxAliasCount weighs the aliases inside an anchored node, which a scalar has
// none of). The expanded size is summed over the parsed document, each node's size computed once, so
// the check costs one pass over what was read, before anything is expanded (CVE-2019-11253's lesson).

import { type Document, isAlias, isMap, isPair, isScalar, isSeq, type Node, parseDocument } from 'yaml';
import { KUBE_YAML } from './kube-yaml.ts';

/** The yaml library's own alias check is kept as well: an anchor may hold many aliases. */
const MAX_ALIAS_COUNT = 100;

export class YamlExpansionError extends Error {}

/**
 * Parses one YAML document as a Kubernetes client means it (YAML 1.1), refusing one whose aliases
 * would expand it past `maxExpandedBytes` (about its size as JSON). Throws the parser's error for bad
 * YAML and a YamlExpansionError for an expanding one.
 */
export function parseBoundedYaml(text: string, maxExpandedBytes: number): unknown {
  const document = parseDocument(text, { ...KUBE_YAML, prettyErrors: false });
  if (document.errors.length > 0) throw document.errors[0];
  const expanded = expandedSize(document, maxExpandedBytes);
  if (expanded > maxExpandedBytes)
    throw new YamlExpansionError(
      `aliases expand the document past ${maxExpandedBytes} bytes (the request body limit)`,
    );
  return document.toJS({ maxAliasCount: MAX_ALIAS_COUNT });
}

/** The document's size with every alias replaced by what it names; stops counting past `limit`. */
function expandedSize(document: Document, limit: number): number {
  const sizes = new Map<Node, number>();
  const inProgress = new Set<Node>();
  const sizeOf = (node: unknown): number => {
    if (node === null || node === undefined) return 4; // null
    if (isAlias(node)) {
      const target = node.resolve(document);
      if (target === undefined) return 4;
      return sizeOf(target);
    }
    if (isScalar(node)) return String(node.value).length + 2;
    if (!isMap(node) && !isSeq(node)) return 4;
    const known = sizes.get(node);
    if (known !== undefined) return known;
    if (inProgress.has(node)) throw new YamlExpansionError('an alias refers to a node that contains it');
    inProgress.add(node);
    let total = 2;
    for (const item of node.items) {
      total += isPair(item) ? sizeOf(item.key) + sizeOf(item.value) + 2 : sizeOf(item) + 1;
      // Past the limit the answer is known: stop before summing the rest of a huge expansion.
      if (total > limit) break;
    }
    inProgress.delete(node);
    sizes.set(node, total);
    return total;
  };
  return sizeOf(document.contents);
}
