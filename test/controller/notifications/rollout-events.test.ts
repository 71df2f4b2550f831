// Which rollout events a change of a pool's status tells of.

import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { NodeConfigPool } from '../../../src/api/types.ts';
import { rolloutEvents } from '../../../src/controller/notifications/rollout-events.ts';

type Status = NonNullable<NodeConfigPool['status']>;

function pool(status: Status): NodeConfigPool {
  return {
    apiVersion: 'nodeherd.io/v1alpha1',
    kind: 'NodeConfigPool',
    metadata: { name: 'workers' },
    spec: { nodeSelector: {}, configSelector: {} },
    status,
  } as NodeConfigPool;
}

const T = '2026-11-29T05:00:00Z';
const r2 = { revision: 2, name: 'workers-b', startedAt: T, result: 'InProgress' as const };
const kinds = (old: Status, next: Status) => rolloutEvents(pool(old), pool(next), 0).map((e) => e.kind);

describe('rollout events from pool status changes', () => {
  test('a new record is a start; its end is complete, failed or rolled back', () => {
    assert.deepEqual(kinds({}, { history: [r2], targetRevision: 'workers-b' }), ['RolloutStarted']);
    assert.deepEqual(kinds({ history: [r2] }, { history: [{ ...r2, result: 'Complete' }] }), [
      'RolloutComplete',
    ]);
    const failed = rolloutEvents(
      pool({ history: [r2] }),
      pool({ history: [{ ...r2, result: 'Failed', message: 'node-3 (unit kubelet.service failed)' }] }),
      0,
    );
    assert.deepEqual(
      failed.map((e) => [e.kind, e.message]),
      [['RolloutFailed', 'workers-b failed: node-3 (unit kubelet.service failed)']],
    );
    assert.deepEqual(kinds({ history: [r2] }, { history: [{ ...r2, result: 'RolledBack', message: 'x' }] }), [
      'RolledBack',
    ]);
  });

  test('nothing new, nothing told', () => {
    const s = { history: [r2], updated: 1, targetRevision: 'workers-b' };
    assert.deepEqual(kinds(s, { ...s }), []);
  });

  test('paused when Paused turns True, with its reason', () => {
    const paused = rolloutEvents(
      pool({
        conditions: [
          {
            type: 'Paused',
            status: 'False',
            observedGeneration: 1,
            lastTransitionTime: T,
            reason: 'x',
            message: '',
          },
        ],
      }),
      pool({
        conditions: [
          {
            type: 'Paused',
            status: 'True',
            observedGeneration: 1,
            lastTransitionTime: T,
            reason: 'Requested',
            message: 'by ops',
          },
        ],
      }),
      0,
    );
    assert.deepEqual(
      paused.map((e) => [e.kind, e.message]),
      [['Paused', 'paused (Requested): by ops']],
    );
  });

  test('batch done: more nodes on the target, short of completing', () => {
    const base = { history: [r2], targetRevision: 'workers-b', nodes: 10 };
    const done = rolloutEvents(
      pool({ ...base, updated: 2, applying: 2 }),
      pool({ ...base, updated: 4, applying: 0 }),
      0,
    );
    assert.deepEqual(
      done.map((e) => [e.kind, e.message]),
      [['BatchDone', '4 of 10 nodes on workers-b']],
    );
    assert.deepEqual(kinds({ ...base, updated: 4 }, { ...base, updated: 4, applying: 1 }), []);
    // The last batch is the rollout's completion, told once as such.
    assert.deepEqual(
      kinds(
        { ...base, updated: 8, applying: 2 },
        { ...base, history: [{ ...r2, result: 'Complete' }], updated: 10, applying: 0 },
      ),
      ['RolloutComplete'],
    );
  });
});
