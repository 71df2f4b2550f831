// OnDelete's part of the report: the older revisions still in use, and the upgrades asked for; with
// none, the rollout waits for nodes to be replaced, and Complete says older revisions are in use.

import { plural } from '../../plural.ts';
import type { RolloutDecision } from '../../rollout/types.ts';
import { names, type StrategyReporter, type StrategyStatusInput } from '../strategy-status.ts';

export interface OnDeleteStatusInput extends StrategyStatusInput {
  /** The upgrade decision, when nodes were asked to upgrade. */
  upgrade?: { requested: readonly string[]; decision?: RolloutDecision };
}

export const onDeleteReport: StrategyReporter<OnDeleteStatusInput> = {
  notes(input, report) {
    const T = input.target.name;
    const notes: string[] = [];
    const older = new Map<string, number>();
    for (const n of input.nodes)
      if (n.current && n.current !== T) older.set(n.current, (older.get(n.current) ?? 0) + 1);
    const list = [...older.entries()]
      .sort((a, b) => (input.revisionNumbers.get(a[0]) ?? 0) - (input.revisionNumbers.get(b[0]) ?? 0))
      .map(
        ([name, count]) => `revision ${input.revisionNumbers.get(name) ?? name}: ${plural(count, 'node')}`,
      );
    if (list.length > 0) notes.push(`older revisions in use (${list.join(', ')})`);
    const requested = input.upgrade?.requested ?? [];
    const decision = input.upgrade?.decision;
    if (requested.length > 0 || (decision && !decision.complete)) {
      notes.push(`upgrading on request: ${names(requested)}`);
      if (decision?.blocked) notes.push(decision.blocked.message);
    } else {
      report.progressing.status = 'False';
      report.progressing.reason = 'WaitingForNodeReplacement';
      notes.push('new nodes get the target; existing nodes keep their revision until replaced or upgraded');
    }
    report.complete.reason = 'OlderRevisionsInUse';
    return notes;
  },
};
