// The Ready lookup every layer shares (src/kube/conditions.ts): a Node's or a Pod's Ready condition,
// and whether it is True.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { isReady, readyCondition } from '../../src/kube/conditions.ts';
import type { Node, Pod } from '../../src/kube/types.ts';

const node = (conditions?: { type: string; status: string; lastTransitionTime?: string }[]): Node =>
  ({ metadata: { name: 'n' }, ...(conditions ? { status: { conditions } } : {}) }) as Node;

test('readyCondition finds the Ready condition among others, undefined when there is none', () => {
  const ready = { type: 'Ready', status: 'True', lastTransitionTime: '2026-01-01T00:00:00Z' };
  assert.deepEqual(readyCondition(node([{ type: 'MemoryPressure', status: 'False' }, ready])), ready);
  assert.equal(readyCondition(node([{ type: 'MemoryPressure', status: 'True' }])), undefined);
  assert.equal(readyCondition(node()), undefined);
  assert.equal(readyCondition(undefined), undefined);
});

test('isReady: only a Ready condition with status True', () => {
  assert.equal(isReady(node([{ type: 'Ready', status: 'True' }])), true);
  assert.equal(isReady(node([{ type: 'Ready', status: 'False' }])), false);
  assert.equal(isReady(node([{ type: 'Ready', status: 'Unknown' }])), false);
  assert.equal(isReady(node([{ type: 'DiskPressure', status: 'True' }])), false);
  assert.equal(isReady(node()), false);
  assert.equal(isReady(undefined), false);
  const pod = { metadata: { name: 'p' }, status: { conditions: [{ type: 'Ready', status: 'True' }] } } as Pod;
  assert.equal(isReady(pod), true);
});
