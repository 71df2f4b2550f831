// The strategies' descriptions (what the CLI says about them) by the name a pool's
// spec.updateStrategy.type gives: kept apart from registry.ts so the CLI loads no decision code.
// Adding a strategy: its description here too.

import type { StrategyType } from './node-marks.ts';
import { onDeleteDescription } from './on-delete/on-delete-description.ts';
import { otaDescription } from './ota/ota-description.ts';
import { rollingUpdateDescription } from './rolling-update/rolling-update-description.ts';
import { serialDescription } from './serial/serial-description.ts';
import { spreadDescription } from './spread/spread-description.ts';
import type { StrategyDescription } from './strategy-description.ts';

const DESCRIPTIONS: Record<StrategyType, StrategyDescription> = {
  RollingUpdate: rollingUpdateDescription,
  Serial: serialDescription,
  Spread: spreadDescription,
  OnDelete: onDeleteDescription,
  OTA: otaDescription,
};

/** The description of a strategy type; undefined for a type this nodeherd does not know. */
export function strategyDescription(type: string): StrategyDescription | undefined {
  return Object.hasOwn(DESCRIPTIONS, type) ? DESCRIPTIONS[type as StrategyType] : undefined;
}
