// The controller's cluster configuration: the light reader for the kubeconfigs it understands whole
// (no @kubernetes/client-node loaded), the official client for everything else.

import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { isLightClusterConfig, loadClusterConfig } from '../../src/kube/cluster-config.ts';
import { KubeClient } from '../../src/kube/kube-client.ts';
import type { KubeObject } from '../../src/kube/types.ts';
import { type LocalApiServer, startLocalApiServer } from '../support/local-apiserver.ts';

const dir = mkdtempSync(join(tmpdir(), 'nodeherd-cluster-config-'));
const CA = Buffer.from('-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n').toString('base64');

/** A kubeconfig file (JSON, which kubectl reads too) whose current context has this user and cluster. */
function kubeconfig(
  name: string,
  user: Record<string, unknown>,
  cluster: Record<string, unknown> = { server: 'https://a.example:6443', 'certificate-authority-data': CA },
): string {
  const path = join(dir, name);
  const config = {
    apiVersion: 'v1',
    kind: 'Config',
    'current-context': 'one',
    clusters: [{ name: 'a', cluster }],
    users: [{ name: 'u', user }],
    contexts: [{ name: 'one', context: { cluster: 'a', user: 'u' } }],
  };
  writeFileSync(path, JSON.stringify(config));
  return path;
}

describe('cluster configuration', () => {
  after(() => rmSync(dir, { recursive: true, force: true }));

  test('a bearer token, a token file or a client certificate: read by the light reader', async () => {
    const token = await loadClusterConfig({ kubeconfig: kubeconfig('token', { token: 'secret' }) }, {});
    assert.ok(isLightClusterConfig(token));
    assert.equal(token.credentials.server, 'https://a.example:6443');
    assert.equal(token.credentials.token, 'secret');
    const file = await loadClusterConfig({ kubeconfig: kubeconfig('file', { tokenFile: 'token.txt' }) }, {});
    assert.ok(isLightClusterConfig(file));
    assert.equal(file.credentials.tokenFile, join(dir, 'token.txt'));
    const pem = Buffer.from('PEM').toString('base64');
    const cert = await loadClusterConfig(
      { kubeconfig: kubeconfig('cert', { 'client-certificate-data': pem, 'client-key-data': pem }) },
      {},
    );
    assert.ok(isLightClusterConfig(cert));
    assert.equal(cert.credentials.clientCertPem, 'PEM');
  });

  test('$KUBECONFIG names the file when no flag does', async () => {
    const config = await loadClusterConfig({}, { KUBECONFIG: kubeconfig('env', { token: 't' }) });
    assert.ok(isLightClusterConfig(config));
    assert.equal(config.source, join(dir, 'env'));
  });

  test('exec plugins, TLS settings, plain HTTP and --context go to the official client', async () => {
    const cases = [
      kubeconfig('exec', {
        exec: { apiVersion: 'client.authentication.k8s.io/v1', command: 'get-token' },
      }),
      kubeconfig(
        'insecure',
        { token: 't' },
        { server: 'https://a.example:6443', 'insecure-skip-tls-verify': true },
      ),
      kubeconfig(
        'proxy',
        { token: 't' },
        {
          server: 'https://a.example:6443',
          'certificate-authority-data': CA,
          'proxy-url': 'http://proxy:3128',
        },
      ),
      kubeconfig(
        'http',
        { token: 't' },
        { server: 'http://a.example:8080', 'certificate-authority-data': CA },
      ),
    ];
    for (const path of cases) {
      const config = await loadClusterConfig({ kubeconfig: path }, {});
      assert.equal(isLightClusterConfig(config), false, path);
      assert.equal(new KubeClient(config).server.host.startsWith('a.example'), true);
    }
    const other = await loadClusterConfig(
      { kubeconfig: kubeconfig('ctx', { token: 't' }), context: 'one' },
      {},
    );
    assert.equal(isLightClusterConfig(other), false);
    await assert.rejects(
      loadClusterConfig({ kubeconfig: kubeconfig('ctx2', { token: 't' }), context: 'two' }, {}),
      /context "two" is not in the kubeconfig/,
    );
  });

  test("a pod's ServiceAccount when there is no kubeconfig", async () => {
    const account = join(dir, 'serviceaccount');
    mkdirSync(account);
    writeFileSync(join(account, 'token'), 'pod-token');
    writeFileSync(join(account, 'ca.crt'), 'CA PEM');
    const env = {
      HOME: join(dir, 'nohome'),
      KUBERNETES_SERVICE_HOST: '10.0.0.1',
      KUBERNETES_SERVICE_PORT: '443',
    };
    const config = await loadClusterConfig({}, env, account);
    assert.ok(isLightClusterConfig(config));
    assert.equal(config.source, 'in-cluster');
    assert.equal(config.credentials.server, 'https://10.0.0.1:443');
    assert.equal(config.credentials.tokenFile, join(account, 'token'));
  });
});

describe('KubeClient from the light reader', () => {
  let local: LocalApiServer;
  before(async () => {
    local = await startLocalApiServer();
  });
  after(async () => {
    await local?.stop();
  });

  test('talks to the API server with the credentials of an issued kubeconfig', async () => {
    const path = join(local.dataDir, 'controller.kubeconfig');
    await local.server.issueCredential('controller', undefined, path);
    const config = await loadClusterConfig({ kubeconfig: path }, {});
    assert.ok(isLightClusterConfig(config), 'an issued kubeconfig is within the light subset');
    const client = new KubeClient(config);
    try {
      const nodes = await client.list<KubeObject>('/api/v1/nodes');
      assert.equal(nodes.kind, 'NodeList');
    } finally {
      client.close();
    }
  });
});
