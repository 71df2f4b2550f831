import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { KubeConfig } from '@kubernetes/client-node';
import {
  parseKubeconfig,
  readKubeconfigFile,
  readKubeconfigFileSync,
  renderKubeconfig,
  writeKubeconfigFile,
  writeKubeconfigFileSync,
} from '../../src/kube/kubeconfig-file.ts';

const root = mkdtempSync(join(tmpdir(), 'nodeherd-kubeconfig-'));
after(() => rmSync(root, { recursive: true, force: true }));

// Not a real certificate: the kubeconfig only carries the PEM through, byte for byte.
const caPem = '-----BEGIN CERTIFICATE-----\nMIIBfake\n-----END CERTIFICATE-----\n';
const token = 'Zm9vYmFyLXRva2VuLXZhbHVlLTMyLWJ5dGVzLWxvbmctLQ';

test('@kubernetes/client-node loads the written file: server, inline CA and bearer token', async () => {
  const path = join(root, 'nested', 'dir', 'kubeconfig');
  await writeKubeconfigFile(path, {
    server: 'https://127.0.0.1:6443',
    caPem,
    token,
    clusterName: 'local',
    userName: 'nodeherd:admin',
    contextName: 'nodeherd-local',
    namespace: 'nodeherd',
  });
  assert.equal(statSync(path).mode & 0o777, 0o600);
  assert.equal(statSync(join(root, 'nested', 'dir')).mode & 0o777, 0o700);

  const kc = new KubeConfig();
  kc.loadFromFile(path);
  assert.equal(kc.getCurrentContext(), 'nodeherd-local');
  assert.equal(kc.getContextObject('nodeherd-local')?.namespace, 'nodeherd');
  const cluster = kc.getCurrentCluster();
  assert.equal(cluster?.name, 'local');
  assert.equal(cluster?.server, 'https://127.0.0.1:6443');
  assert.equal(Buffer.from(cluster?.caData ?? '', 'base64').toString('utf8'), caPem);
  assert.equal(cluster?.skipTLSVerify, false);
  const user = kc.getCurrentUser();
  assert.equal(user?.name, 'nodeherd:admin');
  assert.equal(user?.token, token);

  // What the client will actually send.
  const options: { headers?: Record<string, string>; ca?: unknown } = {};
  await kc.applyToHTTPSOptions(options);
  assert.equal(options.headers?.Authorization, `Bearer ${token}`);
  assert.equal(String(options.ca), caPem);
});

test('defaults name the cluster, user and context', () => {
  const kc = new KubeConfig();
  kc.loadFromString(renderKubeconfig({ server: 'https://localhost:1', caPem, token }));
  assert.equal(kc.getCurrentContext(), 'nodeherd');
  assert.equal(kc.getCurrentCluster()?.name, 'nodeherd');
  assert.equal(kc.getCurrentUser()?.name, 'nodeherd-admin');
  assert.equal(kc.getContextObject('nodeherd')?.namespace, undefined);
});

test('the sync writer produces the same file and both readers round-trip it', async () => {
  const path = join(root, 'sync-kubeconfig');
  const spec = { server: 'https://[::1]:7443', caPem, token, namespace: 'default' };
  writeKubeconfigFileSync(path, spec);
  assert.equal(readFileSync(path, 'utf8'), renderKubeconfig(spec));
  const expected = { ...spec, clusterName: 'nodeherd', userName: 'nodeherd-admin', contextName: 'nodeherd' };
  assert.deepEqual(readKubeconfigFileSync(path), expected);
  assert.deepEqual(await readKubeconfigFile(path), expected);
});

test('readers return undefined for a missing file or a kubeconfig without token and inline CA', async () => {
  assert.equal(await readKubeconfigFile(join(root, 'absent')), undefined);
  assert.equal(readKubeconfigFileSync(join(root, 'absent')), undefined);
  const clientCertConfig = join(root, 'client-cert');
  writeFileSync(
    clientCertConfig,
    [
      'apiVersion: v1',
      'kind: Config',
      'clusters: [{name: c, cluster: {server: "https://x", certificate-authority: /ca.crt}}]',
      'users: [{name: u, user: {client-certificate: /u.crt, client-key: /u.key}}]',
      'contexts: [{name: x, context: {cluster: c, user: u}}]',
      'current-context: x',
    ].join('\n'),
  );
  assert.equal(await readKubeconfigFile(clientCertConfig), undefined);
  assert.equal(parseKubeconfig(': not yaml ['), undefined);
  assert.equal(parseKubeconfig('just a string'), undefined);
});
