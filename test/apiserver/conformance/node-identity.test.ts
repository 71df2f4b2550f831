// Conformance: a node agent's token may read, watch and patch its own Node and nothing that belongs to
// another node (403 with a Status body), through kubectl, client-node and raw requests; missing or
// wrong tokens are 401.

import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import {
  ApiException,
  CoreV1Api,
  KubeConfig,
  PatchStrategy,
  setHeaderOptions,
} from '@kubernetes/client-node';
import { type LocalApiServer, startLocalApiServer } from '../../support/local-apiserver.ts';
import { assertStatus, json, kubectlApply, raw, rawWatch, tokenOf, waitFor } from './support.ts';

describe('node agent identity', () => {
  let local: LocalApiServer;
  let agentKubeconfig: string;
  let agentToken: string;
  let agent: CoreV1Api;

  const asAgent = (path: string, init: { method?: string; body?: string; contentType?: string } = {}) =>
    raw(local, { path, token: agentToken, ...init });

  before(async () => {
    local = await startLocalApiServer();
    agentKubeconfig = join(local.dataDir, 'node-a.kubeconfig');
    agentToken = await local.server.issueCredential('node', 'node-a', agentKubeconfig);
    const kc = new KubeConfig();
    kc.loadFromFile(agentKubeconfig);
    assert.equal(tokenOf(kc), agentToken);
    agent = kc.makeApiClient(CoreV1Api);
    await kubectlApply(local, [
      { apiVersion: 'v1', kind: 'Node', metadata: { name: 'node-a' } },
      { apiVersion: 'v1', kind: 'Node', metadata: { name: 'node-b' } },
      {
        apiVersion: 'v1',
        kind: 'Secret',
        metadata: { name: 's', namespace: 'default' },
        stringData: { k: 'v' },
      },
    ]);
  });
  after(() => local.stop());

  test('its own Node: get, field-selected list and watch, patch of metadata and status', async () => {
    const own = await agent.readNode({ name: 'node-a' });
    assert.equal(own.metadata!.name, 'node-a');
    const out = await local.kubectl(['get', 'node', 'node-a', '-o', 'name'], { kubeconfig: agentKubeconfig });
    assert.equal(out.code, 0, out.stderr);
    assert.equal(out.stdout.trim(), 'node/node-a');

    const list = await agent.listNode({ fieldSelector: 'metadata.name=node-a' });
    assert.deepEqual(
      list.items.map((n) => n.metadata!.name),
      ['node-a'],
    );
    const w = await rawWatch(
      local,
      '/api/v1/nodes?watch=true&fieldSelector=metadata.name%3Dnode-a',
      agentToken,
    );
    try {
      assert.equal(w.status, 200);
      await waitFor('the initial ADDED', () => w.events.length >= 1 || undefined);
      const patched = await agent.patchNode(
        { name: 'node-a', body: { metadata: { annotations: { 'nodeherd.io/state': 'Idle' } } } },
        setHeaderOptions('Content-Type', PatchStrategy.MergePatch),
      );
      assert.equal(patched.metadata!.annotations!['nodeherd.io/state'], 'Idle');
      const status = await agent.patchNodeStatus(
        {
          name: 'node-a',
          body: { status: { conditions: [{ type: 'NodeConfigReady', status: 'True', reason: 'Applied' }] } },
        },
        setHeaderOptions('Content-Type', PatchStrategy.StrategicMergePatch),
      );
      assert.equal(status.status!.conditions![0]!.type, 'NodeConfigReady');
      await waitFor('the two changes on the watch', () => w.events.length >= 3 || undefined);
      assert.deepEqual(
        w.events.map((e) => [e.type, e.object.metadata.name]),
        [
          ['ADDED', 'node-a'],
          ['MODIFIED', 'node-a'],
          ['MODIFIED', 'node-a'],
        ],
      );
    } finally {
      w.close();
    }
  });

  test("another node's Node is 403 Forbidden with a Status body, for every verb", async () => {
    const get = await asAgent('/api/v1/nodes/node-b');
    assertStatus(get, 403, 'Forbidden');
    assert.match(get.json.message, /^nodes "node-b" is forbidden: User "[^"]+" cannot get resource "nodes"/);
    assert.deepEqual(get.json.details, { name: 'node-b', group: '', kind: 'nodes' });

    const patch = await asAgent('/api/v1/nodes/node-b', {
      method: 'PATCH',
      contentType: 'application/merge-patch+json',
      body: json({ metadata: { labels: { pwned: 'yes' } } }),
    });
    assertStatus(patch, 403, 'Forbidden');
    const status = await asAgent('/api/v1/nodes/node-b/status', {
      method: 'PATCH',
      contentType: 'application/merge-patch+json',
      body: json({ status: { conditions: [{ type: 'Ready', status: 'False' }] } }),
    });
    assertStatus(status, 403, 'Forbidden');
    assertStatus(await asAgent('/api/v1/nodes'), 403, 'Forbidden');
    assertStatus(await asAgent('/api/v1/nodes?fieldSelector=metadata.name%3Dnode-b'), 403, 'Forbidden');
    assertStatus(await asAgent('/api/v1/nodes?fieldSelector=metadata.name!%3Dnode-a'), 403, 'Forbidden');
    assertStatus(await asAgent('/api/v1/nodes?watch=true'), 403, 'Forbidden');
    assertStatus(await asAgent('/api/v1/nodes/node-a', { method: 'DELETE' }), 403, 'Forbidden');
    const created = await asAgent('/api/v1/nodes', {
      method: 'POST',
      body: json({ apiVersion: 'v1', kind: 'Node', metadata: { name: 'node-c' } }),
    });
    assertStatus(created, 403, 'Forbidden');

    // Nothing changed.
    const b = (await raw(local, { path: '/api/v1/nodes/node-b' })).json;
    assert.equal(b.metadata.labels?.pwned, undefined);

    // The official client and kubectl see the same refusal.
    await assert.rejects(agent.readNode({ name: 'node-b' }), (err: unknown) => {
      assert.ok(err instanceof ApiException);
      assert.equal(err.code, 403);
      return true;
    });
    const denied = await local.kubectl(['get', 'node', 'node-b'], { kubeconfig: agentKubeconfig });
    assert.notEqual(denied.code, 0);
    assert.match(denied.stderr, /Error from server \(Forbidden\): nodes "node-b" is forbidden/);
    const labelled = await local.kubectl(['label', 'node', 'node-b', 'x=y'], { kubeconfig: agentKubeconfig });
    assert.notEqual(labelled.code, 0);
    assert.match(labelled.stderr, /Forbidden/);
  });

  test('the rest of the agent boundary: revisions readable, secrets and events about others refused', async () => {
    assert.equal((await asAgent('/apis/nodeherd.io/v1alpha1/nodeconfigrevisions')).status, 200);
    assertStatus(await asAgent('/apis/nodeherd.io/v1alpha1/nodeconfigs'), 403, 'Forbidden');
    assertStatus(await asAgent('/api/v1/namespaces/default/secrets/s'), 403, 'Forbidden');
    assertStatus(await asAgent('/api/v1/namespaces/default/configmaps'), 403, 'Forbidden');
    const event = (node: string) =>
      json({
        apiVersion: 'v1',
        kind: 'Event',
        metadata: { name: `${node}.applied`, namespace: 'default' },
        involvedObject: { kind: 'Node', name: node, apiVersion: 'v1' },
        reason: 'Applied',
        message: 'ok',
        type: 'Normal',
      });
    const own = await asAgent('/api/v1/namespaces/default/events', { method: 'POST', body: event('node-a') });
    assert.equal(own.status, 201, own.text);
    const other = await asAgent('/api/v1/namespaces/default/events', {
      method: 'POST',
      body: event('node-b'),
    });
    assertStatus(other, 403, 'Forbidden');
    const lease = await asAgent('/apis/coordination.k8s.io/v1/namespaces/kube-node-lease/leases', {
      method: 'POST',
      body: json({
        apiVersion: 'coordination.k8s.io/v1',
        kind: 'Lease',
        metadata: { name: 'node-a' },
        spec: {},
      }),
    });
    // The heartbeat Lease is the kubelet's (identity system:node:node-a), not the agent's.
    assertStatus(lease, 403, 'Forbidden');
    const otherLease = await asAgent('/apis/coordination.k8s.io/v1/namespaces/kube-node-lease/leases', {
      method: 'POST',
      body: json({
        apiVersion: 'coordination.k8s.io/v1',
        kind: 'Lease',
        metadata: { name: 'node-b' },
        spec: {},
      }),
    });
    assertStatus(otherLease, 403, 'Forbidden');
  });

  test('no token or an unknown token is 401; health and version are public', async () => {
    assertStatus(await raw(local, { path: '/api/v1/nodes/node-a', token: null }), 401, 'Unauthorized');
    assertStatus(
      await raw(local, { path: '/api/v1/nodes/node-a', token: 'not-a-token' }),
      401,
      'Unauthorized',
    );
    assertStatus(await raw(local, { path: '/api', token: null }), 401, 'Unauthorized');
    const version = await raw(local, { path: '/version', token: null });
    assert.equal(version.status, 200);
    assert.match(version.json.gitVersion, /^v1\./);
    assert.equal((await raw(local, { path: '/healthz', token: null })).status, 200);
  });
});
