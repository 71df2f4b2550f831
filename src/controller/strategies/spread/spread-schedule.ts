// Spread: every node of the pool gets an evenly spaced start time in the window. The slot of a node
// is its position in the deterministic zone-interleaved rollout order of ALL the pool's nodes, so
// neighbours in a zone are far apart in time, and the same pool and window always give the same
// times: the window opens a hand-out lead after the rollout of the target started (status.history
// keeps startedAt; the lead depends only on the number of nodes), so a restarted controller computes
// the same times.

import { type NodeOrder, orderedNodes, type Placed } from '../../rollout/rollout-order.ts';

/** Writing one node's gate takes a few ms; the lead covers writing them all (earliest time first). */
const HANDOUT_MS_PER_NODE = 5;
/**
 * status.history keeps startedAt in whole seconds (metav1.Time), up to a second before the rollout
 * really started, and the hand-out itself comes a reconcile later: without this second, the first
 * times of a small pool have passed when their gates arrive and those nodes all start at once, beside
 * the nodes on time (100 nodes, 1:10 clock: 7 starts in the first spacing's place, a peak of 14
 * NotReady against a budget of 10; issue 17).
 */
export const HANDOUT_REACTION_MS = 1_000;
const MAX_HANDOUT_LEAD_MS = 30_000;

/**
 * How long after the rollout started the window opens: a second for the rounding of startedAt and the
 * reaction, plus the time to write every node's gate, rounded up to whole seconds (bounded), so no
 * node's time has passed by the time its gate is written.
 */
export function handoutLeadMs(nodeCount: number): number {
  const lead = HANDOUT_REACTION_MS + Math.ceil((nodeCount * HANDOUT_MS_PER_NODE) / 1000) * 1000;
  return Math.min(MAX_HANDOUT_LEAD_MS, lead);
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
  nodeOrder?: NodeOrder,
): Map<string, number> {
  const order = orderedNodes(nodes, nodeOrder);
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
 * once, nor start beside the nodes still on time (two streams at one spacing each double the rate of
 * starts, and the peak of disruption with it: issue 17). So they go after the window, one spacing
 * (window / nodes) apart from its end, or from `now` once the window is over, in schedule order.
 */
export function lateTimes(
  late: readonly { name: string; planned: number }[],
  now: number,
  window: { windowStart: number; windowSeconds: number },
  nodeCount: number,
): Map<string, number> {
  const spacing = nodeCount > 0 ? (window.windowSeconds * 1000) / nodeCount : 0;
  const windowEnd = window.windowStart + window.windowSeconds * 1000;
  const from = Math.max(now, windowEnd);
  const ordered = [...late].sort((a, b) => a.planned - b.planned || a.name.localeCompare(b.name));
  return new Map(
    ordered.map((node, k) => {
      // Starting now, the first keeps its planned time: passed, it starts at once either way, and the
      // time stays readable.
      const at = from + Math.floor(k * spacing);
      return [node.name, k === 0 && at === now ? node.planned : at];
    }),
  );
}
