import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { DESIRED_REVISION_ANNOTATION } from '../../src/api/node-protocol.ts';
import { LightKubeClient } from '../../src/kube/light/light-kube-client.ts';
import { type LocalApiServer, startLocalApiServer } from '../support/local-apiserver.ts';
import { revisionOf, secretSnapshot } from '../support/nodeherd-objects.ts';

let local: LocalApiServer;
let admin: LightKubeClient;
const agents: LightKubeClient[] = [];

before(async () => {
  local = await startLocalApiServer();
  admin = LightKubeClient.fromKubeconfig(local.kubeconfigPath);
});
after(async () => {
  for (const client of [admin, ...agents]) client.close();
  await local.stop();
});

async function agentFor(node: string): Promise<LightKubeClient> {
  const path = join(local.dataDir, `agent-${node}.kubeconfig`);
  await local.server.issueCredential('node', node, path);
  const client = LightKubeClient.fromKubeconfig(path);
  agents.push(client);
  return client;
}

test('an agent reads exactly the Secrets its own revisions reference, and no other', async () => {
  for (const name of ['tls-key', 'unrelated']) {
    await admin.create('/api/v1/namespaces/nodeherd/secrets', {
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name },
      data: { key: Buffer.from(`secret-${name}`).toString('base64') },
    });
  }
  const revision = revisionOf(
    'p',
    {
      files: [
        {
          path: '/etc/tls/key.pem',
          content: { secretRef: { namespace: 'nodeherd', name: 'tls-key', key: 'key' } },
        },
      ],
    },
    1,
    { configName: 'with-secret', secrets: (ref) => secretSnapshot(`secret-${ref.name}`) },
  );
  await admin.create('/apis/nodeherd.io/v1alpha1/nodeconfigrevisions', revision);
  for (const node of ['told', 'other']) {
    await admin.create('/api/v1/nodes', { apiVersion: 'v1', kind: 'Node', metadata: { name: node } });
  }
  const told = await agentFor('told');
  const other = await agentFor('other');
  const secretPath = '/api/v1/namespaces/nodeherd/secrets/tls-key';
  const forbidden = (err: { status?: number }) => err.status === 403;

  // Before the node is pointed at the revision, the Secret is out of reach.
  await assert.rejects(told.get(secretPath), forbidden);
  await admin.patch('/api/v1/nodes/told', {
    metadata: { annotations: { [DESIRED_REVISION_ANNOTATION]: revision.metadata.name } },
  });
  const secret = await told.get<{ data: { key: string } }>(secretPath);
  assert.equal(Buffer.from(secret.data.key, 'base64').toString(), 'secret-tls-key');
  await assert.rejects(told.get('/api/v1/namespaces/nodeherd/secrets/unrelated'), forbidden);
  await assert.rejects(told.list('/api/v1/namespaces/nodeherd/secrets'), forbidden);
  await assert.rejects(other.get(secretPath), forbidden);
});
