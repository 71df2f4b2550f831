// The deterministic order in which nodes of a pool are updated: zones in name order, nodes within a
// zone in name order, and the zones interleaved (a1, b1, c1, a2, b2, ...), so consecutive batches
// spread over failure domains instead of emptying one zone first. The order depends only on names and
// zones, never on state or timing, so a restarted controller continues exactly where it stopped and
// `nodeherd plan` can show the order in advance.

export interface Placed {
  name: string;
  zone: string;
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
 * names, zones and the predicate, so every caller and a restarted controller agree on who is next.
 */
export function nextInLine<T extends Placed>(
  nodes: readonly T[],
  waiting: (node: T) => boolean,
  count: number,
): T[] {
  if (count <= 0) return [];
  const next: T[] = [];
  for (const node of rolloutOrder(nodes)) {
    if (!waiting(node)) continue;
    next.push(node);
    if (next.length >= count) break;
  }
  return next;
}
