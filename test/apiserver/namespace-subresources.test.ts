import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { CoreV1Api } from '@kubernetes/client-node';
import { type LocalApiServer, startLocalApiServer } from '../support/local-apiserver.ts';

let local: LocalApiServer;
let core: CoreV1Api;

before(async () => {
  local = await startLocalApiServer();
  core = local.kubeConfig().makeApiClient(CoreV1Api);
});
after(() => local.stop());

test('namespaces/<ns>/status reads the namespace, not an object named "status" inside it', async () => {
  await core.createNamespace({ body: { metadata: { name: 'ns-status' } } });
  const status = await core.readNamespaceStatus({ name: 'ns-status' });
  assert.equal(status.metadata?.name, 'ns-status');
  assert.equal(status.status?.phase, 'Active');
});

test('namespaces/<ns>/finalize writes spec.finalizers only; a terminating namespace then goes away', async () => {
  await core.createNamespace({ body: { metadata: { name: 'ns-final', labels: { keep: 'yes' } } } });
  const ns = await core.readNamespace({ name: 'ns-final' });
  assert.deepEqual(ns.spec?.finalizers, ['kubernetes']);
  const finalized = await core.replaceNamespaceFinalize({
    name: 'ns-final',
    body: { ...ns, metadata: { ...ns.metadata, labels: { changed: 'no' } }, spec: { finalizers: [] } },
  });
  assert.deepEqual(finalized.spec?.finalizers, []);
  assert.deepEqual(
    finalized.metadata?.labels?.keep,
    'yes',
    'finalize ignores everything but spec.finalizers',
  );
  await core.deleteNamespace({ name: 'ns-final' });
  await assert.rejects(
    core.readNamespace({ name: 'ns-final' }),
    (err: { code?: number }) => err.code === 404,
  );
});

test('an unknown resourceVersionMatch is refused with 400', async () => {
  const result = await local.kubectl([
    'get',
    '--raw',
    '/api/v1/configmaps?resourceVersion=1&resourceVersionMatch=Sometimes',
  ]);
  assert.notEqual(result.code, 0);
  assert.match(result.stderr, /resourceVersionMatch/);
});
