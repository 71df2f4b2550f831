// A NodeConfigPool spec with every default filled in, including the settings of the chosen strategy type
// (the schema cannot default those: a `rollingUpdate: {}` default would also land on Serial pools).

import {
  nodeConfigPoolSpecSchema,
  rollingUpdateSchema,
  type UPDATE_STRATEGY_TYPES,
  updateStrategySchema,
} from './node-config-pool-schema.ts';
import type { OutputOf } from './schema-builder.ts';
import { applyDefaults, pruneUnknown } from './structural.ts';
import type { NodeConfigPoolSpec } from './types.ts';

export type DefaultedPoolSpec = OutputOf<typeof nodeConfigPoolSpecSchema>;

type StrategyField = Exclude<keyof DefaultedPoolSpec['updateStrategy'], 'type' | 'wave'>;

// The settings field defaulted for each strategy type, for every type (a new type must say): OTA has
// no settings; Spread's field has a required member (windowSeconds), so a valid Spread pool always sets
// it and there is nothing to default.
const STRATEGY_FIELD: Record<(typeof UPDATE_STRATEGY_TYPES)[number], StrategyField | undefined> = {
  RollingUpdate: 'rollingUpdate',
  Serial: 'serial',
  Spread: undefined,
  OnDelete: 'onDelete',
  OTA: undefined,
};

export function defaultedPoolSpec(spec: NodeConfigPoolSpec): DefaultedPoolSpec {
  const schema = nodeConfigPoolSpecSchema.json;
  const result = pruneUnknown(schema, applyDefaults(schema, spec)) as DefaultedPoolSpec;
  const type = result.updateStrategy.type;
  const field = STRATEGY_FIELD[type as keyof typeof STRATEGY_FIELD];
  if (field && result.updateStrategy[field] === undefined) {
    const fieldSchema =
      field === 'rollingUpdate' ? rollingUpdateSchema.json : updateStrategySchema.json.properties![field]!;
    Object.assign(result.updateStrategy, { [field]: applyDefaults(fieldSchema, {}) });
  }
  return result;
}
