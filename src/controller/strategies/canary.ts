// The canary of the gated strategies (Serial's, and Spread's hand-out's): the first `size` nodes in
// the pool's order (rollout-order.ts, nextInLine) go first; the others get the target once each
// canary node is updated (healthy on the target for minReadySeconds), leaving out those NotReady
// before their turn, and at least one is. The moment it passed is kept in the rollout's history
// record (canaryPassedAt), so a canary passes once per rollout and a restart does not repeat it. Pure.

import { isHealthy } from '../rollout/node-verdict.ts';
import { type NodeOrder, nextInLine } from '../rollout/rollout-order.ts';
import type { NodeSnapshot } from '../rollout/types.ts';
import type { StrategyNode } from './strategy-node.ts';

const WORKING = new Set(['Applying', 'Verifying']);

export interface CanaryInput {
  target: string;
  nodes: readonly StrategyNode[];
  snapshots: ReadonlyMap<string, NodeSnapshot>;
  /** rollingUpdate.canary.nodes, resolved (rounded up). */
  size: number;
  /** When the canary passed, as the rollout's history record says (ms). */
  passedAt?: number;
  minReadyMs: number;
  now: number;
  /** The pool's order (spec.rolloutOrder); absent: Interleaved. */
  order?: NodeOrder;
}

export interface CanaryProgress {
  size: number;
  /** The canary's nodes, in line. */
  nodes: string[];
  passed: boolean;
  /** It passed in this decision (ms, whole seconds: what status.history keeps). */
  passedNow?: number;
  /** When a canary node's soak ends. */
  wakeAt?: number;
}

/** A node NotReady that has not had its turn (not working by `working`): it does not hold the canary back. */
export function notReadyBeforeTurn(
  node: StrategyNode,
  snapshot: NodeSnapshot | undefined,
  target: string,
  working: ReadonlySet<string> = WORKING,
): boolean {
  return (
    snapshot !== undefined &&
    !snapshot.ready &&
    node.desired !== target &&
    node.current !== target &&
    !working.has(node.state ?? '')
  );
}

export function canaryProgress(input: CanaryInput): CanaryProgress {
  const { target: T, now, snapshots } = input;
  const size = Math.min(input.nodes.length, Math.max(0, input.size));
  const canary = nextInLine(input.nodes, () => true, size, input.order);
  const result: CanaryProgress = {
    size,
    nodes: canary.map((n) => n.name),
    passed: input.passedAt !== undefined,
  };
  if (result.passed || size === 0) return result;
  let updated = 0;
  let pending = false;
  let wakeAt = Number.POSITIVE_INFINITY;
  for (const node of canary) {
    const snapshot = snapshots.get(node.name);
    if (notReadyBeforeTurn(node, snapshot, T)) continue;
    const healthy = snapshot !== undefined && node.current === T && node.desired === T && isHealthy(snapshot);
    // Healthy since an unknown moment (the conditions tell nothing): long enough.
    const soakedAt = snapshot?.healthySince === undefined ? now : snapshot.healthySince + input.minReadyMs;
    if (healthy && now >= soakedAt) updated++;
    else {
      pending = true;
      if (healthy) wakeAt = Math.min(wakeAt, soakedAt);
    }
  }
  if (!pending && updated > 0) {
    result.passed = true;
    result.passedNow = Math.floor(now / 1000) * 1000;
  }
  if (Number.isFinite(wakeAt)) result.wakeAt = wakeAt;
  return result;
}
