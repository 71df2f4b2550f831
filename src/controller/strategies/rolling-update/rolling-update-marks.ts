// RollingUpdate's marks: the controller hands the target out itself (rollout/decide.ts), so every
// gate, hold, offer and taint another strategy left goes. The one mark it sets is the pre-stage ask
// (nodeherd.io/prestage-revision) on the nodes the decision names (RolloutDecision.prestage).

import { PRESTAGE_REVISION_ANNOTATION } from '../../../api/node-protocol.ts';
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
  const ask: WantedMarks = Object.freeze({
    annotations: Object.freeze({ [PRESTAGE_REVISION_ANNOTATION]: input.target.name }),
  });
  return (node) => (prestage.has(node.name) ? ask : NONE);
};
