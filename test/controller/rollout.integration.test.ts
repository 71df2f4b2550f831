// The controller against the embedded control plane and simulated nodes running the real agent.

import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { ClusterHarness, condition, eventually, kubeletConfig } from './support/cluster-harness.ts';

describe('rolling update', () => {
  let h: ClusterHarness;

  before(async () => {
    h = await ClusterHarness.start();
    await h.fleet.add(6, { labels: { pool: 'basic' } });
    await h.applyConfig('basic-kubelet', kubeletConfig('one'), { pool: 'basic' });
    await h.createPool('basic', {
      nodeSelector: { matchLabels: { pool: 'basic' } },
      configSelector: { matchLabels: { pool: 'basic' } },
      updateStrategy: { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: 2 } },
    });
    await h.startController();
  });
  after(async () => {
    await h?.stop();
  });

  test('new nodes are bootstrapped onto the first revision at once', async () => {
    const pool = await eventually('first rollout complete', async () => {
      const p = await h.getPool('basic');
      return condition(p, 'Complete')?.status === 'True' ? p : undefined;
    });
    assert.equal(pool.status?.nodes, 6);
    assert.equal(pool.status?.updated, 6);
    assert.equal(pool.status?.currentRevision, pool.status?.targetRevision);
    assert.equal(pool.status?.history?.at(-1)?.result, 'Complete');
  });

  test('a config change rolls out within maxUnavailable and completes', async () => {
    const before = await h.getPool('basic');
    await h.applyConfig('basic-kubelet', kubeletConfig('two'), { pool: 'basic' });
    const pool = await eventually('second rollout complete', async () => {
      const p = await h.getPool('basic');
      return p.status?.targetRevision !== before.status?.targetRevision &&
        condition(p, 'Complete')?.status === 'True'
        ? p
        : undefined;
    });
    assert.equal(pool.status?.updated, 6, JSON.stringify(pool.status, null, 1));
    assert.equal(pool.status?.revisions?.[0]?.revision, 2);
    assert.deepEqual(
      pool.status?.history?.map((r) => [r.revision, r.result]),
      [
        [1, 'Complete'],
        [2, 'Complete'],
      ],
    );
    const events = await h.events('NodePool', 'basic');
    assert.ok(
      events.some((e) => e.reason === 'NodesStarted'),
      JSON.stringify(events.map((e) => e.reason)),
    );
  });
});
