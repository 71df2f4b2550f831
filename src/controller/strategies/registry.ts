// The strategies by the name a pool's spec.updateStrategy.type gives, and their runtimes (one each per
// controller). Adding a strategy: its folder here, one line below, its description's line in
// descriptions.ts, and its value in the API schema's enum (src/api/update-strategy-schema.ts).

import { onDelete } from './on-delete/on-delete.ts';
import { ota } from './ota/ota.ts';
import { rollingUpdate } from './rolling-update/rolling-update.ts';
import { serial } from './serial/serial.ts';
import { spread } from './spread/spread.ts';
import type { RolloutStrategy, StrategyIO, StrategyRuntime, StrategyType } from './strategy.ts';

const STRATEGIES: Record<StrategyType, RolloutStrategy> = {
  RollingUpdate: rollingUpdate,
  Serial: serial,
  Spread: spread,
  OnDelete: onDelete,
  OTA: ota,
};

export function strategyFor(type: string): RolloutStrategy {
  const strategy = STRATEGIES[type as StrategyType];
  if (!strategy) throw new Error(`spec.updateStrategy.type: unknown strategy "${type}"`);
  return strategy;
}

/** The runtimes of the strategies that have one, made once per controller. */
export function strategyRuntimes(io: StrategyIO): Map<StrategyType, StrategyRuntime> {
  const runtimes = new Map<StrategyType, StrategyRuntime>();
  for (const [type, strategy] of Object.entries(STRATEGIES) as [StrategyType, RolloutStrategy][]) {
    const runtime = strategy.runtime?.(io);
    if (runtime) runtimes.set(type, runtime);
  }
  return runtimes;
}
