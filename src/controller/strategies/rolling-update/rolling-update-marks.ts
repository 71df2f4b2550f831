// RollingUpdate's marks: the controller hands the target out itself (rollout/decide.ts), so every
// gate, hold, offer and taint another strategy left goes. The one mark it sets is the pre-stage ask
// (nodeherd.io/prestage-revision) on the nodes the decision names (RolloutDecision.prestage), with when
// it was asked (nodeherd.io/prestage-asked-at, kept while the ask for the same revision stands) so
// spec.prestage.timeoutSeconds counts from the ask, across controller restarts.

import { PRESTAGE_ASKED_AT_ANNOTATION, PRESTAGE_REVISION_ANNOTATION } from '../../../api/node-protocol.ts';
import type { MarksInput, StrategyMarks, WantedMarks } from '../node-marks.ts';

export interface RollingUpdateMarksInput extends MarksInput {
  /** The nodes to carry the pre-stage ask for the target; every other node has it removed. */
  prestage?: ReadonlySet<string>;
}

// One answer for every node (asked per member on every reconcile); nothing modifies it.
const NONE: WantedMarks = Object.freeze({ annotations: Object.freeze({}) });

export const rollingUpdateMarks: StrategyMarks<RollingUpdateMarksInput> = (input) => {
  const prestage = input.prestage;
  if (prestage === undefined || prestage.size === 0) return () => NONE;
  const T = input.target.name;
  const fresh: WantedMarks = Object.freeze({
    annotations: Object.freeze({
      [PRESTAGE_REVISION_ANNOTATION]: T,
      [PRESTAGE_ASKED_AT_ANNOTATION]: new Date(input.now).toISOString(),
    }),
  });
  return (node) => {
    if (!prestage.has(node.name)) return NONE;
    const a = node.annotations ?? {};
    // Asked already for this revision: the ask keeps its time (an ask an older controller made without
    // one gets one now).
    const askedAt = a[PRESTAGE_REVISION_ANNOTATION] === T ? a[PRESTAGE_ASKED_AT_ANNOTATION] : undefined;
    if (askedAt === undefined || Number.isNaN(Date.parse(askedAt))) return fresh;
    return { annotations: { [PRESTAGE_REVISION_ANNOTATION]: T, [PRESTAGE_ASKED_AT_ANNOTATION]: askedAt } };
  };
};
