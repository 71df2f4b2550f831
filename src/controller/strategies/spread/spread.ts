// Spread: every node gets an evenly spaced start time (not-before) within the window; agents start at
// their time. With spread.maxUnavailable, times are handed out just in time and only within the budget;
// with rollingUpdate.canary, the first nodes go first and the others follow once those are updated
// (spread-handout.ts). More failures than the failure policy tolerates pause the pool or roll it back.

import { plural } from '../../plural.ts';
import { episodeStart } from '../../revisions/rollout-history.ts';
import { failureActionFor } from '../../rollout/decide.ts';
import { resolveIntOrPercent } from '../../rollout/int-or-percent.ts';
import type { FailureAction, NodeVerdict } from '../../rollout/types.ts';
import { planNodeMarks } from '../node-marks.ts';
import type { RolloutStrategy, StrategyDecision, StrategySnapshot } from '../strategy.ts';
import { canaryPassedAt, holdReason, marksInput, reportInput, snapshotsByName } from '../strategy-inputs.ts';
import { failedFor } from '../strategy-node.ts';
import { strategyReport } from '../strategy-status.ts';
import { type SpreadHandout, spreadHandout } from './spread-handout.ts';
import { spreadMarks } from './spread-marks.ts';
import { spreadReport } from './spread-report.ts';
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

/** The budget and canary of this pool's Spread, as the hand-out takes them (undefined: neither set). */
function spreadPlan(
  s: StrategySnapshot,
  window: { windowStart: number; windowSeconds: number },
): SpreadHandout | undefined {
  const total = s.nodes.length;
  const budget = s.spec.updateStrategy.spread?.maxUnavailable;
  const canary = s.settings.canary;
  if (budget === undefined && canary === undefined) return undefined;
  const passedAt = canaryPassedAt(s);
  return spreadHandout({
    target: s.target.name,
    nodes: s.nodes,
    snapshots: snapshotsByName(s),
    ...window,
    ...(budget !== undefined ? { maxUnavailable: resolveIntOrPercent(budget, total, 'down') } : {}),
    ...(canary ? { canarySize: resolveIntOrPercent(canary.nodes, total, 'up') } : {}),
    ...(passedAt === undefined ? {} : { canaryPassedAt: passedAt }),
    minReadyMs: s.settings.minReadySeconds * 1000,
    paused: s.paused,
    now: s.now,
    ...(s.order ? { order: s.order } : {}),
  });
}

/** Why nodes wait that have no time yet: the canary, or the budget. */
function waitNotes(plan: SpreadHandout | undefined): string[] {
  const notes: string[] = [];
  if (plan?.canary && !plan.canary.passed)
    notes.push(`waiting for the canary (${plural(plan.canary.size, 'node')}) to be updated`);
  if (plan?.budget && plan.budget.waiting > 0)
    notes.push(
      `${plural(plan.budget.waiting, 'node')} waiting for a place in the budget (${plan.budget.unavailable} of at most ${plan.budget.max} unavailable)`,
    );
  return notes;
}

export const spread: RolloutStrategy = {
  type: 'Spread',

  failureVerdict(s: StrategySnapshot) {
    const action = s.failureApplied ? undefined : spreadFailure(s);
    return action ? { action } : {};
  },

  decide(s: StrategySnapshot): StrategyDecision {
    const hold = holdReason(s);
    const window = spreadWindow(s);
    const plan = spreadPlan(s, window);
    const waitReason = waitNotes(plan)[0] ?? 'waiting for its turn in the Spread schedule';
    const decision: StrategyDecision = {
      marks: planNodeMarks(
        {
          ...marksInput(s),
          ...(hold ? { hold } : {}),
          spread: plan
            ? {
                ...window,
                times: plan.times,
                ...(plan.handOut ? { handOut: plan.handOut } : {}),
                budgeted: plan.budget !== undefined,
                waitReason,
              }
            : window,
        },
        spreadMarks,
      ),
    };
    if (plan?.canary?.passedNow !== undefined) decision.canaryPassedAt = plan.canary.passedNow;
    if (plan?.wakeAt !== undefined) decision.requeueAfterMs = Math.max(0, plan.wakeAt - s.now);
    return decision;
  },

  report(after: StrategySnapshot) {
    const window = spreadWindow(after);
    const plan = spreadPlan(after, window);
    // The times handed out (a late node's differs from the plan), the plan where none is written yet.
    const schedule = plan
      ? new Map(plan.times)
      : spreadSchedule(after.nodes, window.windowStart, window.windowSeconds, after.order);
    for (const node of after.nodes) {
      const written =
        node.desired === after.target.name && node.notBefore ? Date.parse(node.notBefore) : Number.NaN;
      if (!Number.isNaN(written)) schedule.set(node.name, written);
    }
    return strategyReport(
      { ...reportInput(after, 'Spread'), schedule, notes: waitNotes(plan) },
      spreadReport,
    );
  },
};
