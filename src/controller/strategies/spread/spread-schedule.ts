// Spread: every node of the pool gets an evenly spaced start time in the window. The slot of a node
// is its position in the deterministic zone-interleaved rollout order of ALL the pool's nodes, so
// neighbours in a zone are far apart in time, and the same pool and window always give the same
// times: the window opens a hand-out lead after the rollout of the target started (status.history
// keeps startedAt; the lead depends only on the number of nodes), so a restarted controller computes
// the same times.

import { type Placed, rolloutOrder } from '../../rollout/rollout-order.ts';

/** Writing one node's gate takes a few ms; the lead covers writing them all (earliest time first). */
const HANDOUT_MS_PER_NODE = 5;
const MAX_HANDOUT_LEAD_MS = 30_000;

/**
 * How long after the rollout started the window opens: time to write every node's gate before the
 * first time comes, in whole seconds (none below 200 nodes; bounded), so no node's time has passed
 * by the time its gate is written.
 */
export function handoutLeadMs(nodeCount: number): number {
  const lead = Math.min(MAX_HANDOUT_LEAD_MS, nodeCount * HANDOUT_MS_PER_NODE);
  return Math.floor(lead / 1000) * 1000;
}

/** When the window of a rollout that started at `rolloutStartedAt` opens. */
export function spreadWindowStart(rolloutStartedAt: number, nodeCount: number): number {
  return rolloutStartedAt + handoutLeadMs(nodeCount);
}

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

/**
 * The times of nodes getting their gate only now although their time has passed (a hand-out slower
 * than the lead, a controller restarted mid-way, a write that failed): they must not all start at
 * once, so they start one spacing (window / nodes) apart from `now`, in schedule order.
 */
export function lateTimes(
  late: readonly { name: string; planned: number }[],
  now: number,
  windowSeconds: number,
  nodeCount: number,
): Map<string, number> {
  const spacing = nodeCount > 0 ? (windowSeconds * 1000) / nodeCount : 0;
  const ordered = [...late].sort((a, b) => a.planned - b.planned || a.name.localeCompare(b.name));
  // The first keeps its planned time: passed, it starts at once either way, and the time stays readable.
  return new Map(
    ordered.map((node, k) => [node.name, k === 0 ? node.planned : now + Math.floor(k * spacing)]),
  );
}
