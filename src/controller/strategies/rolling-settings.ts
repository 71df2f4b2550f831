// The RollingUpdate parameters as the rollout decision takes them. Spread (failure policy) and
// OnDelete (upgrades on demand) use them too, with the schema's defaults when the pool sets none.

import { rollingUpdateSchema } from '../../api/node-config-pool-schema.ts';
import type { DefaultedPoolSpec } from '../../api/pool-defaults.ts';
import type { OutputOf } from '../../api/schema-builder.ts';
import { applyDefaults } from '../../api/structural.ts';
import type { RollingUpdateSettings } from '../rollout/types.ts';

export type RollingUpdateSpec = OutputOf<typeof rollingUpdateSchema>;

export function rollingUpdateOf(spec: DefaultedPoolSpec): RollingUpdateSpec {
  return (
    spec.updateStrategy.rollingUpdate ?? (applyDefaults(rollingUpdateSchema.json, {}) as RollingUpdateSpec)
  );
}

export function rollingSettings(rolling: RollingUpdateSpec): RollingUpdateSettings {
  return {
    maxUnavailable: rolling.maxUnavailable,
    ...(rolling.maxUnavailablePerZone !== undefined
      ? { maxUnavailablePerZone: rolling.maxUnavailablePerZone }
      : {}),
    ...(rolling.canary ? { canary: rolling.canary } : {}),
    minReadySeconds: rolling.minReadySeconds,
    progressDeadlineSeconds: rolling.progressDeadlineSeconds,
    failurePolicy: rolling.failurePolicy as RollingUpdateSettings['failurePolicy'],
    ...(rolling.maintenanceWindows ? { maintenanceWindows: rolling.maintenanceWindows } : {}),
  };
}
