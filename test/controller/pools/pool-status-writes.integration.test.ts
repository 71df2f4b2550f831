// The pool status is written only when it changed: once a rollout is complete, reconciles that change
// nothing (a label on the pool, a periodic resync) send no status patch, and no condition's
// lastTransitionTime moves.

import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import {
  type ClusterHarness,
  condition,
  eventually,
  kubeletConfig,
  rollingUpdate,
} from '../../support/cluster-harness.ts';
import { clusterPerSuite } from '../../support/suite-cluster.ts';

describe('pool status writes', () => {
  let h: ClusterHarness;
  clusterPerSuite((started) => {
    h = started;
  });

  test('a reconcile that changes nothing writes no status', async () => {
    const nodes = [];
    for (const i of [0, 1])
      nodes.push(await h.fleet.create({ name: `quiet-${i}`, labels: { pool: 'quiet' } }));
    await h.fleet.startAll(nodes);
    await h.labelledPool('quiet', 'quiet-kubelet', kubeletConfig('v1'), {
      updateStrategy: rollingUpdate({ maxUnavailable: 1 }),
    });
    const settled = await eventually(
      'the rollout completes',
      async () => {
        const p = await h.getPool('quiet');
        return condition(p, 'Complete')?.status === 'True' && p.status?.ready === 2 ? p : undefined;
      },
      30_000,
    );
    // Let the last writes of the rollout (node annotations, history) land before counting.
    await new Promise((r) => setTimeout(r, 1_500));
    const before = await h.getPool('quiet');

    let statusPatches = 0;
    let poolWrites = 0;
    h.local.server.onRequest((req) => {
      const path = new URL(req.url ?? '/', 'https://server').pathname;
      if (!path.includes('/nodeconfigpools/quiet')) return;
      if (req.method === 'PATCH' || req.method === 'PUT') {
        if (path.endsWith('/status')) statusPatches++;
        else poolWrites++;
      }
    });
    // Each label change is a pool event, so a reconcile of the unchanged pool.
    for (const n of [1, 2, 3]) {
      await h.patchPool('quiet', { metadata: { labels: { touched: String(n) } } });
      await new Promise((r) => setTimeout(r, 400));
    }
    await new Promise((r) => setTimeout(r, 1_000));
    const afterTouch = await h.getPool('quiet');

    assert.equal(poolWrites, 3, 'the three label patches reached the server');
    assert.equal(statusPatches, 0, 'no status patch for reconciles that changed nothing');
    assert.deepEqual(afterTouch.status, before.status, 'the status, timestamps included, is unchanged');
    assert.ok(settled.status?.conditions?.length, 'the pool has conditions to compare');
  });
});
