// The strategies by the name a pool's spec.updateStrategy.type gives. Adding a strategy: its folder
// here, one line below, and its value in the API schema's enum (src/api/node-config-pool-schema.ts).

import { onDelete } from './on-delete/on-delete.ts';
import { ota } from './ota/ota.ts';
import { rollingUpdate } from './rolling-update/rolling-update.ts';
import { serial } from './serial/serial.ts';
import { spread } from './spread/spread.ts';
import type { RolloutStrategy, StrategyType } from './strategy.ts';

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
