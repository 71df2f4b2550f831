// Drains: a change whose plan says Drain cordons the node, evicts its pods through the Eviction API
// (DaemonSet pods stay), waits while a PodDisruptionBudget refuses, and uncordons once the node is
// healthy on the new revision; a drain that cannot finish in time fails the node and lifts the cordon.

import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { NodeConfigSpec } from '../../../src/api/types.ts';
import { CORDONED_BY_ANNOTATION, DRAINING_FOR_ANNOTATION } from '../../../src/controller/annotations.ts';
import { isKubeError } from '../../../src/kube/kube-error.ts';
import {
  ClusterHarness,
  condition,
  eventually,
  kubeletConfig,
  type PoolObject,
} from '../support/cluster-harness.ts';

function drainingConfig(value: string): NodeConfigSpec {
  return {
    ...kubeletConfig(value),
    disruptionPolicies: { files: [{ path: '/etc/kubernetes/kubelet-extra.conf', action: 'Drain' }] },
  };
}

describe('drain', () => {
  let h: ClusterHarness;

  async function pod(
    name: string,
    node: string,
    labels: Record<string, string>,
    daemonSet = false,
  ): Promise<void> {
    await h.admin.create('/api/v1/namespaces/default/pods', {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: {
        name,
        labels,
        ...(daemonSet
          ? {
              ownerReferences: [
                { apiVersion: 'apps/v1', kind: 'DaemonSet', name: 'agent', uid: 'ds-uid', controller: true },
              ],
            }
          : {}),
      },
      spec: { nodeName: node, containers: [{ name: 'main', image: 'registry.example/web:1' }] },
    });
    await h.admin.patch(
      `/api/v1/namespaces/default/pods/${name}/status`,
      { status: { phase: 'Running', conditions: [{ type: 'Ready', status: 'True' }] } },
      'merge',
    );
  }

  async function podNames(node: string): Promise<string[]> {
    const list = await h.admin.list<never>('/api/v1/namespaces/default/pods', {
      fieldSelector: `spec.nodeName=${node}`,
    });
    return (list.items as { metadata: { name: string } }[]).map((p) => p.metadata.name).sort();
  }

  async function budget(name: string, minAvailable: number): Promise<void> {
    const body = {
      apiVersion: 'policy/v1',
      kind: 'PodDisruptionBudget',
      metadata: { name },
      spec: { minAvailable, selector: { matchLabels: { app: name } } },
    };
    try {
      await h.admin.create('/apis/policy/v1/namespaces/default/poddisruptionbudgets', body);
    } catch (err) {
      if (!isKubeError(err, 409)) throw err;
      await h.admin.patch(`/apis/policy/v1/namespaces/default/poddisruptionbudgets/${name}`, {
        spec: { minAvailable },
      });
    }
  }

  async function poolWhere(name: string, what: string, ok: (p: PoolObject) => boolean, ms = 30_000) {
    return eventually(
      what,
      async () => {
        const p = await h.getPool(name);
        return ok(p) ? p : undefined;
      },
      ms,
    );
  }

  before(async () => {
    h = await ClusterHarness.start();
    await h.startController();
  });
  after(async () => {
    await h?.stop();
  });

  test('cordon, evict through the Eviction API, wait for a PodDisruptionBudget, uncordon when healthy', async () => {
    const nodes = [
      await h.fleet.create({ name: 'drain-0', zone: 'zone-a', labels: { pool: 'drain' } }),
      await h.fleet.create({ name: 'drain-1', zone: 'zone-b', labels: { pool: 'drain' } }),
    ];
    await h.fleet.startAll(nodes);
    await h.applyConfig('drain-kubelet', drainingConfig('one'), { pool: 'drain' });
    await h.createPool('drain', {
      nodeSelector: { matchLabels: { pool: 'drain' } },
      configSelector: { matchLabels: { pool: 'drain' } },
      updateStrategy: {
        type: 'RollingUpdate',
        rollingUpdate: { maxUnavailable: 1, progressDeadlineSeconds: 60 },
      },
    });
    const first = await poolWhere(
      'drain',
      'first revision',
      (p) => condition(p, 'Complete')?.status === 'True',
    );

    await pod('web-1', 'drain-0', { app: 'web' });
    await pod('web-2', 'drain-0', { app: 'web' });
    await pod('node-agent', 'drain-0', { app: 'agent' }, true);
    await budget('web', 2);

    await h.applyConfig('drain-kubelet', drainingConfig('two'), { pool: 'drain' });
    const blocked = await poolWhere('drain', 'drain blocked by the budget', (p) =>
      /disruption budget/i.test(condition(p, 'Progressing')?.message ?? ''),
    );
    assert.match(condition(blocked, 'Progressing')?.message ?? '', /drain-0: evicting default\/web-\d/);
    const [cordoned] = await h.nodes('kubernetes.io/hostname=drain-0');
    assert.equal(cordoned?.spec?.unschedulable, true);
    assert.equal(cordoned?.metadata.annotations?.[CORDONED_BY_ANNOTATION], 'nodeherd-controller');
    assert.equal(cordoned?.metadata.annotations?.[DRAINING_FOR_ANNOTATION], blocked.status?.targetRevision);
    // Not given the revision yet, and the other node waits its turn (maxUnavailable 1).
    assert.equal(
      cordoned?.metadata.annotations?.['nodeherd.io/desired-revision'],
      first.status?.targetRevision,
    );
    const [other] = await h.nodes('kubernetes.io/hostname=drain-1');
    assert.equal(other?.metadata.annotations?.['nodeherd.io/desired-revision'], first.status?.targetRevision);
    await new Promise((r) => setTimeout(r, 1_000));
    assert.deepEqual(await podNames('drain-0'), ['node-agent', 'web-1', 'web-2']);

    await budget('web', 0);
    const done = await poolWhere(
      'drain',
      'second revision complete',
      (p) =>
        p.status?.targetRevision !== first.status?.targetRevision &&
        condition(p, 'Complete')?.status === 'True',
    );
    assert.equal(done.status?.updated, 2);
    assert.deepEqual(await podNames('drain-0'), ['node-agent']);
    for (const n of await h.nodes('pool=drain')) {
      assert.notEqual(n.spec?.unschedulable, true, n.metadata.name);
      assert.equal(n.metadata.annotations?.[CORDONED_BY_ANNOTATION], undefined);
      assert.equal(n.metadata.annotations?.[DRAINING_FOR_ANNOTATION], undefined);
    }
    const reasons = (await h.events('Node', 'drain-0')).map((e) => e.reason);
    for (const reason of ['DrainStarted', 'Evicted', 'Drained', 'Uncordoned'])
      assert.ok(reasons.includes(reason), reasons.join());
  });

  test('a drain that cannot finish before the deadline fails the node, lifts the cordon and pauses', async () => {
    const nodes = [
      await h.fleet.create({ name: 'late-0', zone: 'zone-a', labels: { pool: 'late' } }),
      await h.fleet.create({ name: 'late-1', zone: 'zone-b', labels: { pool: 'late' } }),
    ];
    await h.fleet.startAll(nodes);
    await h.applyConfig('late-kubelet', drainingConfig('one'), { pool: 'late' });
    await h.createPool('late', {
      nodeSelector: { matchLabels: { pool: 'late' } },
      configSelector: { matchLabels: { pool: 'late' } },
      updateStrategy: {
        type: 'RollingUpdate',
        rollingUpdate: { maxUnavailable: 1, progressDeadlineSeconds: 2 },
      },
    });
    await poolWhere('late', 'first revision', (p) => condition(p, 'Complete')?.status === 'True');
    await pod('db-1', 'late-0', { app: 'db' });
    await budget('db', 1);

    await h.applyConfig('late-kubelet', drainingConfig('two'), { pool: 'late' });
    const paused = await poolWhere(
      'late',
      'paused after the drain timeout',
      (p) => condition(p, 'Paused')?.reason === 'FailurePolicy',
    );
    assert.match(
      condition(paused, 'Paused')?.message ?? '',
      /late-0 \(drain did not finish within 2s: evicting default\/db-1/,
    );
    const [node] = await h.nodes('kubernetes.io/hostname=late-0');
    await eventually('uncordoned', async () => {
      const [n] = await h.nodes('kubernetes.io/hostname=late-0');
      return (
        n?.spec?.unschedulable !== true && n?.metadata.annotations?.[CORDONED_BY_ANNOTATION] === undefined
      );
    });
    assert.ok(node);
    assert.deepEqual(await podNames('late-0'), ['db-1']);
  });
});
