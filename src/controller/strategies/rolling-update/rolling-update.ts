// RollingUpdate: the controller hands the target out itself, batch by batch, under the disruption
// budget (rollout/decide.ts). Gates, holds, offers and taints another strategy left go.

import { episodeStart } from '../../revisions/rollout-history.ts';
import { decideRollout, judgeRollout } from '../../rollout/decide.ts';
import type { RolloutInput } from '../../rollout/types.ts';
import { planNodeMarks } from '../node-marks.ts';
import type { RolloutStrategy, StrategyDecision, StrategySnapshot } from '../strategy.ts';
import { marksInput, rolloutInputExtras } from '../strategy-inputs.ts';
import { rollingUpdateMarks } from './rolling-update-marks.ts';

function rolloutInput(s: StrategySnapshot): RolloutInput {
  const start = episodeStart(s.history);
  return {
    settings: s.settings,
    // A pause the failure policy made in this reconcile keeps the decision that tripped it, so the
    // status says why; the next reconcile sees spec.paused.
    paused: s.failureApplied?.action === 'Pause' ? false : s.paused,
    target: s.target,
    ...(s.lastComplete ? { lastComplete: s.lastComplete } : {}),
    ...(start !== undefined ? { episodeStart: start } : {}),
    nodes: s.snapshots,
    now: s.now,
    ...(s.gate ? { gate: s.gate } : {}),
    ...(s.holdsBatch ? { holdsBatch: s.holdsBatch } : {}),
    ...(s.spec.reboots?.osRequested?.policy === 'Reboot' ? { osReboots: true } : {}),
    ...(s.spec.prestage
      ? {
          prestage: {
            maxConcurrent: s.spec.prestage.maxConcurrent,
            timeoutSeconds: s.spec.prestage.timeoutSeconds,
          },
        }
      : {}),
    ...rolloutInputExtras(s),
    ...(s.spec.rolloutOrder?.preferNoScheduleNext ? { taintNext: true } : {}),
  };
}

export const rollingUpdate: RolloutStrategy = {
  type: 'RollingUpdate',
  healthGate: true,

  decide(s: StrategySnapshot): StrategyDecision {
    const rollout = decideRollout(rolloutInput(s));
    return {
      marks: planNodeMarks({ ...marksInput(s), prestage: new Set(rollout.prestage) }, rollingUpdateMarks),
      rollout,
      ...(rollout.requeueAfterMs !== undefined ? { requeueAfterMs: rollout.requeueAfterMs } : {}),
    };
  },

  failureVerdict(s: StrategySnapshot) {
    if (s.failureApplied) return {};
    const judged = judgeRollout(rolloutInput(s));
    return { judged, ...(judged.failureAction ? { action: judged.failureAction } : {}) };
  },

  // Nodes that failed by deadline or health (not by their agent's report) get another chance.
  retryOnResume(s: StrategySnapshot): string[] {
    return judgeRollout(rolloutInput(s))
      .failures.filter((f) => f.touched && f.failure?.reason !== 'AgentFailed')
      .map((f) => f.name);
  },
};
