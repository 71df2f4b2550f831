// The pool's order and the next-in-line taint on the simulated fleet through the embedded API server
// (issue 34.4): nodes go in the order of a label's value; while a batch drains (held by a
// PodDisruptionBudget), the next node carries nodeherd.io/next-in-line:PreferNoSchedule; the taint goes
// when the pool pauses and comes back on resume, moves when the order changes (a label is changed),
// goes when the node's turn comes, and is gone from every node when the rollout is complete. A
// rollback takes it off too.

import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { NodeConfigPoolSpec } from '../../../src/api/types.ts';
import { NEXT_IN_LINE_TAINT_KEY } from '../../../src/controller/drain/next-in-line-taint.ts';
import type { Node } from '../../../src/kube/types.ts';
import {
  type ClusterHarness,
  condition,
  drainingConfig,
  eventually,
  type PoolObject,
  rollingUpdate,
  type StartNodesOptions,
} from '../../support/cluster-harness.ts';
import { clusterPerSuite } from '../../support/suite-cluster.ts';
import { deleteBudget, disruptionBudget, runningPod } from '../../support/workloads.ts';

describe('next in line', () => {
  let h: ClusterHarness;

  async function tainted(pool: string): Promise<string[]> {
    const nodes = (await h.nodes(`pool=${pool}`)) as unknown as Node[];
    return nodes
      .filter((n) => (n.spec?.taints ?? []).some((t) => t.key === NEXT_IN_LINE_TAINT_KEY))
      .map((n) => n.metadata.name)
      .sort();
  }
  const poolWhere = (name: string, what: string, ok: (p: PoolObject) => boolean, ms = 60_000) =>
    h.poolWhere(name, what, ok, ms);

  /** Pool `pool` of three nodes `<prefix>-<i>` (drainingConfig `<prefix>-kubelet`) on its first revision. */
  async function threeNodePool(
    pool: string,
    prefix: string,
    rolloutOrder: NodeConfigPoolSpec['rolloutOrder'],
    labels?: StartNodesOptions['labels'],
  ): Promise<PoolObject> {
    await h.startNodes(pool, 3, { prefix, ...(labels ? { labels } : {}) });
    return h.poolOnFirstRevision(
      pool,
      `${prefix}-kubelet`,
      drainingConfig('one'),
      { updateStrategy: rollingUpdate({ progressDeadlineSeconds: 300 }), rolloutOrder },
      60_000,
    );
  }

  /**
   * A pod on `held` under a budget that keeps it (`<prefix>-db`), then revision two: `held` drains
   * first and stays draining; waits until `next` alone carries the taint.
   */
  async function holdDrain(pool: string, prefix: string, held: string, next: string): Promise<void> {
    await runningPod(h.admin, `${prefix}-db`, held, { image: 'registry.example/db:1' });
    await disruptionBudget(h.admin, `${prefix}-db`);
    await h.applyConfig(`${prefix}-kubelet`, drainingConfig('two'), { pool });
    await eventually(`${next} tainted while ${held} drains`, async () =>
      JSON.stringify(await tainted(pool)) === JSON.stringify([next]) ? true : undefined,
    );
  }

  clusterPerSuite((started) => {
    h = started;
  });

  test('the next node in the label order is tainted while a batch drains, and not when paused, its turn come or done', async () => {
    const pool = 'inline';
    // rank: n-0 is last, n-2 first; the names would say the opposite.
    await threeNodePool(pool, 'inline', { by: 'Label', label: 'rank', preferNoScheduleNext: true }, (i) => ({
      rank: String(10 - i),
    }));
    assert.deepEqual(await tainted(pool), [], 'no rollout drains: nobody tainted');
    // inline-2 (rank 8) goes first and is held by the budget; inline-1 (rank 9) is next.
    await holdDrain(pool, 'inline', 'inline-2', 'inline-1');
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

    await deleteBudget(h.admin, 'inline-db');
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
    const first = await threeNodePool(pool, 'back', { preferNoScheduleNext: true });
    await holdDrain(pool, 'back', 'back-0', 'back-1');
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
    await deleteBudget(h.admin, 'back-db');
  });
  test('a strategy whose batches are not the controller’s takes the taint off (switched to OnDelete)', async () => {
    const pool = 'inline-switch';
    await threeNodePool(pool, 'switch', { preferNoScheduleNext: true });
    await holdDrain(pool, 'switch', 'switch-0', 'switch-1');
    await h.patchPool(pool, {
      spec: { updateStrategy: { type: 'OnDelete' }, rolloutOrder: { preferNoScheduleNext: false } },
    });
    await eventually('the taint goes with the switch', async () =>
      (await tainted(pool)).length === 0 ? true : undefined,
    );
    await deleteBudget(h.admin, 'switch-db');
  });
  test('a node that leaves the pool loses the taint', async () => {
    const pool = 'inline-leave';
    await threeNodePool(pool, 'leave', { preferNoScheduleNext: true });
    await holdDrain(pool, 'leave', 'leave-0', 'leave-1');
    await h.admin.patch('/api/v1/nodes/leave-1', { metadata: { labels: { pool: 'elsewhere' } } }, 'merge');
    await eventually('the taint goes with the node', async () => {
      const [left] = (await h.nodes('pool=elsewhere')) as unknown as Node[];
      return left && !(left.spec?.taints ?? []).some((t) => t.key === NEXT_IN_LINE_TAINT_KEY)
        ? true
        : undefined;
    });
    await deleteBudget(h.admin, 'leave-db');
  });
});
