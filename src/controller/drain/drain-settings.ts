// A pool's drain settings (spec.drain) as the drainer uses them, with today's behaviour as the
// default: evict everything evictable (emptyDir data included), each pod with its own grace period,
// and keep trying until the rollout's progress deadline fails the node.

import { DEFAULT_MAX_SKIPPED, type drainSchema } from '../../api/pool-drain-schema.ts';
import type { OutputOf } from '../../api/schema-builder.ts';
import type { LabelSelector } from '../../api/types.ts';
import type { DrainSkip } from '../rollout/types.ts';

export type DrainSpec = OutputOf<typeof drainSchema>;

export interface DrainSettings {
  timeoutMs?: number;
  gracePeriodSeconds?: number;
  skipPodSelector?: LabelSelector;
  deleteEmptyDirData: boolean;
  onTimeout: 'Fail' | 'Skip' | 'Force';
  /** With Skip: the most nodes skipped at once. */
  maxSkipped: number;
  forceDeleteBudgetedPods: boolean;
}

export const DEFAULT_DRAIN_SETTINGS: DrainSettings = {
  deleteEmptyDirData: true,
  onTimeout: 'Fail',
  maxSkipped: DEFAULT_MAX_SKIPPED,
  forceDeleteBudgetedPods: false,
};

export function drainSettings(spec: Partial<DrainSpec> | undefined): DrainSettings {
  if (!spec) return DEFAULT_DRAIN_SETTINGS;
  return {
    ...(spec.timeoutSeconds !== undefined ? { timeoutMs: spec.timeoutSeconds * 1000 } : {}),
    ...(spec.gracePeriodSeconds !== undefined ? { gracePeriodSeconds: spec.gracePeriodSeconds } : {}),
    ...(spec.skipPodSelector ? { skipPodSelector: spec.skipPodSelector as LabelSelector } : {}),
    deleteEmptyDirData: spec.deleteEmptyDirData ?? true,
    onTimeout: spec.onTimeout ?? 'Fail',
    maxSkipped: spec.maxSkipped ?? DEFAULT_MAX_SKIPPED,
    forceDeleteBudgetedPods: spec.forceDeleteBudgetedPods ?? false,
  };
}

/** spec.drain.onTimeout Skip as the rollout decision applies it (undefined: not Skip). */
export function drainSkipOf(spec: Partial<DrainSpec> | undefined): DrainSkip | undefined {
  if (spec?.onTimeout !== 'Skip' || spec.timeoutSeconds === undefined) return undefined;
  return { timeoutSeconds: spec.timeoutSeconds, maxSkipped: spec.maxSkipped ?? DEFAULT_MAX_SKIPPED };
}
