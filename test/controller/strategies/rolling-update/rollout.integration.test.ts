// The controller against the embedded control plane and simulated nodes running the real agent.

import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import {
  CURRENT_REVISION_ANNOTATION,
  DESIRED_REVISION_ANNOTATION,
} from '../../../../src/api/node-protocol.ts';
import {
  ClusterHarness,
  complete,
  condition,
  eventually,
  GROUP_PATH,
  kubeletConfig,
  poolSelecting,
  revisionNameFor,
  rollingUpdate,
} from '../../../support/cluster-harness.ts';
import { NodeWatch } from '../../support/node-watch.ts';

describe('rolling update', () => {
  let h: ClusterHarness;
  let watch: NodeWatch;

  before(async () => {
    h = await ClusterHarness.start();
    await h.addNodes('basic', 6);
    await h.labelledPool('basic', 'basic-kubelet', kubeletConfig('one'), {
      updateStrategy: rollingUpdate({ maxUnavailable: 2 }),
    });
    await h.startController();
    watch = await NodeWatch.started(h.adminConfig());
  });
  after(async () => {
    await watch?.stop();
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
    const events = await h.events('NodeConfigPool', 'basic');
    assert.ok(
      events.some((e) => e.reason === 'NodesStarted'),
      JSON.stringify(events.map((e) => e.reason)),
    );
  });

  test('a rollback requested with spec.rollbackTo returns every node, and holds until the configs change', async () => {
    const pool = await h.getPool('basic');
    const first = pool.status!.history![0]!.name!;
    await h.patchPool('basic', { spec: { rollbackTo: { revision: 1 } } });
    const back = await h.poolWhere('basic', 'rolled back to revision 1', complete(first));
    assert.equal(back.spec.rollbackTo, undefined, 'the request is cleared');
    assert.equal(condition(back, 'RolledBack')?.reason, 'RollbackRequested');
    assert.equal(back.metadata.annotations?.['nodeherd.io/rollback-to'], first);
    for (const n of await h.nodes('pool=basic'))
      assert.equal(n.metadata.annotations?.[CURRENT_REVISION_ANNOTATION], first);
    assert.deepEqual(
      back.status?.history?.map((r) => [r.revision, r.result]),
      [
        [1, 'Complete'],
        [2, 'Complete'],
        [1, 'Complete'],
      ],
    );
    assert.match(
      back.status?.history?.at(-1)?.message ?? '',
      /rollback: rolled back to .* as spec.rollbackTo asked/,
    );
    await h.applyConfig('basic-kubelet', kubeletConfig('three'), { pool: 'basic' });
    const three = await h.poolWhere(
      'basic',
      'revision 3',
      (p) => p.status?.revisions?.[0]?.revision === 3 && condition(p, 'Complete')?.status === 'True',
    );
    assert.equal(condition(three, 'RolledBack')?.status, 'False');
  });

  test('conflicting NodeConfigs: RenderDegraded with both sources, and nothing reaches a node', async () => {
    const before = await h.getPool('basic');
    await h.applyConfig(
      'zz-conflict',
      { files: [{ path: '/etc/kubernetes/kubelet-extra.conf', content: { inline: { data: 'other\n' } } }] },
      { pool: 'basic' },
    );
    const degraded = await h.poolWhere(
      'basic',
      'render degraded',
      (p) => condition(p, 'RenderDegraded')?.status === 'True',
    );
    assert.equal(condition(degraded, 'RenderDegraded')?.reason, 'ConfigConflict');
    assert.match(condition(degraded, 'RenderDegraded')?.message ?? '', /basic-kubelet and zz-conflict/);
    assert.ok((degraded.status?.conflicts?.length ?? 0) > 0);
    assert.equal(degraded.status?.targetRevision, before.status?.targetRevision);
    for (const n of await h.nodes('pool=basic')) {
      assert.equal(n.metadata.annotations?.[DESIRED_REVISION_ANNOTATION], before.status?.targetRevision);
    }
    await h.admin.delete(`${GROUP_PATH}/nodeconfigs/zz-conflict`);
    const fine = await h.poolWhere(
      'basic',
      'rendered again',
      (p) => condition(p, 'RenderDegraded')?.status === 'False',
    );
    assert.equal(fine.status?.conflicts, undefined);
    assert.equal(fine.status?.targetRevision, before.status?.targetRevision);
  });

  test('a node selected by two pools is managed by neither, says so, and joins once only one selects it', async () => {
    await h.labelledPool('left', 'left-kubelet', kubeletConfig('left'));
    await h.createPool('right', {
      nodeSelector: { matchLabels: { tier: 'right' } },
      configSelector: { matchLabels: { pool: 'left' } },
    });
    const [node] = await h.fleet.add(1, { labels: { pool: 'left', tier: 'right' } });
    const left = await h.poolWhere(
      'left',
      'conflict reported',
      (p) => condition(p, 'Degraded')?.reason === 'NodeInMultiplePools',
    );
    assert.match(condition(left, 'Degraded')?.message ?? '', new RegExp(`${node!.name} \\(left, right\\)`));
    await h.poolWhere(
      'right',
      'conflict reported on the other pool',
      (p) => condition(p, 'Degraded')?.reason === 'NodeInMultiplePools',
    );
    const conflicted = await eventually('node condition', async () => {
      const [n] = await h.nodes(`kubernetes.io/hostname=${node!.name}`);
      return n?.status?.conditions?.find((c) => c.type === 'NodeConfigPoolConflict')?.status === 'True'
        ? n
        : undefined;
    });
    assert.equal(
      conflicted.metadata.annotations?.[DESIRED_REVISION_ANNOTATION],
      undefined,
      'no pool gave it anything',
    );
    assert.ok((await h.events('Node', node!.name)).some((e) => e.reason === 'NodeInMultiplePools'));

    await h.admin.patch(`/api/v1/nodes/${node!.name}`, { metadata: { labels: { tier: null } } });
    const joined = await h.poolWhere(
      'left',
      'node joined left',
      (p) => p.status?.nodes === 1 && condition(p, 'Complete')?.status === 'True',
    );
    assert.equal(condition(joined, 'Degraded')?.status, 'False');
    const [n] = await h.nodes(`kubernetes.io/hostname=${node!.name}`);
    assert.equal(n?.status?.conditions?.find((c) => c.type === 'NodeConfigPoolConflict')?.status, 'False');
    assert.equal(n?.metadata.annotations?.[CURRENT_REVISION_ANNOTATION], joined.status?.targetRevision);
  });

  test('canary first, zones interleaved, then batches within the budget', async () => {
    await h.startNodes('canary', 6, { zones: ['zone-a', 'zone-a', 'zone-b', 'zone-b', 'zone-c', 'zone-c'] });
    await h.poolOnFirstRevision('canary', 'canary-kubelet', kubeletConfig('one'), {
      updateStrategy: rollingUpdate({ maxUnavailable: 3, minReadySeconds: 1, canary: { nodes: 1 } }),
    });
    const two = revisionNameFor('canary', { 'canary-kubelet': kubeletConfig('two') });
    const startedAt = new Map<string, number>();
    const healthyAt = new Map<string, number>();
    const stop = watch.on((n, at) => {
      const a = n.metadata.annotations ?? {};
      if (!n.metadata.name.startsWith('canary-')) return;
      if (a[DESIRED_REVISION_ANNOTATION] === two && !startedAt.has(n.metadata.name))
        startedAt.set(n.metadata.name, at);
      if (
        a[CURRENT_REVISION_ANNOTATION] === two &&
        a['nodeherd.io/state'] === 'Done' &&
        !healthyAt.has(n.metadata.name)
      ) {
        healthyAt.set(n.metadata.name, at);
      }
    });
    await h.applyConfig('canary-kubelet', kubeletConfig('two'), { pool: 'canary' });
    await h.poolWhere('canary', 'second revision', complete(two));
    stop();
    const order = [...startedAt.entries()].sort((a, b) => a[1] - b[1]).map(([n]) => n);
    // zone-a, zone-b, zone-c interleaved: canary-0 (canary), then canary-2, canary-4 and canary-1.
    assert.equal(order[0], 'canary-0');
    assert.deepEqual(order.slice(1, 4).sort(), ['canary-1', 'canary-2', 'canary-4']);
    // The canary was healthy and soaked (1 s) before anything else started.
    const afterCanary = Math.min(...order.slice(1).map((n) => startedAt.get(n)!));
    assert.ok(
      afterCanary - healthyAt.get('canary-0')! >= 900,
      `next batch ${afterCanary - healthyAt.get('canary-0')!} ms after the canary`,
    );
  });

  test('old revisions are pruned beyond revisionHistoryLimit, never one in use; numbers never repeat', async () => {
    await h.addNodes('prune', 2);
    await h.createPool(
      'prune',
      poolSelecting('prune', {
        revisionHistoryLimit: 1,
        updateStrategy: rollingUpdate({ maxUnavailable: 2 }),
      }),
    );
    for (const value of ['p1', 'p2', 'p3', 'p4']) {
      await h.applyConfig('prune-kubelet', kubeletConfig(value), { pool: 'prune' });
      const name = revisionNameFor('prune', { 'prune-kubelet': kubeletConfig(value) });
      await h.poolWhere('prune', `${value} complete`, complete(name));
    }
    const revisions = await eventually('pruned', async () => {
      const list = await h.admin.list<never>(`${GROUP_PATH}/nodeconfigrevisions`, {
        labelSelector: 'nodeherd.io/pool=prune',
      });
      const items = list.items as unknown as { spec: { revision: number } }[];
      return items.length === 2 ? items.map((r) => r.spec.revision).sort() : undefined;
    });
    assert.deepEqual(revisions, [3, 4]);
  });

  test('kubectl shows progress in the printer columns', async () => {
    const pools = await h.local.kubectl(['get', 'nodeconfigpools']);
    assert.equal(pools.code, 0, pools.stderr);
    assert.match(pools.stdout, /NAME\s+TARGET\s+NODES\s+UPDATED\s+READY\s+FAILED\s+PROGRESS\s+PAUSED\s+AGE/);
    assert.match(pools.stdout, /basic\s+basic-[0-9a-f]{10}\s+6\s+6\s+6\s+0\s+RolloutComplete\s+false/);
    const configs = await h.local.kubectl(['get', 'nodeconfigs', '-o', 'wide']);
    assert.match(configs.stdout, /basic-kubelet\s+\["?basic"?\]/);
  });
});
