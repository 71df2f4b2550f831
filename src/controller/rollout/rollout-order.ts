// The deterministic order in which nodes of a pool are updated. By default (Interleaved) zones in
// name order, nodes within a zone in name order, and the zones interleaved (a1, b1, c1, a2, b2, ...),
// so consecutive batches spread over failure domains instead of emptying one zone first. A pool may
// choose another (spec.rolloutOrder): zone after zone, by a node label's value, or the nodes with the
// fewest pods first; ties go by the Interleaved order. The order depends only on names, zones and the
// keys the order is given (label values, pod counts), never on timing, so a restarted controller
// continues where it stopped and `nodeherd plan` can show the order in advance.

import type { RolloutOrderBy } from '../../api/pool-order-schema.ts';

export interface Placed {
  name: string;
  zone: string;
}

/** A pool's order (spec.rolloutOrder) with what it sorts by, read from the caches at one moment. */
export interface NodeOrder {
  by: RolloutOrderBy;
  /** Label: each node's value of the label (absent: last). FewestPods: its pods a drain would evict. */
  keys?: ReadonlyMap<string, string | number>;
}

const INTEGER = /^-?\d{1,15}$/;

/** Label values compare as numbers when both are integers, else as strings; a missing one goes last. */
function compareKeys(a: string | number | undefined, b: string | number | undefined): number {
  if (a === undefined || b === undefined) return a === b ? 0 : a === undefined ? 1 : -1;
  if (typeof a === 'number' && typeof b === 'number') return a - b;
  const sa = String(a);
  const sb = String(b);
  if (INTEGER.test(sa) && INTEGER.test(sb)) return Number(sa) - Number(sb);
  return compare(sa, sb);
}

/** The nodes in the pool's order (Interleaved when `order` is absent). */
export function orderedNodes<T extends Placed>(nodes: readonly T[], order: NodeOrder | undefined): T[] {
  const interleaved = rolloutOrder(nodes);
  if (!order || order.by === 'Interleaved') return interleaved;
  const rank = new Map(interleaved.map((n, i) => [n, i]));
  const byRank = (a: T, b: T) => rank.get(a)! - rank.get(b)!;
  if (order.by === 'Zone')
    return interleaved.sort((a, b) => compare(a.zone, b.zone) || compare(a.name, b.name));
  const keys = order.keys ?? new Map<string, string | number>();
  return interleaved.sort((a, b) => compareKeys(keys.get(a.name), keys.get(b.name)) || byRank(a, b));
}

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

export function rolloutOrder<T extends Placed>(nodes: readonly T[]): T[] {
  const zones = new Map<string, T[]>();
  for (const node of nodes) {
    const list = zones.get(node.zone);
    if (list) list.push(node);
    else zones.set(node.zone, [node]);
  }
  const columns = [...zones.keys()]
    .sort(compare)
    .map((zone) => zones.get(zone)!.sort((a, b) => compare(a.name, b.name)));
  const order: T[] = [];
  const depth = Math.max(0, ...columns.map((c) => c.length));
  for (let i = 0; i < depth; i++) {
    for (const column of columns) {
      const node = column[i];
      if (node) order.push(node);
    }
  }
  return order;
}

/**
 * The nodes next in line: of the nodes that still wait (`waiting`), the first `count` in rollout order.
 * The one notion of "next" the strategies share: RollingUpdate's candidates (before its free-first and
 * budget rules), Serial's slot queue and canary, Spread's schedule, and whatever wants to act on the
 * next batch ahead of its turn (pre-staging packages, tainting the next batch). Pure: it depends only on
 * names, zones, the pool's order and the predicate, so every caller and a restarted controller agree on
 * who is next.
 */
export function nextInLine<T extends Placed>(
  nodes: readonly T[],
  waiting: (node: T) => boolean,
  count: number,
  order?: NodeOrder,
): T[] {
  if (count <= 0) return [];
  const next: T[] = [];
  for (const node of orderedNodes(nodes, order)) {
    if (!waiting(node)) continue;
    next.push(node);
    if (next.length >= count) break;
  }
  return next;
}
