// Spread's hand-out with a budget (spread.maxUnavailable) or a canary (rollingUpdate.canary): which
// nodes get the target and their not-before now, and each node's time. Without either, every node
// gets its time at once (spread-marks.ts alone). With a budget, the times stay those of the
// deterministic schedule, but a node gets its time only just before it (a lookahead) and only while
// the nodes unavailable plus the nodes given a time that have not started stay below the budget: the
// peak of disruption is bounded by construction, whatever the agents' and the hand-outs' lateness. A
// node whose time passed while the budget was full gets it (passed: it starts at once) when a place
// frees, in schedule order. With a canary, the first nodes of the schedule go first; the others get
// their times once those are updated, in a window that opens then (the moment is kept in
// status.history, so a restarted controller computes the same times). Pure.

import { type NodeOrder, orderedNodes } from '../../rollout/rollout-order.ts';
import type { NodeSnapshot } from '../../rollout/types.ts';
import { canaryProgress, notReadyBeforeTurn } from '../canary.ts';
import type { StrategyNode } from '../strategy-node.ts';
import { HANDOUT_REACTION_MS, handoutLeadMs } from './spread-schedule.ts';

/** A node gets its time this long before it at most (and at least the spacing, within these bounds). */
const MAX_LOOKAHEAD_MS = 1_000;
const MIN_LOOKAHEAD_MS = 100;

/**
 * How long before its time a budgeted node gets it: enough for a reconcile and a write to reach the
 * agent, but no more than a spacing, since a node holds a place in the budget from its hand-out on.
 * A hand-out that arrives late only starts that node a little late; it does not move the others.
 */
export function handoutLookaheadMs(spacingMs: number): number {
  return Math.min(MAX_LOOKAHEAD_MS, Math.max(MIN_LOOKAHEAD_MS, spacingMs));
}

export interface SpreadHandoutInput {
  target: string;
  nodes: readonly StrategyNode[];
  /** The members as the rollout decision sees them (readiness, cordon, health), by name. */
  snapshots: ReadonlyMap<string, NodeSnapshot>;
  windowStart: number;
  windowSeconds: number;
  /** spread.maxUnavailable, resolved against the pool; undefined: no budget. */
  maxUnavailable?: number;
  /** rollingUpdate.canary.nodes, resolved (rounded up); undefined: no canary. */
  canarySize?: number;
  /** When the canary passed, as recorded in the rollout's history record (ms). */
  canaryPassedAt?: number;
  /** rollingUpdate.minReadySeconds, in ms: how long a canary node must stay healthy. */
  minReadyMs: number;
  paused: boolean;
  now: number;
  /** The pool's order (spec.rolloutOrder); absent: Interleaved. */
  order?: NodeOrder;
}

export interface SpreadHandout {
  /** Node → planned not-before (ms), for every node that has one yet (not the others before the canary passed). */
  times: Map<string, number>;
  /** Nodes not given the target yet that get it now; undefined: every node at once (no budget, no canary). */
  handOut?: Set<string>;
  canary?: {
    size: number;
    passed: boolean /** The canary passed in this decision (ms, whole seconds). */;
    passedNow?: number;
  };
  /** With a budget: its size, the nodes counted after this hand-out, and the nodes whose time came that wait for a place. */
  budget?: { max: number; unavailable: number; waiting: number };
  /** When the hand-out changes by itself (the next node's lookahead, a canary's soak). */
  wakeAt?: number;
}

const WORKING = new Set(['Applying', 'Verifying', 'Failed']);

/**
 * Whether the node counts against the budget: given the target and not on it yet (about to start,
 * applying, or failed it), or unavailable for any other reason, as RollingUpdate counts it: NotReady,
 * cordoned, being deleted, working, NodeConfigReady not True, health-gate pods not Ready. Like
 * RollingUpdate, a node NotReady before its turn is not counted (it would block the budget forever
 * if dead), nor is a node joining the pool (bootstrap is not an update).
 */
export function countsAgainstBudget(
  node: StrategyNode,
  snapshot: NodeSnapshot | undefined,
  target: string,
): boolean {
  if (node.current === undefined) return false;
  if (node.desired === target && node.current !== target) return true;
  if (!snapshot) return false;
  const working = WORKING.has(node.state ?? '');
  if (!snapshot.ready && node.current !== target && !working) return false;
  return (
    !snapshot.ready ||
    snapshot.deleting ||
    snapshot.cordoned ||
    working ||
    !snapshot.configReady ||
    !snapshot.podsReady
  );
}

export function spreadHandout(input: SpreadHandoutInput): SpreadHandout {
  const { target: T, now, snapshots } = input;
  const order = orderedNodes(input.nodes, input.order);
  const count = order.length;
  const windowMs = input.windowSeconds * 1000;
  const at = (start: number, index: number) => start + Math.floor((index * windowMs) / count);
  const result: SpreadHandout = { times: new Map() };
  let wakeAt = Number.POSITIVE_INFINITY;

  // The canary: the first nodes of the schedule; passed once each is updated (healthy on the target
  // for minReadySeconds), leaving out those NotReady before their turn, and at least one is. The rule
  // Serial follows too (canary.ts).
  const size = input.canarySize === undefined ? 0 : Math.min(count, input.canarySize);
  let passedAt = input.canaryPassedAt;
  if (size > 0) {
    const canary = canaryProgress({
      target: T,
      nodes: input.nodes,
      snapshots,
      size,
      ...(passedAt !== undefined ? { passedAt } : {}),
      minReadyMs: input.minReadyMs,
      now,
      ...(input.order ? { order: input.order } : {}),
    });
    if (canary.wakeAt !== undefined) wakeAt = Math.min(wakeAt, canary.wakeAt);
    result.canary = { size, passed: canary.passed };
    if (canary.passedNow !== undefined) {
      // Whole seconds: what status.history keeps, so the next reconcile computes the same times.
      passedAt = canary.passedNow;
      result.canary = { size, passed: true, passedNow: passedAt };
    }
  }

  // The times: the canary's (or everyone's) from the window start; the others' from when the canary
  // passed, never earlier than their places in the window. Handed out at once (no budget), they need
  // the lead for writing them all; just in time, a second for the reaction (passedAt is in whole
  // seconds, so up to a second early).
  const lead = input.maxUnavailable === undefined ? handoutLeadMs(count - size) : HANDOUT_REACTION_MS;
  order.forEach((placed, index) => {
    if (index < size || size === 0) result.times.set(placed.name, at(input.windowStart, index));
    else if (passedAt !== undefined) {
      const restStart = Math.max(passedAt + lead, at(input.windowStart, size));
      result.times.set(placed.name, restStart + Math.floor(((index - size) * windowMs) / count));
    }
  });
  if (input.maxUnavailable === undefined && size === 0) return finish(result, wakeAt);

  // Nodes that may get the target: not joining, not on it, not given it; in schedule (= time) order.
  const candidates = order.filter(
    (n) => n.current !== undefined && n.current !== T && n.desired !== T && result.times.has(n.name),
  );
  const handOut = new Set<string>();
  result.handOut = handOut;
  if (input.maxUnavailable === undefined) {
    for (const node of candidates) handOut.add(node.name);
    return finish(result, wakeAt);
  }

  const max = input.maxUnavailable;
  let unavailable = input.nodes.filter((n) => countsAgainstBudget(n, snapshots.get(n.name), T)).length;
  let waiting = 0;
  const spacing = count > 0 ? windowMs / count : 0;
  const lookahead = handoutLookaheadMs(spacing);
  for (const node of candidates) {
    const time = result.times.get(node.name)!;
    if (time > now + lookahead) {
      wakeAt = Math.min(wakeAt, time - lookahead);
      break;
    }
    const snapshot = snapshots.get(node.name);
    // NotReady before its turn: it gets its time once Ready again (RollingUpdate's Skipped). Unlike the
    // canary, a node whose agent reports Failed counts as working here: it holds its place.
    if (input.paused || notReadyBeforeTurn(node, snapshot, T, WORKING)) continue;
    const cost = countsAgainstBudget(node, snapshot, T) ? 0 : 1;
    if (unavailable + cost > max) {
      waiting++;
      continue;
    }
    unavailable += cost;
    handOut.add(node.name);
  }
  result.budget = { max, unavailable, waiting };
  return finish(result, wakeAt);
}

function finish(result: SpreadHandout, wakeAt: number): SpreadHandout {
  if (Number.isFinite(wakeAt)) result.wakeAt = wakeAt;
  return result;
}
