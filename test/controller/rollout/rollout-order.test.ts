// The pool's order (spec.rolloutOrder, issue 34.4): Interleaved (the default), zone after zone, by a
// label's value, fewest pods first; ties by the Interleaved order; nextInLine follows it.

import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { nextInLine, orderedNodes, rolloutOrder } from '../../../src/controller/rollout/rollout-order.ts';

const nodes = [
  { name: 'a2', zone: 'a' },
  { name: 'b1', zone: 'b' },
  { name: 'a1', zone: 'a' },
  { name: 'b2', zone: 'b' },
  { name: 'c1', zone: 'c' },
];
const names = (list: readonly { name: string }[]) => list.map((n) => n.name);

describe('orderedNodes', () => {
  test('Interleaved, or no order: zones interleaved, as rolloutOrder', () => {
    assert.deepEqual(names(orderedNodes(nodes, undefined)), ['a1', 'b1', 'c1', 'a2', 'b2']);
    assert.deepEqual(names(orderedNodes(nodes, { by: 'Interleaved' })), names(rolloutOrder(nodes)));
  });

  test('Zone: one zone after the other', () => {
    assert.deepEqual(names(orderedNodes(nodes, { by: 'Zone' })), ['a1', 'a2', 'b1', 'b2', 'c1']);
  });

  test('Label: by value, integers as numbers, nodes without the label last, ties interleaved', () => {
    const keys = new Map<string, string | number>([
      ['a1', '10'],
      ['a2', '9'],
      ['b1', '10'],
      ['c1', '2'],
    ]);
    assert.deepEqual(names(orderedNodes(nodes, { by: 'Label', keys })), ['c1', 'a2', 'a1', 'b1', 'b2']);
    const words = new Map<string, string | number>([
      ['a1', 'canary'],
      ['b2', 'batch-1'],
      ['c1', 'batch-2'],
    ]);
    assert.deepEqual(names(orderedNodes(nodes, { by: 'Label', keys: words })), [
      'b2',
      'c1',
      'a1',
      'b1',
      'a2',
    ]);
  });

  test('FewestPods: the fewest pods first, ties interleaved', () => {
    const keys = new Map<string, string | number>([
      ['a1', 5],
      ['a2', 0],
      ['b1', 2],
      ['b2', 0],
      ['c1', 2],
    ]);
    assert.deepEqual(names(orderedNodes(nodes, { by: 'FewestPods', keys })), ['a2', 'b2', 'b1', 'c1', 'a1']);
  });

  test('nextInLine follows the order given', () => {
    const next = nextInLine(nodes, (n) => n.name !== 'a1', 2, { by: 'Zone' });
    assert.deepEqual(names(next), ['a2', 'b1']);
  });

  test('the order does not depend on how the input is sorted', () => {
    const keys = new Map<string, string | number>([['b2', 1]]);
    for (const order of [{ by: 'Zone' as const }, { by: 'FewestPods' as const, keys }])
      assert.deepEqual(names(orderedNodes([...nodes].reverse(), order)), names(orderedNodes(nodes, order)));
  });
});
