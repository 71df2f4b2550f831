// The pool's order and the next-in-line taint on the simulated fleet through the embedded API server
// (issue 34.4): nodes go in the order of a label's value; while a batch drains (held by a
// PodDisruptionBudget), the next node carries nodeherd.io/next-in-line:PreferNoSchedule; the taint goes
// when the pool pauses and comes back on resume, moves when the order changes (a label is changed),
// goes when the node's turn comes, and is gone from every node when the rollout is complete. A
// rollback takes it off too.

import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { NodeConfigSpec } from '../../../src/api/types.ts';
import { NEXT_IN_LINE_TAINT_KEY } from '../../../src/controller/drain/next-in-line-taint.ts';
import type { Node } from '../../../src/kube/types.ts';
import {
  ClusterHarness,
  condition,
  eventually,
  kubeletConfig,
  type PoolObject,
} from '../../support/cluster-harness.ts';

function drainingConfig(value: string): NodeConfigSpec {
  return {
    ...kubeletConfig(value),
    disruptionPolicies: { files: [{ path: '/etc/kubernetes/kubelet-extra.conf', action: 'Drain' }] },
  };
}

describe('next in line', () => {
  let h: ClusterHarness;

  async function tainted(pool: string): Promise<string[]> {
    const nodes = (await h.nodes(`pool=${pool}`)) as unknown as Node[];
    return nodes
      .filter((n) => (n.spec?.taints ?? []).some((t) => t.key === NEXT_IN_LINE_TAINT_KEY))
      .map((n) => n.metadata.name)
      .sort();
  }
  async function poolWhere(name: string, what: string, ok: (p: PoolObject) => boolean, ms = 60_000) {
    return eventually(
      what,
      async () => {
        const p = await h.getPool(name);
        return ok(p) ? p : undefined;
      },
      ms,
    );
  }
  async function podWithBudget(name: string, node: string): Promise<void> {
    await h.admin.create('/api/v1/namespaces/default/pods', {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name, labels: { app: name } },
      spec: { nodeName: node, containers: [{ name: 'main', image: 'registry.example/db:1' }] },
    });
    await h.admin.patch(
      `/api/v1/namespaces/default/pods/${name}/status`,
      { status: { phase: 'Running', conditions: [{ type: 'Ready', status: 'True' }] } },
      'merge',
    );
    await h.admin.create('/apis/policy/v1/namespaces/default/poddisruptionbudgets', {
      apiVersion: 'policy/v1',
      kind: 'PodDisruptionBudget',
      metadata: { name },
      spec: { minAvailable: 1, selector: { matchLabels: { app: name } } },
    });
  }

  before(async () => {
    h = await ClusterHarness.start();
    await h.startController();
  });
  after(async () => {
    await h?.stop();
  });

  test('the next node in the label order is tainted while a batch drains, and not when paused, its turn come or done', async () => {
    const pool = 'inline';
    // rank: n-0 is last, n-2 first; the names would say the opposite.
    const created = await Promise.all(
      [0, 1, 2].map((i) =>
        h.fleet.create({ name: `inline-${i}`, zone: 'zone-a', labels: { pool, rank: String(10 - i) } }),
      ),
    );
    await h.fleet.startAll(created);
    await h.applyConfig('inline-kubelet', drainingConfig('one'), { pool });
    await h.createPool(pool, {
      nodeSelector: { matchLabels: { pool } },
      configSelector: { matchLabels: { pool } },
      updateStrategy: {
        type: 'RollingUpdate',
        rollingUpdate: { maxUnavailable: 1, progressDeadlineSeconds: 300 },
      },
      rolloutOrder: { by: 'Label', label: 'rank', preferNoScheduleNext: true },
    });
    await poolWhere(pool, 'first revision', (p) => condition(p, 'Complete')?.status === 'True');
    assert.deepEqual(await tainted(pool), [], 'no rollout drains: nobody tainted');
    await podWithBudget('inline-db', 'inline-2');
    await h.applyConfig('inline-kubelet', drainingConfig('two'), { pool });
    // inline-2 (rank 8) goes first and is held by the budget; inline-1 (rank 9) is next.
    await eventually('inline-1 tainted while inline-2 drains', async () =>
      JSON.stringify(await tainted(pool)) === '["inline-1"]' ? true : undefined,
    );
    const [first] = ((await h.nodes(`pool=${pool}`)) as unknown as Node[]).filter(
      (n) => n.metadata.name === 'inline-2',
    );
    assert.equal(first?.spec?.unschedulable, true, 'the first in the label order drains');
    const taint = ((await h.nodes(`pool=${pool}`)) as unknown as Node[])
      .find((n) => n.metadata.name === 'inline-1')
      ?.spec?.taints?.find((t) => t.key === NEXT_IN_LINE_TAINT_KEY);
    assert.deepEqual(taint, { key: NEXT_IN_LINE_TAINT_KEY, value: pool, effect: 'PreferNoSchedule' });

    await h.patchPool(pool, { spec: { paused: true } });
    await eventually('the taint goes while paused', async () =>
      (await tainted(pool)).length === 0 ? true : undefined,
    );
    await h.patchPool(pool, { spec: { paused: false } });
    await eventually('back on resume', async () =>
      JSON.stringify(await tainted(pool)) === '["inline-1"]' ? true : undefined,
    );

    // Replanned: inline-0 now ranks before inline-1, so it is next; the taint moves.
    await h.admin.patch('/api/v1/nodes/inline-0', { metadata: { labels: { rank: '1' } } }, 'merge');
    await eventually('the taint moves to inline-0', async () =>
      JSON.stringify(await tainted(pool)) === '["inline-0"]' ? true : undefined,
    );

    await h.admin.delete('/apis/policy/v1/namespaces/default/poddisruptionbudgets/inline-db');
    await poolWhere(
      pool,
      'complete',
      (p) => condition(p, 'Complete')?.status === 'True' && p.status?.updated === 3,
    );
    assert.deepEqual(await tainted(pool), [], 'done: nobody tainted');
    const events = await h.events('Node', 'inline-1');
    assert.ok(events.some((e) => e.reason === 'NextInLine'));
    const ended = events
      .filter((e) => e.reason === 'NextInLineEnded')
      .reduce((n, e) => n + (e.count ?? 1), 0);
    assert.ok(ended >= 2, `taken off when paused, then when replanned (${ended})`);
    assert.ok(
      !(await h.events('Node', 'inline-2')).some((e) => e.reason === 'NextInLine'),
      'never next: first',
    );
  });

  test('a rollback takes the taint off', async () => {
    const pool = 'inline-back';
    const created = await Promise.all(
      [0, 1, 2].map((i) => h.fleet.create({ name: `back-${i}`, zone: 'zone-a', labels: { pool } })),
    );
    await h.fleet.startAll(created);
    await h.applyConfig('back-kubelet', drainingConfig('one'), { pool });
    await h.createPool(pool, {
      nodeSelector: { matchLabels: { pool } },
      configSelector: { matchLabels: { pool } },
      updateStrategy: {
        type: 'RollingUpdate',
        rollingUpdate: { maxUnavailable: 1, progressDeadlineSeconds: 300 },
      },
      rolloutOrder: { preferNoScheduleNext: true },
    });
    const first = await poolWhere(pool, 'first revision', (p) => condition(p, 'Complete')?.status === 'True');
    await podWithBudget('back-db', 'back-0');
    await h.applyConfig('back-kubelet', drainingConfig('two'), { pool });
    await eventually('back-1 tainted while back-0 drains', async () =>
      JSON.stringify(await tainted(pool)) === '["back-1"]' ? true : undefined,
    );
    await h.patchPool(pool, {
      spec: {
        rollbackTo: {
          revision:
            first.status?.revisions?.find((r) => r.name === first.status?.targetRevision)?.revision ?? 1,
        },
      },
    });
    await eventually('the taint goes on rollback', async () =>
      (await tainted(pool)).length === 0 ? true : undefined,
    );
    await poolWhere(
      pool,
      'back on the first revision',
      (p) => p.status?.targetRevision === first.status?.targetRevision,
    );
    assert.deepEqual(await tainted(pool), []);
    await h.admin.delete('/apis/policy/v1/namespaces/default/poddisruptionbudgets/back-db');
  });
  test('a strategy whose batches are not the controller’s takes the taint off (switched to OnDelete)', async () => {
    const pool = 'inline-switch';
    const created = await Promise.all(
      [0, 1, 2].map((i) => h.fleet.create({ name: `switch-${i}`, zone: 'zone-a', labels: { pool } })),
    );
    await h.fleet.startAll(created);
    await h.applyConfig('switch-kubelet', drainingConfig('one'), { pool });
    await h.createPool(pool, {
      nodeSelector: { matchLabels: { pool } },
      configSelector: { matchLabels: { pool } },
      updateStrategy: {
        type: 'RollingUpdate',
        rollingUpdate: { maxUnavailable: 1, progressDeadlineSeconds: 300 },
      },
      rolloutOrder: { preferNoScheduleNext: true },
    });
    await poolWhere(pool, 'first revision', (p) => condition(p, 'Complete')?.status === 'True');
    await podWithBudget('switch-db', 'switch-0');
    await h.applyConfig('switch-kubelet', drainingConfig('two'), { pool });
    await eventually('switch-1 tainted while switch-0 drains', async () =>
      JSON.stringify(await tainted(pool)) === '["switch-1"]' ? true : undefined,
    );
    await h.patchPool(pool, {
      spec: { updateStrategy: { type: 'OnDelete' }, rolloutOrder: { preferNoScheduleNext: false } },
    });
    await eventually('the taint goes with the switch', async () =>
      (await tainted(pool)).length === 0 ? true : undefined,
    );
    await h.admin.delete('/apis/policy/v1/namespaces/default/poddisruptionbudgets/switch-db');
  });
  test('a node that leaves the pool loses the taint', async () => {
    const pool = 'inline-leave';
    const created = await Promise.all(
      [0, 1, 2].map((i) => h.fleet.create({ name: `leave-${i}`, zone: 'zone-a', labels: { pool } })),
    );
    await h.fleet.startAll(created);
    await h.applyConfig('leave-kubelet', drainingConfig('one'), { pool });
    await h.createPool(pool, {
      nodeSelector: { matchLabels: { pool } },
      configSelector: { matchLabels: { pool } },
      updateStrategy: {
        type: 'RollingUpdate',
        rollingUpdate: { maxUnavailable: 1, progressDeadlineSeconds: 300 },
      },
      rolloutOrder: { preferNoScheduleNext: true },
    });
    await poolWhere(pool, 'first revision', (p) => condition(p, 'Complete')?.status === 'True');
    await podWithBudget('leave-db', 'leave-0');
    await h.applyConfig('leave-kubelet', drainingConfig('two'), { pool });
    await eventually('leave-1 tainted while leave-0 drains', async () =>
      JSON.stringify(await tainted(pool)) === '["leave-1"]' ? true : undefined,
    );
    await h.admin.patch('/api/v1/nodes/leave-1', { metadata: { labels: { pool: 'elsewhere' } } }, 'merge');
    await eventually('the taint goes with the node', async () => {
      const [left] = (await h.nodes('pool=elsewhere')) as unknown as Node[];
      return left && !(left.spec?.taints ?? []).some((t) => t.key === NEXT_IN_LINE_TAINT_KEY)
        ? true
        : undefined;
    });
    await h.admin.delete('/apis/policy/v1/namespaces/default/poddisruptionbudgets/leave-db');
  });
});
