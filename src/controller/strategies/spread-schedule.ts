// Spread: every node of the pool gets an evenly spaced start time in the window. The slot of a node
// is its position in the deterministic zone-interleaved rollout order of ALL the pool's nodes, so
// neighbours in a zone are far apart in time, and the same pool and window always give the same
// times (the window starts when the rollout of the target started, which status.history keeps).

import { type Placed, rolloutOrder } from '../rollout/rollout-order.ts';

/** Node name → not-before time (ms). */
export function spreadSchedule(
  nodes: readonly Placed[],
  windowStart: number,
  windowSeconds: number,
): Map<string, number> {
  const order = rolloutOrder(nodes);
  const count = order.length;
  const times = new Map<string, number>();
  order.forEach((node, index) => {
    times.set(node.name, windowStart + Math.floor((index * windowSeconds * 1000) / count));
  });
  return times;
}
