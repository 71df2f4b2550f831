// The controller's side of Serial slots, pure: slot holders, the slots it frees, and which free slot
// Leases it hands to which waiting nodes.

import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { serialLeaseName } from '../../../../src/api/node-protocol.ts';
import {
  finishedHolder,
  serialSlots,
  slotHandovers,
} from '../../../../src/controller/strategies/serial/serial-slots.ts';
import type { StrategyNode } from '../../../../src/controller/strategies/strategy-node.ts';
import { type NodeOver, serialFields } from '../../../support/strategy-fixtures.ts';

const GATE = JSON.stringify({ pool: 'p', slots: 2, leaseDurationSeconds: 600 });

/** The free slot Leases as serialSlots reports them. */
function free(...slots: number[]) {
  return slots.map((slot) => ({ lease: serialLeaseName('p', slot), resourceVersion: String(10 + slot) }));
}

function waiting(name: string, zone: string, extra: NodeOver = {}): StrategyNode {
  return {
    name,
    zone,
    desired: 'T',
    current: 'old',
    cordonedByUs: false,
    ...serialFields({ serialGate: GATE, ...extra }),
  };
}

const base = {
  pool: 'p',
  slots: 2,
  target: 'T',
  holders: new Set<string>(),
  ready: () => true,
};

test('a free slot goes to the first waiting node in rollout order (zones alternate)', () => {
  const nodes = [waiting('a1', 'a'), waiting('a2', 'a'), waiting('b1', 'b')];
  assert.deepEqual(slotHandovers({ ...base, free: free(1), nodes }), [
    { lease: serialLeaseName('p', 1), node: 'a1', resourceVersion: '11' },
  ]);
  assert.deepEqual(
    slotHandovers({ ...base, free: free(0, 1), nodes }).map((h) => h.node),
    ['a1', 'b1'],
  );
});

test('only nodes that wait get a slot: gated, not started, not held, not holding, Ready', () => {
  const nodes = [
    waiting('done', 'a', { current: 'T' }),
    waiting('joining', 'a', { current: undefined }),
    waiting('ungated', 'a', { serialGate: undefined }),
    waiting('held', 'a', { hold: 'paused' }),
    waiting('applying', 'a', { state: 'Applying', stateRevision: 'T' }),
    waiting('failed', 'a', { state: 'Failed', stateRevision: 'T' }),
    waiting('holder', 'a'),
    waiting('notready', 'a'),
    waiting('other-target', 'a', { desired: 'U' }),
  ];
  const handovers = slotHandovers({
    ...base,
    free: free(0, 1),
    nodes,
    holders: new Set(['holder']),
    ready: (node) => node !== 'notready',
  });
  assert.deepEqual(handovers, []);
});

test('slots the agents have not created, held slots and slots above the count are left alone', () => {
  const nodes = [waiting('a1', 'a'), waiting('b1', 'b')];
  assert.deepEqual(slotHandovers({ ...base, free: [], nodes }), []);
  assert.deepEqual(slotHandovers({ ...base, slots: 1, free: free(1), nodes }), []);
});

test('a finished holder’s slot moves straight to the next waiting node, after the free ones', () => {
  const nodes = [waiting('a1', 'a'), waiting('b1', 'b'), waiting('a2', 'a')];
  const finished = [{ lease: serialLeaseName('p', 0), node: 'done', resourceVersion: '20' }];
  assert.deepEqual(slotHandovers({ ...base, free: free(1), finished, nodes }), [
    { lease: serialLeaseName('p', 1), node: 'a1', resourceVersion: '11' },
    { lease: serialLeaseName('p', 0), node: 'b1', resourceVersion: '20', from: 'done' },
  ]);
  // Slots no agent created yet come before moves, when the caller says which Leases exist.
  assert.deepEqual(
    slotHandovers({ ...base, free: [], finished, existing: new Set([serialLeaseName('p', 0)]), nodes }),
    [
      { lease: serialLeaseName('p', 1), node: 'a1', create: true },
      { lease: serialLeaseName('p', 0), node: 'b1', resourceVersion: '20', from: 'done' },
    ],
  );
  // No one waiting: the holder keeps it (and releases it itself); above a shrunk count: never moved.
  assert.deepEqual(slotHandovers({ ...base, free: [], finished, nodes: [] }), []);
  const above = [{ lease: serialLeaseName('p', 2), node: 'done', resourceVersion: '20' }];
  assert.deepEqual(slotHandovers({ ...base, free: [], finished: above, nodes }), []);
});

test('a holder is finished once Done on the target and Ready again; never while failed or NotReady', () => {
  const done = waiting('d', 'a', { current: 'T', state: 'Done', stateRevision: 'T' });
  assert.equal(finishedHolder(done, 'T', true), true);
  assert.equal(finishedHolder(done, 'T', false), false, 'NotReady: the restart is not over');
  assert.equal(
    finishedHolder({ ...done, state: 'Failed' }, 'T', true),
    false,
    'a failed node keeps its slot',
  );
  assert.equal(finishedHolder({ ...done, state: 'Applying' }, 'T', true), false);
  assert.equal(finishedHolder({ ...done, current: 'old' }, 'T', true), false);
  assert.equal(finishedHolder({ ...done, stateRevision: 'old' }, 'T', true), false);
  assert.equal(finishedHolder({ ...done, desired: 'U' }, 'T', true), false, 'handed a newer revision');
  assert.equal(finishedHolder(undefined, 'T', true), false);
});

test('serialSlots reports the Leases without a holder as free, holders and gone holders apart', () => {
  const lease = (slot: number, holder?: string) => ({
    metadata: { name: serialLeaseName('p', slot), resourceVersion: String(10 + slot) },
    spec: holder ? { holderIdentity: holder } : {},
  });
  const view = serialSlots(
    [lease(2), lease(0, 'a'), lease(1, 'gone')],
    () => 'Applying',
    (node) => node === 'a',
  );
  assert.deepEqual(view.free, [{ lease: serialLeaseName('p', 2), resourceVersion: '12' }]);
  assert.deepEqual(
    view.holders.map((h) => [h.node, h.state]),
    [
      ['a', 'Applying'],
      ['gone', 'Gone'],
    ],
  );
  assert.deepEqual(
    view.release.map((r) => r.node),
    ['gone'],
  );
});

describe('Serial slots', () => {
  const lease = (name: string, holder?: string) => ({
    metadata: { name, resourceVersion: '7' },
    spec: holder ? { holderIdentity: holder } : {},
  });
  test('holders with their states; a slot whose node is gone is released by compare-and-swap', () => {
    const view = serialSlots(
      [lease('s-1', 'b'), lease('s-0', 'a'), lease('s-2')],
      (node) => (node === 'a' ? 'Failed' : undefined),
      (node) => node === 'a',
    );
    assert.deepEqual(view.holders, [
      { lease: 's-0', node: 'a', state: 'Failed' },
      { lease: 's-1', node: 'b', state: 'Gone' },
    ]);
    assert.deepEqual(view.release, [{ lease: 's-1', node: 'b', resourceVersion: '7' }]);
  });
});
