// The Node annotations strategies own, each declared in its folder (<name>/<name>-annotations.ts) and
// collected here: StrategyNode reads them (StrategyNode.annotations), the marks planner removes any a
// node carries that its strategy no longer wants, and a gate among them means the node waits its turn.
// A strategy with annotations of its own: one line below. (Not in registry.ts: the strategies'
// decision code imports StrategyNode, so the registry cannot be beneath it.)

import { rollingUpdateAnnotations } from './rolling-update/rolling-update-annotations.ts';
import { serialAnnotations } from './serial/serial-annotations.ts';

export interface StrategyAnnotation {
  key: string;
  /** A node carrying it waits for its turn (the status counts it as waiting). */
  gate: boolean;
}

const STRATEGY_ANNOTATIONS: readonly StrategyAnnotation[] = [
  ...serialAnnotations,
  ...rollingUpdateAnnotations,
];

export const STRATEGY_ANNOTATION_KEYS: readonly string[] = STRATEGY_ANNOTATIONS.map((a) => a.key);
export const STRATEGY_GATE_KEYS: readonly string[] = STRATEGY_ANNOTATIONS.filter((a) => a.gate).map(
  (a) => a.key,
);
