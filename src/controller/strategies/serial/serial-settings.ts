// A pool's Serial settings with the schema's defaults (slots, Lease duration) where the pool sets none:
// the one place they are filled in, for the decision, the runtime, the fast path and the CLI alike.

import { updateStrategySchema } from '../../../api/node-config-pool-schema.ts';
import type { DefaultedPoolSpec } from '../../../api/pool-defaults.ts';
import { applyDefaults } from '../../../api/structural.ts';

export type SerialSettings = NonNullable<DefaultedPoolSpec['updateStrategy']['serial']>;

export function serialSettingsOf(
  strategy: { serial?: Partial<SerialSettings> | undefined } | undefined,
): SerialSettings {
  return applyDefaults(
    updateStrategySchema.json.properties!.serial!,
    strategy?.serial ?? {},
  ) as SerialSettings;
}
