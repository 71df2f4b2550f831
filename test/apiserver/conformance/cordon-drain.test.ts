// Conformance: kubectl cordon, uncordon and drain. Pods are data here (no kubelet): an eviction deletes
// a pod unless a PodDisruptionBudget would be violated, which is 429 and makes drain wait and fail.

import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { type LocalApiServer, startLocalApiServer } from '../../support/local-apiserver.ts';
import { assertStatus, json, kubectlApply, kubectlOk, raw, waitFor } from './support.ts';

const pod = (name: string, node: string, labels: Record<string, string>) => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name, namespace: 'default', labels },
  spec: { nodeName: node, containers: [{ name: 'c', image: 'busybox' }] },
  status: { phase: 'Running', conditions: [{ type: 'Ready', status: 'True' }] },
});

describe('cordon and drain', () => {
  let local: LocalApiServer;

  const podsOn = async (node: string): Promise<string[]> => {
    const res = await raw(local, { path: `/api/v1/pods?fieldSelector=spec.nodeName%3D${node}` });
    return res.json.items.map((p: any) => p.metadata.name).sort();
  };

  before(async () => {
    local = await startLocalApiServer();
    await kubectlApply(local, [
      { apiVersion: 'v1', kind: 'Node', metadata: { name: 'node-a' } },
      { apiVersion: 'v1', kind: 'Node', metadata: { name: 'node-b' } },
      pod('web-1', 'node-a', { app: 'web' }),
      pod('web-2', 'node-a', { app: 'web' }),
      pod('web-3', 'node-b', { app: 'web' }),
      pod('solo', 'node-b', { app: 'solo' }),
      {
        apiVersion: 'policy/v1',
        kind: 'PodDisruptionBudget',
        metadata: { name: 'web', namespace: 'default' },
        spec: { minAvailable: 3, selector: { matchLabels: { app: 'web' } } },
      },
    ]);
  });
  after(() => local.stop());

  test('cordon and uncordon set spec.unschedulable', async () => {
    await kubectlOk(local, ['cordon', 'node-a']);
    let node = (await raw(local, { path: '/api/v1/nodes/node-a' })).json;
    assert.equal(node.spec.unschedulable, true);
    // Idempotent: kubectl says so and writes nothing.
    const rv = node.metadata.resourceVersion;
    assert.match(await kubectlOk(local, ['cordon', 'node-a']), /already cordoned/);
    node = (await raw(local, { path: '/api/v1/nodes/node-a' })).json;
    assert.equal(node.metadata.resourceVersion, rv);
    const unschedulable = await raw(local, { path: '/api/v1/nodes?fieldSelector=spec.unschedulable%3Dtrue' });
    assert.deepEqual(
      unschedulable.json.items.map((n: any) => n.metadata.name),
      ['node-a'],
    );
    await kubectlOk(local, ['uncordon', 'node-a']);
    node = (await raw(local, { path: '/api/v1/nodes/node-a' })).json;
    assert.ok(!node.spec?.unschedulable);
  });

  test('the disruption controller keeps PDB status current', async () => {
    const pdb = await waitFor('PDB status', async () => {
      const res = await raw(local, { path: '/apis/policy/v1/namespaces/default/poddisruptionbudgets/web' });
      return res.json.status?.expectedPods === 3 ? res.json : undefined;
    });
    assert.equal(pdb.status.currentHealthy, 3);
    assert.equal(pdb.status.desiredHealthy, 3);
    assert.equal(pdb.status.disruptionsAllowed, 0);
    const allowed = pdb.status.conditions.find((c: any) => c.type === 'DisruptionAllowed');
    assert.equal(allowed.status, 'False');
  });

  test('an eviction the budget forbids is 429 TooManyRequests; the pod stays', async () => {
    const res = await raw(local, {
      method: 'POST',
      path: '/api/v1/namespaces/default/pods/web-1/eviction',
      body: json({
        apiVersion: 'policy/v1',
        kind: 'Eviction',
        metadata: { name: 'web-1', namespace: 'default' },
      }),
    });
    assertStatus(res, 429, 'TooManyRequests');
    assert.equal(res.json.message, "Cannot evict pod as it would violate the pod's disruption budget.");
    assert.equal(res.json.details.causes[0].reason, 'DisruptionBudget');
    assert.deepEqual(await podsOn('node-a'), ['web-1', 'web-2']);
  });

  test('drain with a PDB in the way fails with the disruption-budget message, leaving the node cordoned', async () => {
    const result = await local.kubectl(['drain', 'node-a', '--force', '--timeout=5s'], { timeoutMs: 30_000 });
    assert.notEqual(result.code, 0, result.stdout);
    assert.match(result.stderr, /Cannot evict pod as it would violate the pod's disruption budget/);
    assert.match(result.stderr, /global timeout reached: 5s/);
    assert.deepEqual(await podsOn('node-a'), ['web-1', 'web-2']);
    const node = (await raw(local, { path: '/api/v1/nodes/node-a' })).json;
    assert.equal(node.spec.unschedulable, true, 'drain cordons first');
  });

  test('relaxing the PDB lets drain evict every pod on the node and no others', async () => {
    await kubectlOk(local, [
      'patch',
      'pdb',
      'web',
      '--type=merge',
      '-p',
      json({ spec: { minAvailable: 1 } }),
    ]);
    const out = await kubectlOk(local, ['drain', 'node-a', '--force', '--timeout=20s']);
    assert.match(out, /node\/node-a drained/);
    assert.match(out, /pod\/web-1 evicted/);
    assert.match(out, /pod\/web-2 evicted/);
    assert.deepEqual(await podsOn('node-a'), []);
    assert.deepEqual(await podsOn('node-b'), ['solo', 'web-3']);
    const pdb = await waitFor('PDB status to follow', async () => {
      const res = await raw(local, { path: '/apis/policy/v1/namespaces/default/poddisruptionbudgets/web' });
      return res.json.status?.expectedPods === 1 ? res.json : undefined;
    });
    assert.equal(pdb.status.disruptionsAllowed, 0);
  });

  test('a pod no budget selects is evicted at once; draining its node still waits for the budget holding web-3', async () => {
    await kubectlOk(local, [
      'patch',
      'pdb',
      'web',
      '--type=merge',
      '-p',
      json({ spec: { minAvailable: 1 } }),
    ]);
    const res = await raw(local, {
      method: 'POST',
      path: '/api/v1/namespaces/default/pods/solo/eviction',
      body: json({
        apiVersion: 'policy/v1',
        kind: 'Eviction',
        metadata: { name: 'solo', namespace: 'default' },
      }),
    });
    assert.equal(res.status, 201, res.text);
    assert.deepEqual(await podsOn('node-b'), ['web-3']);
    const blocked = await local.kubectl(['drain', 'node-b', '--force', '--timeout=3s'], {
      timeoutMs: 30_000,
    });
    assert.notEqual(blocked.code, 0);
    assert.match(blocked.stderr, /disruption budget/);
  });
});
