// The HealthGate condition after the one decision: what the kinds that ask Prometheus said, else what
// held the batch, as combineGateChecks would say of all of them together.

import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { combineGateChecks, type GateCheck } from '../../../src/controller/gates/gate-check.ts';
import { gateCondition } from '../../../src/controller/gates/gate-step.ts';

const passed: GateCheck = { state: 'pass', message: 'errors = 0, must be < 0.05' };
const unavailable: GateCheck = { state: 'unavailable', message: 'alert gates: Prometheus cannot be asked' };
const blocking = 'blocking pods run on the nodes the next batch would take: ns/p on a';
const held = { verdict: 'hold', reason: 'BlockingPods', message: blocking } as const;

describe('gate condition', () => {
  test('nothing evaluated: keep the last condition, or remove it when the pool has no gate', () => {
    assert.equal(gateCondition({}, undefined), undefined);
    assert.equal(gateCondition({ condition: null }, undefined), null);
  });

  test('the same as every check combined at once', () => {
    for (const [asked, batch] of [
      [[passed], held],
      [[passed], undefined],
      [[unavailable], held],
      [[], held],
      [[], undefined],
    ] as const) {
      const all = combineGateChecks([...asked], batch ? blocking : undefined);
      assert.deepEqual(gateCondition({ asked: [...asked] }, batch), {
        passed: all.verdict === 'pass',
        reason: all.reason,
        message: all.message,
      });
    }
  });
});
