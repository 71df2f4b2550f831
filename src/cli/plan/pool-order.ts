// The order across pools that `nodeherd plan` shows: the pools whose revision would change, in waves
// (spec.updateStrategy.wave.after), so a canary pool is seen to go first. The waves come from the whole
// graph, then keep only the changing pools: a pool that does not change holds nobody back.

import type { NodeConfigPool } from '../../api/types.ts';
import { waveNode, waveOrder } from '../../controller/waves/wave-graph.ts';

export interface PoolOrder {
  /** Wave 1 first. */
  waves: { pools: string[] }[];
  /** Changing pools on a cycle or waiting for one: they would never start. */
  blocked: string[];
  /** Changing pools waiting for pools that do not exist, with those names. */
  missing: Record<string, string[]>;
}

/** Undefined when no pool waits for another: then every pool starts at once. */
export function planPoolOrder(
  pools: readonly NodeConfigPool[],
  changing: readonly string[],
): PoolOrder | undefined {
  const nodes = pools.map(waveNode);
  if (!nodes.some((n) => n.after.length > 0)) return undefined;
  const order = waveOrder(nodes);
  const keep = new Set(changing);
  return {
    waves: order.waves
      .map((w) => ({ pools: w.filter((p) => keep.has(p)) }))
      .filter((w) => w.pools.length > 0),
    blocked: order.blocked.filter((p) => keep.has(p)),
    missing: Object.fromEntries([...order.missing].filter(([p]) => keep.has(p))),
  };
}
