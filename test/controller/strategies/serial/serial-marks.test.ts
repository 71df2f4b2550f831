// Table tests of Serial's marks: the gate with the target, the slot handed over, the hold, bootstrap,
// releasing a drain.

import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import {
  DESIRED_REVISION_ANNOTATION,
  HOLD_ANNOTATION,
  SERIAL_GATE_ANNOTATION,
  SERIAL_SLOT_ANNOTATION,
} from '../../../../src/api/node-protocol.ts';
import type { StrategyNode } from '../../../../src/controller/strategies/strategy-node.ts';
import { NOW } from '../../../support/rollout-fixtures.ts';
import { marks, type NodeOver, strategyNode } from '../../../support/strategy-fixtures.ts';

function n(name: string, over: NodeOver = {}): StrategyNode {
  return strategyNode(name, over);
}

const GATE = JSON.stringify({ pool: 'p', slots: 1, leaseDurationSeconds: 600 });
/** The gate as this reconcile gives it: with its time. */
const given = (gate: object) => JSON.stringify({ ...gate, handedOutAt: new Date(NOW).toISOString() });

describe('Serial marks', () => {
  test('every node not on the target gets the target and the gate at once, saying when', () => {
    const m = marks({ nodes: [n('a'), n('b'), n('c', { current: 'r2', desired: 'r2' })] });
    assert.deepEqual(m.get('a')?.annotations, {
      [DESIRED_REVISION_ANNOTATION]: 'r2',
      [SERIAL_GATE_ANNOTATION]: given({ pool: 'p', slots: 1, leaseDurationSeconds: 600 }),
    });
    assert.equal(m.get('a')?.kind, 'handout');
    assert.ok(m.get('b'));
    assert.equal(m.get('c'), undefined, 'a node on the target is left alone');
  });

  test('the gate leaves a node that reached the target', () => {
    const m = marks({ nodes: [n('a', { current: 'r2', desired: 'r2', serialGate: GATE })] });
    assert.deepEqual(m.get('a')?.annotations, { [SERIAL_GATE_ANNOTATION]: null });
  });

  test('a node the controller handed a slot is told so, kept until it is on the target, then removed with the gate', () => {
    const slot = (at: string) => JSON.stringify({ lease: 'nodeherd-serial-p-0', handedOverAt: at });
    const m = marks({
      slotHolders: new Set(['told', 'lost', 'mine']),
      // Holders by the controller's hand-over (the Lease's mark); `mine` took its slot itself.
      slotHandovers: new Map([
        ['told', slot('t1')],
        ['lost', slot('t2')],
      ]),
      nodes: [
        n('told', { desired: 'r2', serialGate: GATE, serialSlot: slot('t1') }),
        // The hand-over's own write to the Node was lost (the controller stopped between the two).
        n('lost', { desired: 'r2', serialGate: GATE }),
        n('mine', { desired: 'r2', serialGate: GATE }),
        // Handed a slot earlier, holding none now: what it was told stays until it is on the target.
        n('earlier', { desired: 'r2', serialGate: GATE, serialSlot: slot('t0') }),
        n('done', { desired: 'r2', current: 'r2', serialGate: GATE, serialSlot: slot('t0') }),
      ],
    });
    assert.equal(m.get('told'), undefined);
    assert.deepEqual(m.get('lost')?.annotations, { [SERIAL_SLOT_ANNOTATION]: slot('t2') });
    assert.equal(m.get('mine'), undefined);
    assert.equal(m.get('earlier'), undefined);
    assert.deepEqual(m.get('done')?.annotations, {
      [SERIAL_GATE_ANNOTATION]: null,
      [SERIAL_SLOT_ANNOTATION]: null,
    });
  });

  test('more slots rewrite the gate of waiting nodes, not of the node in its slot', () => {
    const serial = { pool: 'p', slots: 3, leaseDurationSeconds: 600 };
    const m = marks({
      serial,
      slotHolders: new Set(['a']),
      nodes: [
        n('a', { desired: 'r2', state: 'Applying', stateRevision: 'r2', serialGate: GATE }),
        n('b', { desired: 'r2', serialGate: GATE }),
      ],
    });
    assert.equal(m.get('a'), undefined);
    assert.deepEqual(m.get('b')?.annotations, { [SERIAL_GATE_ANNOTATION]: given(serial) });
  });

  test('a gate carried with the same pool, slots and duration is kept with its time (no rewrite per reconcile)', () => {
    const earlier = JSON.stringify({
      pool: 'p',
      slots: 1,
      leaseDurationSeconds: 600,
      handedOutAt: new Date(NOW - 60_000).toISOString(),
    });
    const m = marks({
      nodes: [
        n('earlier', { desired: 'r2', serialGate: earlier }),
        // From a controller that did not say when: kept too (not every Node rewritten on an upgrade).
        n('unsaid', { desired: 'r2', serialGate: GATE }),
        n('other', {
          desired: 'r2',
          serialGate: JSON.stringify({ pool: 'p', slots: 1, leaseDurationSeconds: 60 }),
        }),
      ],
    });
    assert.equal(m.get('earlier'), undefined);
    assert.equal(m.get('unsaid'), undefined);
    assert.deepEqual(m.get('other')?.annotations, {
      [SERIAL_GATE_ANNOTATION]: given({ pool: 'p', slots: 1, leaseDurationSeconds: 600 }),
    });
  });

  test('paused: a hold on nodes that have not started; none on slot holders, applying or failed nodes', () => {
    const m = marks({
      hold: 'paused',
      slotHolders: new Set(['b']),
      nodes: [
        n('a', { desired: 'r2', serialGate: GATE }),
        n('b', { desired: 'r2', serialGate: GATE }),
        n('c', { desired: 'r2', serialGate: GATE, state: 'Failed', stateRevision: 'r2' }),
        n('d', { desired: 'r2', serialGate: GATE, state: 'Applying', stateRevision: 'r2' }),
      ],
    });
    assert.deepEqual(m.get('a')?.annotations, { [HOLD_ANNOTATION]: 'paused' });
    assert.equal(m.get('b'), undefined);
    assert.equal(m.get('c'), undefined);
    assert.equal(m.get('d'), undefined);
  });

  test('unpaused: the hold goes', () => {
    const m = marks({ nodes: [n('a', { desired: 'r2', serialGate: GATE, hold: 'paused' })] });
    assert.deepEqual(m.get('a')?.annotations, { [HOLD_ANNOTATION]: null });
  });

  test('a joining node gets the target at once, without a gate', () => {
    const m = marks({ nodes: [n('new', { current: undefined, desired: undefined, state: undefined })] });
    assert.deepEqual(m.get('new')?.annotations, { [DESIRED_REVISION_ANNOTATION]: 'r2' });
    assert.equal(m.get('new')?.kind, 'bootstrap');
  });

  test('a cordon or drain left by RollingUpdate is released', () => {
    const m = marks({ nodes: [n('a', { current: 'r2', desired: 'r2', cordonedByUs: true })] });
    assert.equal(m.get('a')?.release, true);
  });
});
