// RollingUpdate's marks: none. The controller hands the target out itself (rollout/decide.ts), so
// every gate, hold, offer and taint another strategy left goes.

import type { StrategyMarks } from '../node-marks.ts';

export const rollingUpdateMarks: StrategyMarks = () => () => ({ annotations: {} });
