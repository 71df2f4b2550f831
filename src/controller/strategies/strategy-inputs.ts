// The inputs the shared pure planners take (node marks, the strategies' report), filled from a
// strategy snapshot: each strategy adds only what is its own (a hold, the Spread window, the slots).

import { isHealthy } from '../rollout/node-verdict.ts';
import type { MarksInput, StrategyType } from './node-marks.ts';
import type { StrategySnapshot } from './strategy.ts';
import type { StrategyStatusInput } from './strategy-status.ts';

export function marksInput(
  s: StrategySnapshot,
  type: StrategyType,
  extra: Partial<MarksInput> = {},
): MarksInput {
  const serial = s.spec.updateStrategy.serial;
  return {
    type,
    target: s.target,
    revisionNumbers: s.revisionNumbers,
    nodes: s.nodes,
    serial: {
      pool: s.pool.metadata.name,
      slots: serial?.slots ?? 1,
      leaseDurationSeconds: serial?.leaseDurationSeconds ?? 600,
    },
    outdatedTaint: s.spec.updateStrategy.onDelete?.outdatedTaint ?? 'None',
    slotHolders: new Set(),
    now: s.now,
    ...extra,
  };
}

/** Why nodes that have not started wait (gated strategies): the pool is paused. */
export function holdReason(s: StrategySnapshot): string | undefined {
  return s.paused ? (s.pausedByFailure ?? 'the pool is paused (spec.paused)') : undefined;
}

export function reportInput(
  s: StrategySnapshot,
  type: StrategyStatusInput['type'],
  extra: Partial<StrategyStatusInput> = {},
): StrategyStatusInput {
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
    ...extra,
  };
}
