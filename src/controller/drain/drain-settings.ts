// A pool's drain settings (spec.drain) as the drainer uses them, with today's behaviour as the
// default: evict everything evictable (emptyDir data included), each pod with its own grace period,
// and keep trying until the rollout's progress deadline fails the node.

import type { drainSchema } from '../../api/node-config-pool-schema.ts';
import type { OutputOf } from '../../api/schema-builder.ts';
import type { LabelSelector } from '../../api/types.ts';

export type DrainSpec = OutputOf<typeof drainSchema>;

export interface DrainSettings {
  timeoutMs?: number;
  gracePeriodSeconds?: number;
  skipPodSelector?: LabelSelector;
  deleteEmptyDirData: boolean;
  onTimeout: 'Fail' | 'Force';
  forceDeleteBudgetedPods: boolean;
}

export const DEFAULT_DRAIN_SETTINGS: DrainSettings = {
  deleteEmptyDirData: true,
  onTimeout: 'Fail',
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
    forceDeleteBudgetedPods: spec.forceDeleteBudgetedPods ?? false,
  };
}
