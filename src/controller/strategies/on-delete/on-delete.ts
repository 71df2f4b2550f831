// OnDelete: new nodes get the target, existing nodes keep their revision until they are replaced or
// asked to upgrade (nodeherd.io/upgrade-requested on a node, nodeherd.io/upgrade-revision on the pool);
// asked-for upgrades run under the RollingUpdate safety rules. Revisions no node uses go at once.

import { UPGRADE_REVISION_ANNOTATION } from '../../../api/node-protocol.ts';
import { episodeStart } from '../../revisions/rollout-history.ts';
import { decideRollout, judgeRollout } from '../../rollout/decide.ts';
import type { RolloutInput } from '../../rollout/types.ts';
import { planNodeMarks } from '../node-marks.ts';
import type { RolloutStrategy, StrategyDecision, StrategySnapshot } from '../strategy.ts';
import { marksInput, reportInput, rolloutInputExtras } from '../strategy-inputs.ts';
import { strategyReport } from '../strategy-status.ts';
import { onDeleteMarks } from './on-delete-marks.ts';
import { onDeleteReport } from './on-delete-report.ts';
import { planUpgrades, type UpgradePlan } from './on-delete-upgrades.ts';

/** OnDelete's decision: the nodes asked to upgrade, for the report. */
export interface OnDeleteDecision extends StrategyDecision {
  requested: string[];
}

function upgradePlan(s: StrategySnapshot): UpgradePlan {
  const start = episodeStart(s.history);
  const request = s.pool.metadata.annotations?.[UPGRADE_REVISION_ANNOTATION];
  return planUpgrades({
    target: s.target,
    nodes: s.nodes,
    snapshots: new Map(s.snapshots.map((n) => [n.name, n])),
    revisionNumbers: s.revisionNumbers,
    ...(request !== undefined ? { revisionRequest: request } : {}),
    ...(start !== undefined ? { episodeStart: start } : {}),
    progressDeadlineSeconds: s.settings.progressDeadlineSeconds,
    minReadySeconds: s.settings.minReadySeconds,
    now: s.now,
  });
}

/** The asked-for upgrades as a rollout over those nodes only (undefined: none asked for). */
function upgradeInput(s: StrategySnapshot, plan: UpgradePlan): RolloutInput | undefined {
  if (plan.nodes.length === 0) return undefined;
  const start = episodeStart(s.history);
  const subset = new Set(plan.nodes);
  return {
    settings: s.settings,
    paused: s.paused,
    target: s.target,
    // No rollback target: the other nodes were never moved, so a failed upgrade pauses.
    ...(start !== undefined ? { episodeStart: start } : {}),
    nodes: s.snapshots.filter((n) => subset.has(n.name)),
    now: s.now,
    ...rolloutInputExtras(s),
  };
}

export const onDelete: RolloutStrategy<OnDeleteDecision> = {
  type: 'OnDelete',
  keepsOnlyRevisionsInUse: true,

  decide(s: StrategySnapshot): OnDeleteDecision {
    const plan = upgradePlan(s);
    const input = upgradeInput(s, plan);
    const upgrades = input ? decideRollout(input) : undefined;
    return {
      ...(plan.invalidRequest
        ? { warnings: [{ reason: 'UpgradeRequestInvalid', message: plan.invalidRequest }] }
        : {}),
      ...(plan.clearRevisionRequest
        ? { poolPatch: { metadata: { annotations: { [UPGRADE_REVISION_ANNOTATION]: null } } } }
        : {}),
      marks: planNodeMarks(
        { ...marksInput(s), outdatedTaint: s.spec.updateStrategy.onDelete?.outdatedTaint ?? 'None' },
        onDeleteMarks,
      ),
      requested: plan.requested,
      ...(upgrades ? { upgrades } : {}),
      ...(upgrades?.requeueAfterMs !== undefined ? { requeueAfterMs: upgrades.requeueAfterMs } : {}),
    };
  },

  failureVerdict(s: StrategySnapshot) {
    const input = s.failureApplied ? undefined : upgradeInput(s, upgradePlan(s));
    const action = input ? judgeRollout(input).failureAction : undefined;
    return action ? { action } : {};
  },

  report(after: StrategySnapshot, decision: OnDeleteDecision) {
    const upgrade = {
      requested: decision.requested,
      ...(decision.upgrades ? { decision: decision.upgrades } : {}),
    };
    return strategyReport({ ...reportInput(after, 'OnDelete'), upgrade }, onDeleteReport);
  },
};
