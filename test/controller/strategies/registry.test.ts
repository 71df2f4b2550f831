// The strategy registry: every update strategy the API accepts has its implementation, registered
// under its own name, and an unknown name is an error naming the field.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { UPDATE_STRATEGY_TYPES } from '../../../src/api/node-config-pool-schema.ts';
import { strategyFor } from '../../../src/controller/strategies/registry.ts';

test('every strategy type the API accepts is registered under its name', () => {
  for (const type of UPDATE_STRATEGY_TYPES) {
    const strategy = strategyFor(type);
    assert.equal(strategy.type, type);
    assert.equal(typeof strategy.decide, 'function');
  }
});

test('an unknown strategy type is an error naming spec.updateStrategy.type', () => {
  assert.throws(() => strategyFor('Sideways'), /spec\.updateStrategy\.type: unknown strategy "Sideways"/);
});
