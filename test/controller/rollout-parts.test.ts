// The small pure parts of the rollout: int-or-percent, the order, membership, which pods a drain
// evicts, target choice with rollback pins, history episodes, pruning.

import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { drainWork } from '../../src/controller/drain/evictable-pods.ts';
import { poolMembership } from '../../src/controller/pool-membership.ts';
import { revisionsToPrune } from '../../src/controller/revisions/revision-pruning.ts';
import {
  beginRollout,
  endRollout,
  episodeStart,
  isRolloutOpen,
  type RolloutRecord,
  recordCanaryPassed,
} from '../../src/controller/revisions/rollout-history.ts';
import { chooseTarget } from '../../src/controller/revisions/rollout-target.ts';
import { IntOrPercentError, resolveIntOrPercent } from '../../src/controller/rollout/int-or-percent.ts';
import { nextInLine, rolloutOrder } from '../../src/controller/rollout/rollout-order.ts';
import type { Pod } from '../../src/kube/types.ts';

describe('int or percent', () => {
  const table: [number | string, number, 'down' | 'up', number][] = [
    [3, 10, 'down', 3],
    ['3', 10, 'down', 3],
    ['10%', 1000, 'down', 100],
    ['15%', 10, 'down', 1],
    ['15%', 10, 'up', 2],
    ['1%', 10, 'down', 1], // at least 1
    [0, 10, 'down', 1],
    ['100%', 7, 'down', 7],
  ];
  for (const [value, total, rounding, expected] of table) {
    test(`${JSON.stringify(value)} of ${total} rounded ${rounding} is ${expected}`, () => {
      assert.equal(resolveIntOrPercent(value, total, rounding), expected);
    });
  }
  test('rejects what is neither', () => {
    assert.throws(() => resolveIntOrPercent('ten', 10, 'down'), IntOrPercentError);
    assert.throws(() => resolveIntOrPercent(-1, 10, 'down'), IntOrPercentError);
  });
});

describe('rollout order', () => {
  test('zones sorted, names sorted within a zone, zones interleaved; unzoned nodes form their own zone', () => {
    const nodes = [
      { name: 'c1', zone: 'c' },
      { name: 'a2', zone: 'a' },
      { name: 'x', zone: '' },
      { name: 'a1', zone: 'a' },
      { name: 'b1', zone: 'b' },
      { name: 'a3', zone: 'a' },
    ];
    assert.deepEqual(
      rolloutOrder(nodes).map((n) => n.name),
      ['x', 'a1', 'b1', 'c1', 'a2', 'a3'],
    );
  });
});

describe('pool membership', () => {
  test('a node selected by two pools belongs to neither', () => {
    const m = poolMembership(
      [
        { name: 'n1', labels: { role: 'worker' } },
        { name: 'n2', labels: { role: 'worker', gpu: 'yes' } },
        { name: 'n3', labels: { role: 'infra' } },
      ],
      [
        { name: 'workers', nodeSelector: { matchLabels: { role: 'worker' } } },
        { name: 'gpus', nodeSelector: { matchExpressions: [{ key: 'gpu', operator: 'Exists' }] } },
      ],
    );
    assert.deepEqual(m.members.get('workers'), ['n1']);
    assert.deepEqual(m.members.get('gpus'), []);
    assert.deepEqual([...m.conflicts], [['n2', ['gpus', 'workers']]]);
  });
});

describe('drain work', () => {
  const pod = (name: string, extra: Partial<Pod['metadata']> = {}, phase?: string): Pod => ({
    metadata: { name, namespace: 'default', ...extra },
    spec: { nodeName: 'n1' },
    ...(phase ? { status: { phase } } : {}),
  });
  test('evicts ordinary pods; not mirror pods, DaemonSet pods or finished ones; waits for terminating pods', () => {
    const pods = [
      pod('web'),
      pod('static', { annotations: { 'kubernetes.io/config.mirror': 'x' } }),
      pod('ds', {
        ownerReferences: [
          { apiVersion: 'apps/v1', kind: 'DaemonSet', name: 'd', uid: 'u', controller: true },
        ],
      }),
      pod('job', {}, 'Succeeded'),
      pod('leaving', { deletionTimestamp: '2030-01-01T00:00:00Z' }),
    ];
    const ready = drainWork(pods, true);
    assert.deepEqual(
      ready.evict.map((p) => p.metadata.name),
      ['web'],
    );
    assert.deepEqual(
      ready.terminating.map((p) => p.metadata.name),
      ['leaving'],
    );
    // On a NotReady node no kubelet will confirm the end of a terminating pod: not waited for.
    assert.deepEqual(drainWork(pods, false).terminating, []);
  });
});

describe('target', () => {
  const revisions = [
    { name: 'p-1', number: 1 },
    { name: 'p-2', number: 2 },
    { name: 'p-3', number: 3 },
  ];
  test('normally the latest rendering', () => {
    assert.deepEqual(chooseTarget({ latest: revisions[2], statusTarget: 'p-2', revisions }), {
      target: revisions[2],
      pin: undefined,
      clearRollbackTo: false,
      source: 'Rendered',
    });
  });
  test('a failed rendering keeps the current target', () => {
    assert.equal(chooseTarget({ statusTarget: 'p-2', revisions }).target?.name, 'p-2');
    assert.equal(chooseTarget({ revisions }).source, 'None');
  });
  test('spec.rollbackTo pins the pool to the revision, holding back what the configs render', () => {
    const choice = chooseTarget({ latest: revisions[2], statusTarget: 'p-3', rollbackTo: 1, revisions });
    assert.equal(choice.target?.name, 'p-1');
    assert.deepEqual(choice.pin, { to: 'p-1', from: 'p-3' });
    assert.equal(choice.clearRollbackTo, true);
    assert.equal(choice.source, 'RollbackRequested');
  });
  test('a rollback to a revision that is gone is refused and cleared', () => {
    const choice = chooseTarget({ latest: revisions[2], rollbackTo: 9, revisions });
    assert.equal(choice.target?.name, 'p-3');
    assert.equal(choice.clearRollbackTo, true);
    assert.deepEqual(choice.rollbackRequest, { ok: false, message: 'revision 9 does not exist (any more)' });
  });
  test('the pin holds while the configs render the held revision, and ends when they change', () => {
    const pin = { to: 'p-1', from: 'p-3' };
    assert.equal(chooseTarget({ latest: revisions[2], pin, revisions }).source, 'Pinned');
    assert.equal(chooseTarget({ pin, revisions }).target?.name, 'p-1', 'a failed rendering keeps the pin');
    const released = chooseTarget({ latest: { name: 'p-4', number: 4 }, pin, revisions });
    assert.equal(released.target?.name, 'p-4');
    assert.equal(released.pin, null);
  });
});

describe('history', () => {
  const t = (s: number) => new Date(Date.UTC(2030, 0, 1, 0, 0, s)).toISOString().replace('.000', '');
  test('episodes run from the first rollout after the last completed one', () => {
    let h: RolloutRecord[] = [];
    h = beginRollout(h, { name: 'p-1', number: 1 }, t(0), 'Superseded');
    assert.equal(episodeStart(h), Date.parse(t(0)));
    h = endRollout(h, 'p-1', 'Complete', t(5));
    assert.equal(episodeStart(h), undefined);
    assert.equal(isRolloutOpen(h, 'p-1'), false);
    h = beginRollout(h, { name: 'p-2', number: 2 }, t(10), 'Superseded');
    h = beginRollout(h, { name: 'p-3', number: 3 }, t(20), 'Superseded');
    assert.deepEqual(
      h.map((r) => r.result),
      ['Complete', 'Superseded', 'InProgress'],
    );
    assert.equal(episodeStart(h), Date.parse(t(10)), 'the superseded rollout belongs to the episode');
    h = endRollout(h, 'p-3', 'Failed', t(30), 'two nodes failed');
    assert.equal(isRolloutOpen(h, 'p-3'), true, 'a failed (paused) rollout can be resumed');
    h = beginRollout(h, { name: 'p-1', number: 1 }, t(40), 'RolledBack', {
      ended: 'rolled back',
      started: 'rollback from p-3',
    });
    assert.deepEqual(h.at(-2), {
      revision: 3,
      name: 'p-3',
      startedAt: t(20),
      finishedAt: t(40),
      result: 'RolledBack',
      message: 'rolled back',
    });
    assert.equal(episodeStart(h), Date.parse(t(10)));
  });
  test('the moment a Spread canary passed is recorded once, on the open rollout of the target only', () => {
    let h: RolloutRecord[] = beginRollout([], { name: 'p-1', number: 1 }, t(0), 'Superseded');
    assert.deepEqual(recordCanaryPassed(h, 'p-2', t(5)), h, 'not the open rollout');
    h = recordCanaryPassed(h, 'p-1', t(5));
    assert.equal(h.at(-1)?.canaryPassedAt, t(5));
    assert.equal(recordCanaryPassed(h, 'p-1', t(9)).at(-1)?.canaryPassedAt, t(5), 'the first stays');
    h = endRollout(h, 'p-1', 'Complete', t(10));
    assert.deepEqual(recordCanaryPassed(h, 'p-1', t(11)), h, 'a finished rollout keeps its record');
  });
  test('history keeps the newest 20 records', () => {
    let h: RolloutRecord[] = [];
    for (let i = 1; i <= 25; i++) h = beginRollout(h, { name: `p-${i}`, number: i }, t(i), 'Superseded');
    assert.equal(h.length, 20);
    assert.equal(h[0]?.revision, 6);
  });
});

describe('pruning', () => {
  test('beyond the limit, oldest first, never one in use', () => {
    const revisions = [1, 2, 3, 4, 5, 6].map((n) => ({ name: `p-${n}`, number: n }));
    assert.deepEqual(revisionsToPrune(revisions, new Set(['p-6', 'p-2']), 2).sort(), ['p-1', 'p-3']);
    assert.deepEqual(revisionsToPrune(revisions, new Set(['p-6']), 0).sort(), [
      'p-1',
      'p-2',
      'p-3',
      'p-4',
      'p-5',
    ]);
    assert.deepEqual(revisionsToPrune(revisions, new Set(), 10), []);
  });
});

describe('nextInLine', () => {
  const nodes = [
    { name: 'a2', zone: 'a' },
    { name: 'b1', zone: 'b' },
    { name: 'a1', zone: 'a' },
    { name: 'b2', zone: 'b' },
    { name: 'c1', zone: 'c' },
  ];
  test('the first waiting nodes in rollout order (zones interleaved), however the input is sorted', () => {
    const done = new Set(['a1']);
    const next = nextInLine(nodes, (n) => !done.has(n.name), 3).map((n) => n.name);
    assert.deepEqual(next, ['b1', 'c1', 'a2']);
    assert.deepEqual(
      nextInLine([...nodes].reverse(), (n) => !done.has(n.name), 3).map((n) => n.name),
      next,
    );
  });
  test('none asked, or none waiting: nobody', () => {
    assert.deepEqual(
      nextInLine(nodes, () => true, 0),
      [],
    );
    assert.deepEqual(
      nextInLine(nodes, () => false, 2),
      [],
    );
  });
});
