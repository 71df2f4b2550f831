// The pool's order and the next-in-line taint in the pure rollout decision (issue 34.4): batches go in
// the pool's order; while a batch drains, the next batch is named for the PreferNoSchedule taint, and
// the name goes when the node's turn comes, the rollout pauses, rolls back, stops at a closed window
// or is replanned.

import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { decideRollout } from '../../../src/controller/rollout/decide.ts';
import type { NodeSnapshot, RolloutInput } from '../../../src/controller/rollout/types.ts';
import { input, NOW, node, settings } from '../../support/rollout-fixtures.ts';

const waiting = (name: string, zone = '') => node(name, { needsDrain: true, zone });
const draining = (name: string, zone = '') =>
  node(name, {
    zone,
    needsDrain: true,
    drainingFor: 'r2',
    cordoned: true,
    cordonedByUs: true,
    updateStartedAt: NOW - 5_000,
  });
const tainting = (nodes: NodeSnapshot[], over: Partial<RolloutInput> = {}): RolloutInput =>
  input(nodes, { taintNext: true, settings: settings({ maxUnavailable: 2 }), ...over });

describe('next in line', () => {
  test('starting a drained batch names the next batch, in the pool order', () => {
    const d = decideRollout(
      tainting([waiting('a'), waiting('b'), waiting('c'), waiting('d'), waiting('e')], {
        order: {
          by: 'Label',
          keys: new Map([
            ['e', 1],
            ['d', 2],
            ['c', 3],
            ['b', 4],
            ['a', 5],
          ]),
        },
      }),
    );
    assert.deepEqual(
      d.starts.map((s) => s.node),
      ['e', 'd'],
      'batches go in the label order',
    );
    assert.deepEqual(d.taintNext, ['c', 'b']);
  });

  test('while a batch drains the next stays named; when its turn comes a node is no longer', () => {
    const during = decideRollout(
      tainting([draining('a'), draining('b'), waiting('c'), waiting('d'), waiting('e')]),
    );
    assert.deepEqual(during.starts, []);
    assert.deepEqual(during.taintNext, ['c', 'd']);
    const turn = decideRollout(
      tainting([
        node('a', { desiredRevision: 'r2', currentRevision: 'r2', updateStartedAt: NOW - 60_000 }),
        draining('b'),
        waiting('c'),
        waiting('d'),
        waiting('e'),
      ]),
    );
    assert.deepEqual(
      turn.starts.map((s) => s.node),
      ['c'],
    );
    assert.deepEqual(turn.taintNext, ['d', 'e'], 'c started: its taint goes; e is next now');
  });

  test('paused, outside the windows, stopped by the failure policy: nobody', () => {
    const nodes = [draining('a'), waiting('b'), waiting('c')];
    assert.deepEqual(decideRollout(tainting(nodes, { paused: true })).taintNext, []);
    const closed = decideRollout(
      tainting(nodes, {
        settings: settings({
          maxUnavailable: 2,
          maintenanceWindows: [{ schedule: '0 3 * * *', duration: '1h', timeZone: 'UTC' }],
        }),
      }),
    );
    assert.equal(closed.blocked?.reason, 'OutsideMaintenanceWindow');
    assert.deepEqual(closed.taintNext, []);
    const failing = decideRollout(
      tainting([
        draining('a'),
        node('f', { desiredRevision: 'r2', agentState: 'Failed', updateStartedAt: NOW - 1_000 }),
        waiting('b'),
      ]),
    );
    assert.ok(failing.failureAction);
    assert.deepEqual(failing.taintNext, []);
  });

  test('a rollback taints nobody', () => {
    const back = decideRollout(
      tainting([draining('a'), waiting('b')], {
        target: { name: 'r1', number: 1 },
        lastComplete: { name: 'r1', number: 1 },
      }),
    );
    assert.deepEqual(back.taintNext, []);
  });

  test('replanned (another order): the names move', () => {
    const nodes = [draining('a', 'z1'), waiting('b', 'z1'), waiting('c', 'z2'), waiting('d', 'z1')];
    const interleaved = decideRollout(tainting(nodes, { settings: settings({ maxUnavailable: 1 }) }));
    assert.deepEqual(interleaved.taintNext, ['b']);
    const fewest = decideRollout(
      tainting(nodes, {
        settings: settings({ maxUnavailable: 1 }),
        order: {
          by: 'FewestPods',
          keys: new Map([
            ['a', 3],
            ['b', 9],
            ['c', 4],
            ['d', 1],
          ]),
        },
      }),
    );
    assert.deepEqual(fewest.taintNext, ['d']);
  });

  test('no batch drains (the change needs no drain): nobody; without the option: no list at all', () => {
    const plain = [node('a'), node('b'), node('c')];
    assert.deepEqual(decideRollout(tainting(plain)).taintNext, []);
    assert.equal(decideRollout(input([draining('a'), waiting('b')])).taintNext, undefined);
  });
});
