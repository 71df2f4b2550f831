// The inputs the shared pure planners take (node marks, the strategies' report), filled from a
// strategy snapshot: each strategy adds only what is its own (a hold, its window, its gate).

import { drainSkipOf } from '../drain/drain-settings.ts';
import { isHealthy } from '../rollout/node-verdict.ts';
import type { NodeOrder } from '../rollout/rollout-order.ts';
import type { DrainSkip } from '../rollout/types.ts';
import type { MarksInput } from './node-marks.ts';
import type { StrategySnapshot } from './strategy.ts';
import type { StrategyStatusInput } from './strategy-status.ts';

/** The pool's node snapshots by node name, as the planners look them up. */
export function snapshotsByName(s: StrategySnapshot): Map<string, StrategySnapshot['snapshots'][number]> {
  return new Map(s.snapshots.map((n) => [n.name, n]));
}

/** When the target's canary passed, as the pool's history records it (undefined: not yet, or no canary). */
export function canaryPassedAt(s: StrategySnapshot): number | undefined {
  const record = s.history.findLast((r) => r.name === s.target.name);
  const passedAt = record?.canaryPassedAt ? Date.parse(record.canaryPassedAt) : Number.NaN;
  return Number.isNaN(passedAt) ? undefined : passedAt;
}

export function marksInput(s: StrategySnapshot): MarksInput {
  const refused = s.snapshots.filter((n) => n.refused !== undefined).map((n) => n.name);
  return {
    target: s.target,
    revisionNumbers: s.revisionNumbers,
    nodes: s.nodes,
    ...(s.order ? { order: s.order } : {}),
    now: s.now,
    ...(refused.length > 0 ? { refused: new Set(refused) } : {}),
  };
}

/**
 * What a RolloutInput takes from the pool beyond the settings: the drain's onTimeout Skip and the
 * order ({} when the pool sets neither).
 */
export function rolloutInputExtras(s: StrategySnapshot): { drainSkip?: DrainSkip; order?: NodeOrder } {
  const drainSkip = drainSkipOf(s.spec.drain);
  return { ...(drainSkip ? { drainSkip } : {}), ...(s.order ? { order: s.order } : {}) };
}

/** Why nodes that have not started wait (gated strategies): the pool is paused. */
export function holdReason(s: StrategySnapshot): string | undefined {
  return s.paused ? (s.pausedByFailure ?? 'the pool is paused (spec.paused)') : undefined;
}

export function reportInput(s: StrategySnapshot, type: StrategyStatusInput['type']): StrategyStatusInput {
  const healthy = new Map(s.snapshots.map((n) => [n.name, isHealthy(n)]));
  return {
    type,
    target: s.target,
    nodes: s.nodes,
    healthy: (node) => healthy.get(node) ?? false,
    revisionNumbers: s.revisionNumbers,
    paused: s.paused,
    ...(s.pausedByFailure ? { stoppedByFailure: s.pausedByFailure } : {}),
    now: s.now,
  };
}
