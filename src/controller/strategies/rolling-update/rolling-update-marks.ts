// RollingUpdate's marks: none. The controller hands the target out itself (rollout/decide.ts), so
// every gate, hold, offer and taint another strategy left goes.

import type { StrategyMarks, WantedMarks } from '../node-marks.ts';

// One answer for every node (asked per member on every reconcile); nothing modifies it.
const NONE: WantedMarks = Object.freeze({ annotations: Object.freeze({}) });

export const rollingUpdateMarks: StrategyMarks = () => () => NONE;
