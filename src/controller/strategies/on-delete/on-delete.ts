// OnDelete: new nodes get the target, existing nodes keep their revision until they are replaced or
// asked to upgrade (nodeherd.io/upgrade-requested on a node, nodeherd.io/upgrade-revision on the pool);
// asked-for upgrades run under the RollingUpdate safety rules. Revisions no node uses go at once.

import { UPGRADE_REVISION_ANNOTATION } from '../../../api/node-protocol.ts';
import { episodeStart } from '../../revisions/rollout-history.ts';
import { decideRollout } from '../../rollout/decide.ts';
import { planNodeMarks } from '../node-marks.ts';
import type { RolloutStrategy, StrategyDecision, StrategySnapshot } from '../strategy.ts';
import { marksInput, reportInput } from '../strategy-inputs.ts';
import { strategyReport } from '../strategy-status.ts';
import { onDeleteMarks } from './on-delete-marks.ts';
import { onDeleteReport } from './on-delete-report.ts';
import { planUpgrades } from './on-delete-upgrades.ts';

/** OnDelete's decision: the nodes asked to upgrade, for the report. */
export interface OnDeleteDecision extends StrategyDecision {
  requested: string[];
}

export const onDelete: RolloutStrategy<OnDeleteDecision> = {
  type: 'OnDelete',
  keepsOnlyRevisionsInUse: true,

  decide(s: StrategySnapshot): OnDeleteDecision {
    const start = episodeStart(s.history);
    const request = s.pool.metadata.annotations?.[UPGRADE_REVISION_ANNOTATION];
    const plan = planUpgrades({
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
    const subset = new Set(plan.nodes);
    const upgrades =
      plan.nodes.length > 0
        ? decideRollout({
            settings: s.settings,
            paused: s.paused,
            target: s.target,
            // No rollback target: the other nodes were never moved, so a failed upgrade pauses.
            ...(start !== undefined ? { episodeStart: start } : {}),
            nodes: s.snapshots.filter((n) => subset.has(n.name)),
            now: s.now,
          })
        : undefined;
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
      ...(upgrades?.failureAction && !s.failureApplied ? { failureAction: upgrades.failureAction } : {}),
      ...(upgrades?.requeueAfterMs !== undefined ? { requeueAfterMs: upgrades.requeueAfterMs } : {}),
    };
  },

  report(after: StrategySnapshot, decision: OnDeleteDecision) {
    const upgrade = {
      requested: decision.requested,
      ...(decision.upgrades ? { decision: decision.upgrades } : {}),
    };
    return strategyReport({ ...reportInput(after, 'OnDelete'), upgrade }, onDeleteReport);
  },
};
