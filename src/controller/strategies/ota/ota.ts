// OTA: nodes not on the target are offered it (available-revision); each node's owner decides when
// its agent applies it. The controller only writes the offers and reports.

import { planNodeMarks } from '../node-marks.ts';
import type { RolloutStrategy, StrategyDecision, StrategySnapshot } from '../strategy.ts';
import { marksInput, reportInput } from '../strategy-inputs.ts';
import { strategyReport } from '../strategy-status.ts';
import { otaMarks } from './ota-marks.ts';
import { otaReport } from './ota-report.ts';

export const ota: RolloutStrategy = {
  type: 'OTA',

  decide(s: StrategySnapshot): StrategyDecision {
    return { marks: planNodeMarks(marksInput(s), otaMarks) };
  },

  report(after: StrategySnapshot) {
    return strategyReport(reportInput(after, 'OTA'), otaReport);
  },
};
