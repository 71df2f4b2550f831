// The light client against the real embedded API server, over HTTPS with the issued credentials.

import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { KubeError, type KubeStatus } from '../../../src/kube/kube-error.ts';
import { resourcePath } from '../../../src/kube/light/api-paths.ts';
import { LightKubeClient } from '../../../src/kube/light/light-kube-client.ts';
import type { KubeObject } from '../../../src/kube/light/types.ts';
import { type LocalApiServer, startLocalApiServer } from '../../support/local-apiserver.ts';

let local: LocalApiServer;
let admin: LightKubeClient;

before(async () => {
  local = await startLocalApiServer();
  admin = LightKubeClient.fromKubeconfig(local.kubeconfigPath);
});
after(async () => {
  admin?.close();
  await local?.stop();
});

const nodePath = (name?: string) =>
  resourcePath({ apiVersion: 'v1', resource: 'nodes', ...(name ? { name } : {}) });
const configMaps = (namespace: string, name?: string) =>
  resourcePath({ apiVersion: 'v1', resource: 'configmaps', namespace, ...(name ? { name } : {}) });

function node(name: string, labels: Record<string, string> = {}): KubeObject {
  return { apiVersion: 'v1', kind: 'Node', metadata: { name, labels } };
}

async function rejectsWith(promise: Promise<unknown>, status: number, reason: string): Promise<KubeError> {
  const error = await promise.then(
    () => assert.fail(`expected ${status} ${reason}`),
    (err: unknown) => err,
  );
  assert.ok(error instanceof KubeError, String(error));
  assert.equal(error.status, status, error.message);
  assert.equal(error.reason, reason, error.message);
  return error;
}

test('create, get and list by label and field selector', async () => {
  const created = await admin.create(nodePath(), node('get-1', { pool: 'a' }));
  assert.equal(created.kind, 'Node');
  assert.equal(created.metadata?.name, 'get-1');
  assert.match(created.metadata?.resourceVersion ?? '', /^\d+$/);
  await admin.create(nodePath(), node('get-2', { pool: 'b' }));

  const fetched = await admin.get(nodePath('get-1'));
  assert.equal(fetched.metadata?.uid, created.metadata?.uid);

  const byLabel = await admin.list(nodePath(), { labelSelector: 'pool=b' });
  assert.equal(byLabel.kind, 'NodeList');
  assert.deepEqual(
    byLabel.items.map((n) => n.metadata?.name),
    ['get-2'],
  );
  const byName = await admin.list(nodePath(), { fieldSelector: 'metadata.name=get-1' });
  assert.deepEqual(
    byName.items.map((n) => n.metadata?.name),
    ['get-1'],
  );
  assert.ok(Number(byName.metadata.resourceVersion) >= Number(created.metadata?.resourceVersion));
  const none = await admin.list(nodePath(), { fieldSelector: 'metadata.name=absent' });
  assert.deepEqual(none.items, []);
  assert.match(none.metadata.resourceVersion ?? '', /^\d+$/);
});

test('errors carry the Status: 404 NotFound, 409 AlreadyExists, 409 Conflict on a stale update', async () => {
  const missing = await rejectsWith(admin.get(nodePath('nope')), 404, 'NotFound');
  assert.match(missing.message, /"nope" not found/);
  assert.equal(typeof missing.body, 'object');

  const created = await admin.create(nodePath(), node('err-1'));
  await rejectsWith(admin.create(nodePath(), node('err-1')), 409, 'AlreadyExists');

  const first = await admin.update(nodePath('err-1'), {
    ...created,
    metadata: { ...created.metadata, labels: { v: '1' } },
  });
  assert.equal(first.metadata?.labels?.v, '1');
  assert.notEqual(first.metadata?.resourceVersion, created.metadata?.resourceVersion);
  // The original resourceVersion is now stale.
  const conflict = await rejectsWith(
    admin.update(nodePath('err-1'), { ...created, metadata: { ...created.metadata, labels: { v: '2' } } }),
    409,
    'Conflict',
  );
  assert.match(conflict.message, /has been modified/);
});

test('patch: merge, strategic merge (conditions by type) and JSON patch', async () => {
  await admin.create(nodePath(), node('patch-1', { keep: 'yes', drop: 'yes' }));

  const merged = await admin.patch(
    nodePath('patch-1'),
    { metadata: { labels: { drop: null, added: 'x' } } },
    'merge',
  );
  assert.deepEqual(merged.metadata?.labels, { keep: 'yes', added: 'x' });

  const strategicPath = resourcePath({
    apiVersion: 'v1',
    resource: 'nodes',
    name: 'patch-1',
    subresource: 'status',
  });
  await admin.patch(
    strategicPath,
    {
      status: {
        conditions: [
          { type: 'Ready', status: 'True' },
          { type: 'NodeConfigReady', status: 'False' },
        ],
      },
    },
    'strategic',
  );
  const strategic = await admin.patch(
    strategicPath,
    { status: { conditions: [{ type: 'NodeConfigReady', status: 'True' }] } },
    'strategic',
  );
  const conditions = (strategic.status as { conditions: { type: string; status: string }[] }).conditions;
  assert.deepEqual(
    conditions.map((c) => `${c.type}=${c.status}`),
    ['Ready=True', 'NodeConfigReady=True'],
  );

  const jsonPatched = await admin.patch(
    nodePath('patch-1'),
    [
      { op: 'test', path: '/metadata/labels/keep', value: 'yes' },
      { op: 'add', path: '/metadata/annotations', value: { 'nodeherd.io/state': 'Idle' } },
    ],
    'json',
  );
  assert.equal(jsonPatched.metadata?.annotations?.['nodeherd.io/state'], 'Idle');
  await rejectsWith(
    admin.patch(nodePath('patch-1'), [{ op: 'test', path: '/metadata/labels/keep', value: 'no' }], 'json'),
    422,
    'Invalid',
  );
});

test('delete returns a Success Status (ConfigMaps, as in kube); with a finalizer the object lingers until the finalizer is removed', async () => {
  const namespace = 'default';
  await admin.create(configMaps(namespace), {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name: 'del-1' },
    data: { a: '1' },
  });
  const deleted = await admin.delete(configMaps(namespace, 'del-1'), { propagationPolicy: 'Background' });
  assert.equal(deleted.kind, 'Status');
  assert.equal((deleted as KubeStatus).status, 'Success');
  assert.equal((deleted as KubeStatus).details?.name, 'del-1');
  await rejectsWith(admin.get(configMaps(namespace, 'del-1')), 404, 'NotFound');
  await rejectsWith(admin.delete(configMaps(namespace, 'del-1')), 404, 'NotFound');

  await admin.create(configMaps(namespace), {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name: 'del-2', finalizers: ['nodeherd.io/test'] },
  });
  const terminating = (await admin.delete(configMaps(namespace, 'del-2'))) as KubeObject;
  assert.ok(terminating.metadata?.deletionTimestamp, 'deletionTimestamp set');
  await admin.patch(configMaps(namespace, 'del-2'), { metadata: { finalizers: null } }, 'merge');
  await rejectsWith(admin.get(configMaps(namespace, 'del-2')), 404, 'NotFound');

  // A precondition on a stale uid refuses the delete.
  const kept = await admin.create(configMaps(namespace), {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name: 'del-3' },
  });
  await rejectsWith(
    admin.delete(configMaps(namespace, 'del-3'), { preconditions: { uid: 'not-the-uid' } }),
    409,
    'Conflict',
  );
  const stillThere = await admin.get(configMaps(namespace, 'del-3'));
  assert.equal(stillThere.metadata?.uid, kept.metadata?.uid);
});

test('a node identity reads and patches its own Node and is refused (403) another node', async () => {
  await admin.create(nodePath(), node('ident-a'));
  await admin.create(nodePath(), node('ident-b'));
  const kubeconfig = join(local.dataDir, 'agents', 'ident-a.kubeconfig');
  const token = await local.server.issueCredential('node', 'ident-a', kubeconfig);
  const agent = LightKubeClient.fromKubeconfig(kubeconfig);
  try {
    const own = await agent.get(nodePath('ident-a'));
    assert.equal(own.metadata?.name, 'ident-a');
    const patched = await agent.patch(
      nodePath('ident-a'),
      { metadata: { annotations: { 'nodeherd.io/state': 'Idle' } } },
      'merge',
    );
    assert.equal(patched.metadata?.annotations?.['nodeherd.io/state'], 'Idle');
    const ownList = await agent.list(nodePath(), { fieldSelector: 'metadata.name=ident-a' });
    assert.equal(ownList.items.length, 1);

    const denied = await rejectsWith(agent.get(nodePath('ident-b')), 403, 'Forbidden');
    await rejectsWith(
      agent.patch(nodePath('ident-b'), { metadata: { labels: { x: 'y' } } }),
      403,
      'Forbidden',
    );
    await rejectsWith(agent.list(nodePath()), 403, 'Forbidden');
    await rejectsWith(agent.list(nodePath(), { fieldSelector: 'metadata.name=ident-b' }), 403, 'Forbidden');
    for (const text of [denied.message, JSON.stringify(denied.body), String(denied.stack)]) {
      assert.ok(!text.includes(token), 'the token never appears in an error');
    }
  } finally {
    agent.close();
  }
});

test('a wrong token is 401 Unauthorized and the token is not in the error', async () => {
  const spec = readFileSync(local.kubeconfigPath, 'utf8');
  const caData = /certificate-authority-data: (\S+)/.exec(spec)?.[1];
  assert.ok(caData);
  const wrongToken = 'definitely-not-a-valid-token-0123456789';
  const client = new LightKubeClient({
    server: local.server.url,
    caPem: Buffer.from(caData, 'base64').toString('utf8'),
    token: wrongToken,
  });
  try {
    const error = await rejectsWith(client.get(nodePath()), 401, 'Unauthorized');
    assert.ok(!`${error.message} ${JSON.stringify(error.body)} ${error.stack}`.includes(wrongToken));
  } finally {
    client.close();
  }
});

test('a server whose certificate is not signed by the kubeconfig CA is refused', async () => {
  const other = await startLocalApiServer();
  const spec = readFileSync(other.kubeconfigPath, 'utf8');
  const caData = /certificate-authority-data: (\S+)/.exec(spec)?.[1];
  assert.ok(caData);
  // The other server's CA, this server's URL: TLS verification must fail.
  const client = new LightKubeClient({
    server: local.server.url,
    caPem: Buffer.from(caData, 'base64').toString('utf8'),
    token: 'irrelevant-token',
  });
  try {
    await assert.rejects(
      client.get(nodePath()),
      (err: Error) => !(err instanceof KubeError) && /certificate|self.signed|issuer/i.test(err.message),
    );
    assert.equal(client.stats().transportFailures, 1);
  } finally {
    client.close();
    await other.stop();
  }
});

test('counters count requests per verb and responses per status, over one kept-alive connection', async () => {
  const client = LightKubeClient.fromKubeconfig(local.kubeconfigPath);
  try {
    await client.create(nodePath(), node('count-1'));
    await client.get(nodePath('count-1'));
    await client.list(nodePath());
    await client.patch(nodePath('count-1'), { metadata: { labels: { a: 'b' } } });
    await client.get(nodePath('count-missing')).catch(() => {});
    await client.delete(nodePath('count-1'));
    const stats = client.stats();
    assert.equal(stats.requests, 6);
    assert.deepEqual(stats.byVerb, { get: 2, list: 1, watch: 0, create: 1, update: 0, patch: 1, delete: 1 });
    assert.deepEqual(stats.byStatus, { 200: 4, 201: 1, 404: 1 });
    assert.equal(stats.connections, 1, 'one TLS handshake, then keep-alive');
    assert.ok(stats.bytesReceived > 0);
  } finally {
    client.close();
  }
  assert.throws(() => new LightKubeClient({ server: 'http://127.0.0.1:1', caPem: 'x', token: 't' }), /https/);
  assert.throws(() => LightKubeClient.fromKubeconfig(join(local.dataDir, 'no-such-kubeconfig')), /ENOENT/);
});
