import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { daemonSetManagement } from '../../../src/controller/daemonsets/daemonset-strategy.ts';
import {
  currentRevisionOf,
  type DaemonPod,
  type DaemonSet,
  isPodAvailable,
  msUntilAvailable,
} from '../../../src/controller/daemonsets/daemonset-types.ts';
import {
  type DaemonSlot,
  decideDaemonSetUpdate,
} from '../../../src/controller/daemonsets/decide-daemonset-update.ts';

type PodState = 'old' | 'old-down' | 'new' | 'new-down' | 'deleting' | 'missing';

/** A slot on node `node`: Ready unless `notReady`, with a pod in the given state. */
function slot(node: string, state: PodState, notReady = false): DaemonSlot {
  const base: DaemonSlot = { node, nodeReady: !notReady };
  if (state === 'missing') return base;
  return {
    ...base,
    pod: {
      namespace: 'default',
      name: `ds-${node}`,
      uid: `uid-${node}`,
      outdated: state === 'old' || state === 'old-down',
      available: state === 'old' || state === 'new',
      deleting: state === 'deleting',
    },
  };
}

const deleted = (d: ReturnType<typeof decideDaemonSetUpdate>) => d.delete.map((p) => p.node);

describe('maxUnavailable resolution', () => {
  const table: { value: number | string; slots: number; budget: number }[] = [
    { value: 1, slots: 10, budget: 1 },
    { value: 3, slots: 10, budget: 3 },
    { value: '3', slots: 10, budget: 3 },
    { value: '10%', slots: 10, budget: 1 },
    { value: '10%', slots: 5, budget: 1 }, // 0.5 rounds down to 0, at least 1
    { value: '25%', slots: 10, budget: 2 }, // 2.5 rounds down
    { value: '100%', slots: 4, budget: 4 },
    { value: 0, slots: 4, budget: 1 }, // never zero: the update must progress
    { value: 20, slots: 4, budget: 20 },
  ];
  for (const row of table) {
    test(`${JSON.stringify(row.value)} of ${row.slots} pods allows ${row.budget}`, () => {
      const slots = Array.from({ length: row.slots }, (_, i) =>
        slot(`n${String(i).padStart(2, '0')}`, 'old'),
      );
      const d = decideDaemonSetUpdate({ slots, maxUnavailable: row.value });
      assert.equal(d.maxUnavailable, row.budget);
      assert.equal(d.delete.length, Math.min(row.budget, row.slots));
      assert.equal(d.queued, row.slots - d.delete.length);
      assert.equal(d.outdated, row.slots);
    });
  }

  test('a value that is neither a count nor a percentage is an error', () => {
    assert.throws(
      () => decideDaemonSetUpdate({ slots: [slot('a', 'old')], maxUnavailable: 'lots' }),
      /percentage/,
    );
  });
});

describe('what counts against the budget', () => {
  const table: { name: string; slots: DaemonSlot[]; max: number; delete: string[]; unavailable: number }[] = [
    {
      name: 'a replacement still starting uses a slot',
      slots: [slot('a', 'new-down'), slot('b', 'old'), slot('c', 'old')],
      max: 2,
      delete: ['b'],
      unavailable: 1,
    },
    {
      name: 'a node whose pod is gone and not recreated yet uses a slot',
      slots: [slot('a', 'missing'), slot('b', 'old'), slot('c', 'old')],
      max: 1,
      delete: [],
      unavailable: 1,
    },
    {
      name: 'a pod being deleted uses a slot',
      slots: [slot('a', 'deleting'), slot('b', 'old')],
      max: 1,
      delete: [],
      unavailable: 1,
    },
    {
      name: 'an updated pod that broke afterwards (node NotReady) uses a slot',
      slots: [slot('a', 'new-down', true), slot('b', 'old'), slot('c', 'old')],
      max: 1,
      delete: [],
      unavailable: 1,
    },
    {
      name: 'an outdated pod on a NotReady node waits and does not use a slot',
      slots: [slot('a', 'old-down', true), slot('b', 'old'), slot('c', 'old')],
      max: 1,
      delete: ['b'],
      unavailable: 0,
    },
    {
      name: 'every NotReady node waiting never blocks the Ready ones',
      slots: [
        slot('a', 'old-down', true),
        slot('b', 'old-down', true),
        slot('c', 'old-down', true),
        slot('d', 'old'),
      ],
      max: 1,
      delete: ['d'],
      unavailable: 0,
    },
    {
      name: 'current available pods use nothing',
      slots: [slot('a', 'new'), slot('b', 'new'), slot('c', 'old')],
      max: 1,
      delete: ['c'],
      unavailable: 0,
    },
    {
      name: 'an outdated pod that is down on a Ready node goes first',
      slots: [slot('a', 'old'), slot('b', 'old-down'), slot('c', 'old')],
      max: 1,
      delete: ['b'],
      unavailable: 0,
    },
    {
      name: 'a budget in use above the maximum deletes nothing',
      slots: [slot('a', 'new-down'), slot('b', 'new-down'), slot('c', 'old')],
      max: 1,
      delete: [],
      unavailable: 2,
    },
    {
      name: 'nodes are taken in name order within the budget',
      slots: [slot('d', 'old'), slot('b', 'old'), slot('c', 'old'), slot('a', 'old')],
      max: 2,
      delete: ['a', 'b'],
      unavailable: 0,
    },
  ];
  for (const row of table) {
    test(row.name, () => {
      const d = decideDaemonSetUpdate({ slots: row.slots, maxUnavailable: row.max });
      assert.deepEqual(deleted(d), row.delete);
      assert.equal(d.unavailable, row.unavailable);
      assert.ok(d.unavailable + d.delete.length <= Math.max(d.maxUnavailable, d.unavailable));
    });
  }

  test('waiting nodes are listed, and updated once Ready again', () => {
    const before = decideDaemonSetUpdate({
      slots: [slot('a', 'old-down', true), slot('b', 'new'), slot('c', 'new')],
      maxUnavailable: 1,
    });
    assert.deepEqual(before.waiting, ['a']);
    assert.deepEqual(deleted(before), []);
    assert.equal(before.outdated, 1);
    const after = decideDaemonSetUpdate({
      slots: [slot('a', 'old'), slot('b', 'new'), slot('c', 'new')],
      maxUnavailable: 1,
    });
    assert.deepEqual(after.waiting, []);
    assert.deepEqual(deleted(after), ['a']);
  });

  test('nothing outdated: nothing to do', () => {
    const d = decideDaemonSetUpdate({ slots: [slot('a', 'new'), slot('b', 'new')], maxUnavailable: '50%' });
    assert.deepEqual(d, {
      maxUnavailable: 1,
      unavailable: 0,
      delete: [],
      waiting: [],
      queued: 0,
      outdated: 0,
    });
  });

  test('the deletion carries the pod uid (a precondition against deleting a recreated pod)', () => {
    const d = decideDaemonSetUpdate({ slots: [slot('a', 'old')], maxUnavailable: 1 });
    assert.deepEqual(d.delete, [{ namespace: 'default', name: 'ds-a', uid: 'uid-a', node: 'a' }]);
  });
});

describe('which DaemonSets nodeherd manages', () => {
  function daemonSet(annotations: Record<string, string>, type = 'OnDelete'): DaemonSet {
    return {
      metadata: { name: 'ds', namespace: 'default', annotations },
      spec: { updateStrategy: { type } },
    };
  }
  const table: { name: string; ds: DaemonSet; expect: string; detail?: RegExp }[] = [
    { name: 'no annotation', ds: daemonSet({}), expect: 'unmanaged' },
    {
      name: 'AdvancedRollingUpdate with OnDelete, default 10%',
      ds: daemonSet({ 'nodeherd.io/update-strategy': 'AdvancedRollingUpdate' }),
      expect: 'managed:AdvancedRollingUpdate:10%',
    },
    {
      name: 'OTA with a max-unavailable count',
      ds: daemonSet({ 'nodeherd.io/update-strategy': 'OTA', 'nodeherd.io/max-unavailable': '3' }),
      expect: 'managed:OTA:3',
    },
    {
      name: 'an unknown strategy is ignored, saying which values are valid',
      ds: daemonSet({ 'nodeherd.io/update-strategy': 'Surge' }),
      expect: 'ignored',
      detail: /"Surge" is not one of AdvancedRollingUpdate, OTA/,
    },
    {
      name: 'a RollingUpdate DaemonSet is ignored (Kubernetes updates it)',
      ds: daemonSet({ 'nodeherd.io/update-strategy': 'OTA' }, 'RollingUpdate'),
      expect: 'ignored',
      detail: /needs spec\.updateStrategy\.type OnDelete, but it is RollingUpdate/,
    },
    {
      name: 'a bad max-unavailable is ignored, naming the annotation',
      ds: daemonSet({
        'nodeherd.io/update-strategy': 'AdvancedRollingUpdate',
        'nodeherd.io/max-unavailable': 'half',
      }),
      expect: 'ignored',
      detail: /nodeherd\.io\/max-unavailable: "half" is neither a number nor a percentage/,
    },
  ];
  for (const row of table) {
    test(row.name, () => {
      const m = daemonSetManagement(row.ds);
      const summary = m.kind === 'managed' ? `managed:${m.strategy}:${m.maxUnavailable}` : m.kind;
      assert.equal(summary, row.expect);
      if (row.detail) assert.match(m.kind === 'ignored' ? m.reason : '', row.detail);
    });
  }
});

describe('pod availability and the current revision', () => {
  const NOW = Date.parse('2026-01-01T00:01:00Z');
  const pod = (ready: 'True' | 'False', since: string, deleting = false): DaemonPod => ({
    metadata: { name: 'p', ...(deleting ? { deletionTimestamp: '2026-01-01T00:00:59Z' } : {}) },
    status: { conditions: [{ type: 'Ready', status: ready, lastTransitionTime: since }] },
  });
  const table: { name: string; pod: DaemonPod; minReady: number; available: boolean; wait?: number }[] = [
    { name: 'Ready', pod: pod('True', '2026-01-01T00:00:00Z'), minReady: 0, available: true },
    { name: 'not Ready', pod: pod('False', '2026-01-01T00:00:00Z'), minReady: 0, available: false },
    { name: 'being deleted', pod: pod('True', '2026-01-01T00:00:00Z', true), minReady: 0, available: false },
    { name: 'Ready long enough', pod: pod('True', '2026-01-01T00:00:00Z'), minReady: 30, available: true },
    {
      name: 'Ready for 50 s of 90',
      pod: pod('True', '2026-01-01T00:00:10Z'),
      minReady: 90,
      available: false,
      wait: 40_000,
    },
  ];
  for (const row of table) {
    test(`${row.name} (minReadySeconds ${row.minReady})`, () => {
      assert.equal(isPodAvailable(row.pod, row.minReady, NOW), row.available);
      assert.equal(msUntilAvailable(row.pod, row.minReady, NOW), row.wait);
    });
  }

  test('the current revision is the highest one the DaemonSet controls, by uid', () => {
    const ds: DaemonSet = { metadata: { name: 'ds', namespace: 'default', uid: 'u1' } };
    const owned = (name: string, revision: number, uid = 'u1') => ({
      metadata: {
        name,
        namespace: 'default',
        ownerReferences: [{ apiVersion: 'apps/v1', kind: 'DaemonSet', name: 'ds', uid, controller: true }],
      },
      revision,
    });
    const current = currentRevisionOf(ds, [
      owned('ds-a', 1),
      owned('ds-c', 3),
      owned('ds-b', 2),
      owned('ds-old-owner', 9, 'u0'),
    ]);
    assert.equal(current?.metadata.name, 'ds-c');
    assert.equal(currentRevisionOf(ds, []), undefined);
  });
});
