import assert from 'node:assert/strict';
import { copyFileSync, mkdtempSync, rmSync, statSync, unlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { KubeConfig } from '@kubernetes/client-node';
import { adminKubeconfigPath, ensureCredential } from '../../../src/apiserver/auth/credentials.ts';
import { ADMIN_USER } from '../../../src/apiserver/auth/identities.ts';
import { TokenStore } from '../../../src/apiserver/auth/tokens.ts';
import { readKubeconfigFile } from '../../../src/kube/kubeconfig-file.ts';
import { nodeherdIdentities } from '../../../src/profile/nodeherd-identities.ts';

const root = mkdtempSync(join(tmpdir(), 'nodeherd-credentials-'));
after(() => rmSync(root, { recursive: true, force: true }));

let dirs = 0;
function freshDataDir(): string {
  return mkdtempSync(join(root, `data-${dirs++}-`));
}

const caPem = '-----BEGIN CERTIFICATE-----\nMIIBca\n-----END CERTIFICATE-----\n';

test('the admin kubeconfig is written at creation and its token authenticates as the admin', async () => {
  const dataDir = freshDataDir();
  const store = TokenStore.open(dataDir, nodeherdIdentities);
  const path = adminKubeconfigPath(dataDir);
  assert.equal(path, join(dataDir, 'kubeconfig'));
  const credential = await ensureCredential(store, {
    kind: 'admin',
    path,
    server: 'https://127.0.0.1:6443',
    caPem,
  });
  assert.equal(credential.issued, true);
  assert.equal(credential.written, true);
  assert.equal(statSync(path).mode & 0o777, 0o600);

  const kc = new KubeConfig();
  kc.loadFromFile(path);
  assert.equal(kc.getCurrentUser()?.name, ADMIN_USER);
  assert.equal(kc.getCurrentCluster()?.server, 'https://127.0.0.1:6443');
  const token = kc.getCurrentUser()?.token ?? '';
  assert.equal(token, credential.token);
  assert.equal(store.authenticate(`Bearer ${token}`)?.kind, 'admin');
});

test('a working kubeconfig is kept; a new server URL rewrites it with the same token', async () => {
  const dataDir = freshDataDir();
  const store = TokenStore.open(dataDir, nodeherdIdentities);
  const path = join(dataDir, 'controller.kubeconfig');
  const request = { kind: 'controller' as const, path, server: 'https://127.0.0.1:6443', caPem };
  const first = await ensureCredential(store, request);
  const mtime = statSync(path).mtimeMs;

  const unchanged = await ensureCredential(TokenStore.open(dataDir, nodeherdIdentities), request);
  assert.deepEqual(
    { issued: unchanged.issued, written: unchanged.written },
    { issued: false, written: false },
  );
  assert.equal(unchanged.token, first.token);
  assert.equal(statSync(path).mtimeMs, mtime);

  const moved = await ensureCredential(store, {
    ...request,
    server: 'https://127.0.0.1:7000',
    namespace: 'nodeherd',
  });
  assert.deepEqual({ issued: moved.issued, written: moved.written }, { issued: false, written: true });
  assert.equal(moved.token, first.token);
  const onDisk = await readKubeconfigFile(path);
  assert.equal(onDisk?.server, 'https://127.0.0.1:7000');
  assert.equal(onDisk?.namespace, 'nodeherd');
});

test('a lost kubeconfig gets a rotated token and the lost one stops working', async () => {
  const dataDir = freshDataDir();
  const store = TokenStore.open(dataDir, nodeherdIdentities);
  const path = join(dataDir, 'agents', 'n1.kubeconfig');
  const request = { kind: 'node' as const, nodeName: 'n1', path, server: 'https://10.0.0.1:6443', caPem };
  const first = await ensureCredential(store, request);
  unlinkSync(path);
  const second = await ensureCredential(store, request);
  assert.equal(second.issued, true);
  assert.notEqual(second.token, first.token);
  assert.equal(store.authenticateToken(first.token), undefined);
  assert.equal(store.authenticateToken(second.token)?.nodeName, 'n1');
});

test("a kubeconfig holding another identity's token is replaced, not trusted", async () => {
  const dataDir = freshDataDir();
  const store = TokenStore.open(dataDir, nodeherdIdentities);
  const n1Path = join(dataDir, 'n1.kubeconfig');
  const n2Path = join(dataDir, 'n2.kubeconfig');
  const base = { server: 'https://10.0.0.1:6443', caPem };
  const n1 = await ensureCredential(store, { ...base, kind: 'node', nodeName: 'n1', path: n1Path });
  await ensureCredential(store, { ...base, kind: 'node', nodeName: 'n2', path: n2Path });
  copyFileSync(n1Path, n2Path);
  const n2 = await ensureCredential(store, { ...base, kind: 'node', nodeName: 'n2', path: n2Path });
  assert.equal(n2.issued, true);
  assert.notEqual(n2.token, n1.token);
  assert.equal(store.authenticateToken(n2.token)?.nodeName, 'n2');
  assert.equal(store.authenticateToken(n1.token)?.nodeName, 'n1', "n1's own token keeps working");
  assert.equal((await readKubeconfigFile(n2Path))?.userName, 'nodeherd:agent:n2');
});

test('the kubeconfig can be given to another owner (e.g. inside a container root)', async (t) => {
  if (process.getuid?.() !== 0) return t.skip('changing owners needs root');
  const dataDir = freshDataDir();
  const path = join(dataDir, 'owned.kubeconfig');
  await ensureCredential(TokenStore.open(dataDir, nodeherdIdentities), {
    kind: 'node',
    nodeName: 'c1',
    path,
    server: 'https://10.0.0.1:6443',
    caPem,
    uid: 1500,
    gid: 1501,
  });
  const stat = statSync(path);
  assert.deepEqual([stat.uid, stat.gid, stat.mode & 0o777], [1500, 1501, 0o600]);
});
