import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { NodeConfigPool } from '../../../src/api/types.ts';
import { decideWave, type WaveInput } from '../../../src/controller/waves/decide-wave.ts';
import { predecessorState } from '../../../src/controller/waves/predecessor.ts';

const NOW = Date.parse('2030-01-07T10:00:00Z');
const T = (ms: number) => new Date(ms).toISOString().replace(/\.\d+Z$/, 'Z');

type Status = NonNullable<NodeConfigPool['status']>;
type Condition = NonNullable<Status['conditions']>[number];
const cond = (type: string, status: 'True' | 'False', reason = '', message = ''): Condition => ({
  type,
  status,
  reason,
  message,
  lastTransitionTime: T(NOW - 3_600_000),
  observedGeneration: 1,
});

/** A pool done with canary-2, completed 10 minutes before NOW. */
function done(
  name = 'canary',
  patch: Partial<NodeConfigPool> = {},
  status: Partial<Status> = {},
): NodeConfigPool {
  return {
    apiVersion: 'nodeherd.io/v1alpha1',
    kind: 'NodeConfigPool',
    metadata: { name, generation: 1 },
    spec: { nodeSelector: {}, configSelector: {} },
    status: {
      observedGeneration: 1,
      targetRevision: `${name}-2`,
      currentRevision: `${name}-2`,
      nodes: 3,
      updated: 3,
      failed: 0,
      conditions: [
        cond('Progressing', 'False', 'RolloutComplete'),
        cond('Complete', 'True', 'RolloutComplete'),
        cond('Paused', 'False', 'NotPaused'),
        cond('RolledBack', 'False', 'NotRolledBack'),
      ],
      history: [
        {
          revision: 2,
          name: `${name}-2`,
          startedAt: T(NOW - 3_600_000),
          finishedAt: T(NOW - 600_000),
          result: 'Complete',
        },
      ],
      ...status,
    },
    ...patch,
  } as NodeConfigPool;
}

describe('predecessorState: done, or why not', () => {
  const cases: [string, NodeConfigPool, string | undefined, RegExp | undefined][] = [
    ['complete and settled', done(), 'canary-2', undefined],
    [
      'being deleted',
      done('canary', { metadata: { name: 'canary', generation: 1, deletionTimestamp: T(NOW) } }),
      'canary-2',
      /is being deleted/,
    ],
    [
      'paused by its failure policy',
      {
        ...done(),
        spec: { nodeSelector: {}, configSelector: {}, paused: true },
        status: {
          ...done().status,
          conditions: [cond('Paused', 'True', 'FailurePolicy', '1 node failed revision canary-3')],
        },
      },
      'canary-2',
      /is paused by its failure policy: 1 node failed revision canary-3/,
    ],
    [
      'paused by a user',
      { ...done(), spec: { nodeSelector: {}, configSelector: {}, paused: true } },
      'canary-2',
      /is paused \(spec\.paused\)/,
    ],
    [
      'rolled back',
      done(
        'canary',
        {},
        {
          conditions: [
            cond('RolledBack', 'True', 'FailurePolicy', '1 node failed; rolling back to canary-2'),
          ],
        },
      ),
      'canary-3',
      /rolled back: 1 node failed; rolling back to canary-2/,
    ],
    [
      'a spec change not acted on',
      done('canary', { metadata: { name: 'canary', generation: 2 } }),
      'canary-2',
      /spec change/,
    ],
    [
      'configs that do not render',
      done(
        'canary',
        {},
        { conditions: [cond('RenderDegraded', 'True', 'ConfigConflict', 'a and b disagree')] },
      ),
      undefined,
      /cannot render its NodeConfigs \(ConfigConflict: a and b disagree\)/,
    ],
    ['a new revision not started yet', done(), 'canary-3', /has not started rolling out canary-3/],
    [
      'rolling out',
      done(
        'canary',
        {},
        {
          targetRevision: 'canary-3',
          updated: 1,
          conditions: [cond('Complete', 'False', 'RolloutInProgress')],
        },
      ),
      'canary-3',
      /is rolling out canary-3 \(1\/3 nodes updated\)/,
    ],
    [
      'failed',
      done(
        'canary',
        {},
        {
          targetRevision: 'canary-3',
          history: [{ revision: 3, name: 'canary-3', startedAt: T(NOW), result: 'Failed', message: 'boom' }],
        },
      ),
      'canary-3',
      /failed rolling out canary-3: boom/,
    ],
    ['complete with a failed node', done('canary', {}, { failed: 1 }), 'canary-2', /has 1 failed node$/],
    ['no revision yet', done('canary', {}, { targetRevision: undefined }), 'canary-1', /has no revision yet/],
  ];
  for (const [what, pool, rendered, hold] of cases) {
    test(what, () => {
      const state = predecessorState(pool, rendered);
      if (hold) assert.match(state.hold ?? '', hold);
      else assert.equal(state.hold, undefined);
    });
  }

  test('completedAt: when the current revision completed', () => {
    assert.equal(predecessorState(done(), 'canary-2').completedAt, NOW - 600_000);
  });
});

describe('decideWave', () => {
  const input = (over: Partial<WaveInput>): WaveInput => ({
    after: ['canary'],
    soakSeconds: 0,
    predecessors: new Map([['canary', { name: 'canary', completedAt: NOW - 600_000 }]]),
    now: NOW,
    ...over,
  });

  test('go when every predecessor is done and soaked', () => {
    assert.deepEqual(decideWave(input({ soakSeconds: 600 })), { go: true });
  });

  test('a soak not over holds, and says until when; the pool wakes then', () => {
    const d = decideWave(input({ soakSeconds: 900 }));
    assert.equal(d.go, false);
    assert.ok(!d.go);
    assert.equal(d.reason, 'WaitingForPools');
    assert.equal(d.message, 'waiting for 1 pool: canary completed, soaking until 2030-01-07T10:05:00Z');
    assert.equal(d.requeueAfterMs, 300_000);
  });

  test('every pool that holds is named with why', () => {
    const d = decideWave(
      input({
        after: ['canary', 'a', 'ghost'],
        predecessors: new Map([
          ['canary', { name: 'canary', hold: 'is paused (spec.paused)' }],
          ['a', { name: 'a', completedAt: NOW - 1 }],
          ['ghost', undefined],
        ]),
      }),
    );
    assert.ok(!d.go);
    assert.equal(d.message, 'waiting for 2 pools: canary is paused (spec.paused); ghost does not exist');
    assert.equal(d.requeueAfterMs, undefined, 'nothing time-based: the predecessors wake this pool');
  });

  test('a cycle holds with its own reason, naming the path', () => {
    const d = decideWave(input({ cycle: ['a', 'b', 'a'] }));
    assert.ok(!d.go);
    assert.equal(d.reason, 'WaveCycle');
    assert.match(d.message, /a → b → a/);
  });

  test('a predecessor complete at an unknown time counts as soaked', () => {
    assert.deepEqual(
      decideWave(input({ soakSeconds: 60, predecessors: new Map([['canary', { name: 'canary' }]]) })),
      {
        go: true,
      },
    );
  });
});
