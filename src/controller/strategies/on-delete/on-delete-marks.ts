// OnDelete's marks: a joining node gets the target at once; existing nodes keep their revision, and
// those on an older one carry the outdated taint (spec.updateStrategy.onDelete.outdatedTaint) with
// their revision number. Upgrades asked for run under the RollingUpdate rules, which may drain: no
// release here.

import { bootstrap, type MarksInput, type StrategyMarks } from '../node-marks.ts';

export interface OnDeleteMarksInput extends MarksInput {
  outdatedTaint: 'None' | 'NoSchedule' | 'PreferNoSchedule';
}

export const onDeleteMarks: StrategyMarks<OnDeleteMarksInput> = (input) => {
  const T = input.target.name;
  return (node) => {
    const joining = bootstrap(node, T);
    if (joining) return joining;
    const outdated = node.current !== undefined && node.current !== T;
    if (input.outdatedTaint === 'None' || !outdated) return { annotations: {} };
    const number = input.revisionNumbers.get(node.current!);
    return {
      annotations: {},
      taint: { effect: input.outdatedTaint, value: String(number ?? node.current) },
    };
  };
};
