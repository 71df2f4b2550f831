// Waves across pools: a pool names, in spec.updateStrategy.wave.after, the pools that roll a new revision
// before it. These functions read the graph those names make: who follows a pool (to requeue them when
// it changes), whether a pool sits on a cycle (no pool of a cycle could ever start), and the order of the
// waves (`nodeherd plan`). Pure: from names alone.

import type { NodeConfigPool } from '../../api/types.ts';

export interface WaveNode {
  name: string;
  /** The pools this one waits for. */
  after: readonly string[];
}

export function waveNode(pool: Pick<NodeConfigPool, 'metadata' | 'spec'>): WaveNode {
  return { name: pool.metadata.name, after: pool.spec.updateStrategy?.wave?.after ?? [] };
}

/** The pools that wait for `name`. */
export function waveFollowers(name: string, pools: readonly WaveNode[]): string[] {
  return pools.filter((p) => p.after.includes(name)).map((p) => p.name);
}

/**
 * A cycle through `name`, as the path `name → … → name`; undefined when the pool is on none. A pool that
 * only waits for a cycle is not on it: it waits for those pools like for any other that never completes.
 */
export function waveCycle(name: string, pools: readonly WaveNode[]): string[] | undefined {
  const byName = new Map(pools.map((p) => [p.name, p]));
  const seen = new Set<string>();
  const path: string[] = [name];
  const visit = (current: string): boolean => {
    for (const next of byName.get(current)?.after ?? []) {
      if (next === name) {
        path.push(next);
        return true;
      }
      if (seen.has(next) || !byName.has(next)) continue;
      seen.add(next);
      path.push(next);
      if (visit(next)) return true;
      path.pop();
    }
    return false;
  };
  return visit(name) ? path : undefined;
}

export interface WaveOrder {
  /** Wave 1 first: pools waiting for none (or only for pools that do not exist), then their followers. */
  waves: string[][];
  /** Pools on a cycle or waiting for one: they never start a new revision. */
  blocked: string[];
  /** Pools that wait for a pool that does not exist (they hold until it does), with those names. */
  missing: Map<string, string[]>;
}

/** The pools in waves: a pool's wave is one more than the latest wave it waits for. */
export function waveOrder(pools: readonly WaveNode[]): WaveOrder {
  const byName = new Map(pools.map((p) => [p.name, p]));
  const missing = new Map<string, string[]>();
  for (const p of pools) {
    const absent = p.after.filter((a) => !byName.has(a));
    if (absent.length > 0) missing.set(p.name, absent);
  }
  const level = new Map<string, number>();
  let changed = true;
  while (changed) {
    changed = false;
    for (const p of pools) {
      if (level.has(p.name)) continue;
      const known = p.after.filter((a) => byName.has(a));
      if (!known.every((a) => level.has(a))) continue;
      level.set(
        p.name,
        known.reduce((max, a) => Math.max(max, level.get(a)! + 1), 0),
      );
      changed = true;
    }
  }
  const depth = Math.max(-1, ...level.values()) + 1;
  const waves = Array.from({ length: depth }, (_, l) =>
    [...level.entries()]
      .filter(([, at]) => at === l)
      .map(([name]) => name)
      .sort(),
  );
  return {
    waves,
    blocked: pools
      .filter((p) => !level.has(p.name))
      .map((p) => p.name)
      .sort(),
    missing,
  };
}
