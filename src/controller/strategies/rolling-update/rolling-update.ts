// RollingUpdate: the controller hands the target out itself, batch by batch, under the disruption
// budget (rollout/decide.ts). Gates, holds, offers and taints another strategy left go.

import { episodeStart } from '../../revisions/rollout-history.ts';
import { decideRollout } from '../../rollout/decide.ts';
import { planNodeMarks } from '../node-marks.ts';
import type { RolloutStrategy, StrategyDecision, StrategySnapshot } from '../strategy.ts';
import { marksInput } from '../strategy-inputs.ts';
import { rollingUpdateMarks } from './rolling-update-marks.ts';

export const rollingUpdate: RolloutStrategy = {
  type: 'RollingUpdate',

  decide(s: StrategySnapshot): StrategyDecision {
    const start = episodeStart(s.history);
    const rollout = decideRollout({
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
    });
    return {
      marks: planNodeMarks(marksInput(s), rollingUpdateMarks),
      rollout,
      ...(rollout.failureAction && !s.failureApplied ? { failureAction: rollout.failureAction } : {}),
      ...(rollout.requeueAfterMs !== undefined ? { requeueAfterMs: rollout.requeueAfterMs } : {}),
    };
  },

  // Nodes that failed by deadline or health (not by their agent's report) get another chance.
  retryOnResume(decision: StrategyDecision): string[] {
    return (decision.rollout?.failures ?? [])
      .filter((f) => f.touched && f.failure?.reason !== 'AgentFailed')
      .map((f) => f.name);
  },
};
