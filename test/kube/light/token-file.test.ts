// A client whose kubeconfig names a tokenFile (or an in-cluster pod's token) against the embedded API
// server: a token replaced in the file is used from the next request on, and a 401 after a rotation
// the stat check could not see is retried once with the token read again.

import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, renameSync, rmSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import type { KubeError } from '../../../src/kube/kube-error.ts';
import {
  inClusterCredentials,
  readKubeconfigCredentialsSync,
} from '../../../src/kube/kubeconfig-credentials.ts';
import { LightKubeClient } from '../../../src/kube/light/light-kube-client.ts';
import { FileTokenSource, TokenFileError } from '../../../src/kube/token-source.ts';
import { type LocalApiServer, startLocalApiServer } from '../../support/local-apiserver.ts';

let local: LocalApiServer;
const root = mkdtempSync(join(tmpdir(), 'nodeherd-token-file-'));

before(async () => {
  local = await startLocalApiServer();
  const admin = LightKubeClient.fromKubeconfig(local.kubeconfigPath);
  await admin.create('/api/v1/nodes', { apiVersion: 'v1', kind: 'Node', metadata: { name: 'n1' } });
  admin.close();
});

after(async () => {
  await local?.stop();
  rmSync(root, { recursive: true, force: true });
});

function kubeconfigWithTokenFile(tokenFile: string): string {
  const path = join(root, `kubeconfig-${Math.random().toString(36).slice(2)}`);
  const config = {
    apiVersion: 'v1',
    kind: 'Config',
    clusters: [
      {
        name: 'c',
        cluster: {
          server: local.server.url,
          'certificate-authority-data': Buffer.from(local.server.caPem).toString('base64'),
        },
      },
    ],
    users: [{ name: 'u', user: { tokenFile } }],
    contexts: [{ name: 'x', context: { cluster: 'c', user: 'u' } }],
    'current-context': 'x',
  };
  writeFileSync(path, JSON.stringify(config), { mode: 0o600 });
  return path;
}

/** Replaces the token file the way a rotation does: a new file renamed over the old one. */
function replaceToken(path: string, token: string): void {
  writeFileSync(`${path}.new`, `${token}\n`, { mode: 0o600 });
  renameSync(`${path}.new`, path);
}

test('a kubeconfig tokenFile is resolved beside the kubeconfig; an inline token wins over it', () => {
  const path = kubeconfigWithTokenFile('agent.token');
  const credentials = readKubeconfigCredentialsSync(path);
  assert.equal(credentials.tokenFile, join(root, 'agent.token'));
  assert.equal(credentials.token, undefined);
});

test('a rotated static token (the systemd agent’s kubeconfig tokenFile) is picked up without a new client', async () => {
  const tokenPath = join(root, 'node.token');
  const first = await local.server.tokens.ensureIdentity('node', 'n1');
  replaceToken(tokenPath, first.token ?? (await local.server.tokens.rotate('node', 'n1')).token);
  const client = LightKubeClient.fromKubeconfig(kubeconfigWithTokenFile(tokenPath));
  try {
    assert.equal((await client.get('/api/v1/nodes/n1')).metadata?.name, 'n1');
    // Rotate: the old token is revoked at once, the new one goes into the file.
    const rotated = await local.server.tokens.rotate('node', 'n1');
    replaceToken(tokenPath, rotated.token);
    assert.equal((await client.get('/api/v1/nodes/n1')).metadata?.name, 'n1');
    assert.equal(client.stats().retries, 0, 'the stat check saw the new file: no 401 at all');
  } finally {
    client.close();
  }
});

test('after a 401 the file is read again at once and the request retried once', async () => {
  const tokenPath = join(root, 'same-stamp.token');
  const first = await local.server.tokens.rotate('node', 'n1');
  replaceToken(tokenPath, first.token);
  const fixed = new Date('2026-01-01T00:00:00Z');
  utimesSync(tokenPath, fixed, fixed);
  const client = LightKubeClient.fromKubeconfig(kubeconfigWithTokenFile(tokenPath));
  try {
    await client.get('/api/v1/nodes/n1');
    // Rewritten in place with the same size and mtime: the stat check cannot tell.
    const second = await local.server.tokens.rotate('node', 'n1');
    assert.equal(second.token.length, first.token.length);
    writeFileSync(tokenPath, `${second.token}\n`);
    utimesSync(tokenPath, fixed, fixed);
    assert.equal((await client.get('/api/v1/nodes/n1')).metadata?.name, 'n1');
    assert.equal(client.stats().retries, 1, 'one 401, one retry');
    // A token nobody rotated stays refused: one retry only when the file changed.
    await local.server.tokens.rotate('node', 'n1');
    await assert.rejects(client.get('/api/v1/nodes/n1'), (error: KubeError) => error.status === 401);
  } finally {
    client.close();
  }
});

test('the in-cluster credentials: API server from the environment, token and CA from the pod’s mount', async () => {
  const mount = join(root, 'serviceaccount');
  const data = join(root, '..data-1');
  // The kubelet's layout: files are symlinks into a ..data directory swapped on rotation.
  rmSync(mount, { recursive: true, force: true });
  mkdirSync(data, { recursive: true });
  mkdirSync(mount);
  writeFileSync(join(data, 'ca.crt'), local.server.caPem);
  const issued = await local.server.tokens.rotate('node', 'n1');
  writeFileSync(join(data, 'token'), issued.token);
  symlinkSync(join(data, 'ca.crt'), join(mount, 'ca.crt'));
  symlinkSync(join(data, 'token'), join(mount, 'token'));
  const url = new URL(local.server.url);
  const env = { KUBERNETES_SERVICE_HOST: url.hostname, KUBERNETES_SERVICE_PORT: url.port };
  const credentials = inClusterCredentials(env, mount);
  assert.equal(credentials.server, local.server.url);
  assert.equal(credentials.tokenFile, join(mount, 'token'));
  const client = new LightKubeClient(credentials);
  try {
    assert.equal((await client.get('/api/v1/nodes/n1')).metadata?.name, 'n1');
    const data2 = join(root, '..data-2');
    mkdirSync(data2);
    const next = await local.server.tokens.rotate('node', 'n1');
    writeFileSync(join(data2, 'token'), next.token);
    symlinkSync(join(data2, 'token'), join(mount, 'token.tmp'));
    renameSync(join(mount, 'token.tmp'), join(mount, 'token'));
    assert.equal((await client.get('/api/v1/nodes/n1')).metadata?.name, 'n1');
  } finally {
    client.close();
  }
  assert.throws(() => inClusterCredentials({}, mount), /KUBERNETES_SERVICE_HOST/);
});

test('a missing or empty token file is an error naming the file; a vanished one keeps the last token', () => {
  assert.throws(() => new FileTokenSource(join(root, 'absent')), TokenFileError);
  const empty = join(root, 'empty.token');
  writeFileSync(empty, '\n');
  assert.throws(() => new FileTokenSource(empty), /empty\.token: is empty/);
  const path = join(root, 'vanishing.token');
  writeFileSync(path, 'abc');
  const source = new FileTokenSource(path);
  rmSync(path);
  assert.equal(source.current(), 'abc');
  writeFileSync(path, 'half written\n');
  assert.equal(source.current(), 'abc', 'not a single word: the last good token is kept');
});
