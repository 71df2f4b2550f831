// The rollout decision with a health gate that holds or fails (src/controller/gates gives the verdict).

import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { decideRollout, judgeRollout } from '../../../src/controller/rollout/decide.ts';
import { input, NOW, node, settings, updated } from '../../support/rollout-fixtures.ts';

const hold = { verdict: 'hold', reason: 'GateUnavailable', message: 'Prometheus cannot be asked' } as const;
const fail = {
  verdict: 'fail',
  reason: 'MetricGateFailed',
  message: 'errors = 0.4, must be < 0.05',
} as const;

describe('decideRollout with a health gate', () => {
  test('a holding gate starts nothing and says why', () => {
    const d = decideRollout(input([node('a'), node('b')], { gate: hold }));
    assert.deepEqual(d.starts, []);
    assert.equal(d.blocked?.reason, 'HealthGate');
    assert.equal(d.blocked?.message, 'health gate holds (GateUnavailable): Prometheus cannot be asked');
    assert.equal(d.failureAction, undefined);
  });

  test('without a gate verdict the batch starts', () => {
    assert.deepEqual(
      decideRollout(input([node('a'), node('b')])).starts.map((s) => s.node),
      ['a'],
    );
  });

  test('a failing gate before any node was touched only holds', () => {
    const d = decideRollout(input([node('a'), node('b')], { gate: fail }));
    assert.equal(d.failureAction, undefined);
    assert.equal(d.blocked?.reason, 'HealthGate');
  });

  test('a failing gate during a soak pauses the rollout with the query, value and threshold', () => {
    const nodes = [updated('a', 1_000, { updateStartedAt: NOW - 5_000 }), node('b')];
    const d = decideRollout(input(nodes, { gate: fail, settings: settings({ minReadySeconds: 60 }) }));
    assert.equal(d.failureAction?.action, 'Pause');
    assert.equal(
      d.failureAction?.message,
      'health gate failed during r2 (MetricGateFailed): errors = 0.4, must be < 0.05',
    );
    assert.equal(d.blocked?.reason, 'FailurePolicy');
    assert.deepEqual(d.starts, []);
  });

  test('with Rollback it rolls back to the last completed revision, whatever maxFailures says', () => {
    const nodes = [updated('a', 1_000, { updateStartedAt: NOW - 5_000 }), node('b')];
    const d = decideRollout(
      input(nodes, {
        gate: fail,
        settings: settings({ failurePolicy: { action: 'Rollback', maxFailures: 5 } }),
      }),
    );
    assert.equal(d.failureAction?.action, 'Rollback');
    assert.equal(d.failureAction?.to?.name, 'r1');
    assert.match(d.failureAction?.message ?? '', /; rolling back to r1$/);
  });

  test('a holding gate keeps a rollout whose nodes are all updated from completing', () => {
    const nodes = [updated('a'), updated('b')];
    assert.equal(decideRollout(input(nodes)).complete, true);
    const held = decideRollout(input(nodes, { gate: hold }));
    assert.equal(held.complete, false);
    assert.equal(held.failureAction, undefined);
  });

  test('bootstrapped nodes complete whatever the gate says', () => {
    const fresh = (name: string) =>
      node(name, { desiredRevision: 'r2', currentRevision: 'r2', wasHealthy: true });
    const d = decideRollout(input([fresh('a'), fresh('b')], { gate: hold, lastComplete: undefined }));
    assert.equal(d.complete, true);
  });

  test('a paused pool is not failed again', () => {
    const nodes = [updated('a', 1_000, { updateStartedAt: NOW - 5_000 }), node('b')];
    const d = decideRollout(input(nodes, { gate: fail, paused: true }));
    assert.equal(d.failureAction, undefined);
    assert.equal(d.blocked?.reason, 'Paused');
  });

  test('a gate that looks at the batch holds it as a held gate would: nothing starts, the budget stays', () => {
    const asked: string[][] = [];
    const blocking = {
      verdict: 'hold',
      reason: 'BlockingPods',
      message: 'blocking pods run on the nodes the next batch would take: ns/p on a',
    } as const;
    const nodes = [node('a'), node('b')];
    const d = decideRollout(
      input(nodes, {
        holdsBatch: (batch) => {
          asked.push([...batch]);
          return blocking;
        },
      }),
    );
    assert.deepEqual(asked, [['a']], 'asked of the batch the decision would start');
    const same = decideRollout(input(nodes, { gate: blocking }));
    assert.deepEqual(d.starts, []);
    assert.deepEqual(d.batchHeld, blocking);
    assert.deepEqual(d.blocked, same.blocked);
    assert.deepEqual(d.budget, same.budget);
    assert.deepEqual(d.verdicts, same.verdicts);
    assert.equal(d.complete, same.complete);
  });

  test('a batch the gate lets go starts; an empty batch is not asked about', () => {
    const d = decideRollout(input([node('a'), node('b')], { holdsBatch: () => undefined }));
    assert.deepEqual(
      d.starts.map((s) => s.node),
      ['a'],
    );
    let asked = false;
    decideRollout(
      input([node('a')], {
        paused: true,
        holdsBatch: () => {
          asked = true;
          return undefined;
        },
      }),
    );
    assert.equal(asked, false);
  });

  test('judgeRollout gives the failure policy the verdict decideRollout acts on', () => {
    const nodes = [updated('a', 1_000, { updateStartedAt: NOW - 5_000 }), node('b')];
    const judged = judgeRollout(input(nodes, { gate: fail, settings: settings({ minReadySeconds: 60 }) }));
    const decided = decideRollout(input(nodes, { gate: fail, settings: settings({ minReadySeconds: 60 }) }));
    assert.deepEqual(judged.failureAction, decided.failureAction);
    assert.deepEqual(judged.failures, decided.failures);
  });
});
