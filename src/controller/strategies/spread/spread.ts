// Spread: every node gets an evenly spaced start time (not-before) within the window; agents start at
// their time. More failures than the failure policy tolerates pause the pool or roll it back.

import { episodeStart } from '../../revisions/rollout-history.ts';
import { failureActionFor } from '../../rollout/decide.ts';
import type { FailureAction, NodeVerdict } from '../../rollout/types.ts';
import { planNodeMarks } from '../node-marks.ts';
import type { RolloutStrategy, StrategyDecision, StrategySnapshot } from '../strategy.ts';
import { holdReason, marksInput, reportInput } from '../strategy-inputs.ts';
import { failedFor } from '../strategy-node.ts';
import { strategyReport } from '../strategy-status.ts';
import { spreadSchedule, spreadWindowStart } from './spread-schedule.ts';

/** The window of this rollout: it opens a hand-out lead after the rollout started. */
function spreadWindow(s: StrategySnapshot): { windowStart: number; windowSeconds: number } {
  const record = s.history.findLast((r) => r.name === s.target.name);
  const startedAt = record ? Date.parse(record.startedAt) : s.now;
  return {
    windowStart: spreadWindowStart(Number.isNaN(startedAt) ? s.now : startedAt, s.nodes.length),
    // Validation requires spread.windowSeconds; an object stored before that rule gets a zero window.
    windowSeconds: s.spec.updateStrategy.spread?.windowSeconds ?? 0,
  };
}

function spreadFailure(s: StrategySnapshot): FailureAction | undefined {
  const failures: NodeVerdict[] = s.nodes
    .filter((n) => failedFor(n, s.target.name))
    .map((n) => ({
      name: n.name,
      zone: n.zone,
      phase: 'Failed',
      available: false,
      counted: true,
      touched: true,
      failure: { reason: 'AgentFailed', message: n.message ?? 'failed' },
    }));
  const start = episodeStart(s.history);
  return failureActionFor(
    {
      settings: s.settings,
      paused: s.paused,
      target: s.target,
      ...(s.lastComplete ? { lastComplete: s.lastComplete } : {}),
      ...(start !== undefined ? { episodeStart: start } : {}),
      nodes: [],
      now: s.now,
    },
    failures,
  );
}

export const spread: RolloutStrategy = {
  type: 'Spread',

  decide(s: StrategySnapshot): StrategyDecision {
    const failureAction = s.failureApplied ? undefined : spreadFailure(s);
    if (failureAction) return { marks: [], failureAction };
    const hold = holdReason(s);
    return {
      marks: planNodeMarks(marksInput(s, 'Spread', { ...(hold ? { hold } : {}), spread: spreadWindow(s) })),
    };
  },

  report(after: StrategySnapshot) {
    const window = spreadWindow(after);
    // The times handed out (a late node's differs from the plan), the plan where none is written yet.
    const schedule = spreadSchedule(after.nodes, window.windowStart, window.windowSeconds);
    for (const node of after.nodes) {
      const written =
        node.desired === after.target.name && node.notBefore ? Date.parse(node.notBefore) : Number.NaN;
      if (!Number.isNaN(written)) schedule.set(node.name, written);
    }
    return strategyReport(reportInput(after, 'Spread', { schedule }));
  },
};
