// The strategies' descriptions (what the CLI says about them): every type the API accepts has one, a
// type this nodeherd does not know has none (the CLI then says nothing of its own about it), and the
// parts the CLI keys on say what each strategy does.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { UPDATE_STRATEGY_TYPES } from '../../../src/api/node-config-pool-schema.ts';
import { strategyDescription } from '../../../src/controller/strategies/descriptions.ts';

test('every strategy type the API accepts has a description', () => {
  for (const type of UPDATE_STRATEGY_TYPES) {
    const description = strategyDescription(type);
    assert.ok(description, type);
    assert.equal(typeof description.detail({ type }), 'string');
  }
});

test('an unknown type, or a name of Object.prototype, has no description', () => {
  assert.equal(strategyDescription('Sideways'), undefined);
  assert.equal(strategyDescription('toString'), undefined);
});

test('the plan column, the action on request and nodeherd upgrade, by strategy', () => {
  const column = (type: string) => strategyDescription(type)?.column?.header;
  assert.deepEqual(UPDATE_STRATEGY_TYPES.map(column), ['BATCH', 'WAVE', 'START', undefined, undefined]);
  const asked = UPDATE_STRATEGY_TYPES.filter((t) => strategyDescription(t)?.updatesWhenAsked);
  assert.deepEqual(asked, ['OnDelete', 'OTA']);
  const onDemand = UPDATE_STRATEGY_TYPES.filter((t) => strategyDescription(t)?.upgradesOnDemand);
  assert.deepEqual(onDemand, ['OnDelete']);
});
