import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { AGENTS_GROUP, CONTROLLER_USER } from '../../../src/api/users.ts';
import { ADMIN_USER, MASTERS_GROUP } from '../../../src/apiserver/auth/identities.ts';
import {
  bearerToken,
  LEGACY_TOKENS_FILE,
  TOKENS_DB,
  TokenStore,
} from '../../../src/apiserver/auth/tokens.ts';
import { nodeherdIdentities } from '../../../src/profile/nodeherd-identities.ts';

const root = mkdtempSync(join(tmpdir(), 'nodeherd-tokens-'));
after(() => rmSync(root, { recursive: true, force: true }));

let dirs = 0;
function freshDataDir(): string {
  return mkdtempSync(join(root, `data-${dirs++}-`));
}

test('identities are named like Kubernetes users', () => {
  assert.deepEqual(nodeherdIdentities.identityFor('admin'), {
    kind: 'admin',
    name: 'nodeherd:admin',
    groups: ['system:masters', 'system:authenticated'],
  });
  assert.equal(
    nodeherdIdentities.identityFor('controller').name,
    'system:serviceaccount:nodeherd:nodeherd-controller',
  );
  assert.deepEqual(nodeherdIdentities.identityFor('node', 'worker-1.zone-a'), {
    kind: 'node',
    name: 'nodeherd:agent:worker-1.zone-a',
    groups: ['nodeherd:agents', 'system:authenticated'],
    nodeName: 'worker-1.zone-a',
  });
  assert.throws(() => nodeherdIdentities.identityFor('node'), /valid node name/);
  assert.throws(() => nodeherdIdentities.identityFor('node', 'Bad_Name'), /valid node name/);
  assert.throws(() => nodeherdIdentities.identityFor('admin', 'n1'), /no node name/);
});

test('a created identity gets a 32-byte base64url token, returned once, stored only as a hash', async () => {
  const dataDir = freshDataDir();
  const store = TokenStore.open(dataDir, nodeherdIdentities);
  const created = await store.ensureIdentity('admin');
  assert.equal(created.created, true);
  assert.equal(created.identity.name, ADMIN_USER);
  const token = created.token ?? '';
  assert.match(token, /^[A-Za-z0-9_-]{43}$/);
  assert.equal(Buffer.from(token, 'base64url').length, 32);

  const again = await store.ensureIdentity('admin');
  assert.equal(again.created, false);
  assert.equal(again.token, undefined);

  const path = join(dataDir, TOKENS_DB);
  const hash = createHash('sha256').update(token).digest();
  let onDisk = Buffer.alloc(0);
  for (const file of [path, `${path}-wal`]) {
    if (!existsSync(file)) continue;
    assert.equal(statSync(file).mode & 0o777, 0o600, `${file} is private`);
    onDisk = Buffer.concat([onDisk, readFileSync(file)]);
  }
  assert.equal(onDisk.includes(token), false, 'the plaintext token must not be on disk');
  assert.equal(onDisk.includes(hash), true, 'its hash is');
  assert.equal(store.list().length, 1);
});

test('authenticate maps a Bearer header to its identity and rejects everything else', async () => {
  const store = TokenStore.open(freshDataDir(), nodeherdIdentities);
  const admin = (await store.ensureIdentity('admin')).token ?? '';
  const controller = (await store.ensureIdentity('controller')).token ?? '';
  const agent = (await store.ensureIdentity('node', 'n1')).token ?? '';

  assert.equal(store.authenticate(`Bearer ${admin}`)?.groups.includes(MASTERS_GROUP), true);
  assert.equal(store.authenticate(`bearer ${controller}`)?.name, CONTROLLER_USER);
  const node = store.authenticate(`Bearer  ${agent} `);
  assert.equal(node?.nodeName, 'n1');
  assert.equal(node?.groups.includes(AGENTS_GROUP), true);

  for (const header of [
    undefined,
    '',
    'Bearer',
    'Bearer ',
    admin,
    `Basic ${admin}`,
    `Bearer ${admin}x`,
    `Bearer ${admin.slice(0, -1)}`,
    `Bearer ${admin} ${admin}`,
    `Bearer ${'a'.repeat(5000)}`,
  ]) {
    assert.equal(store.authenticate(header), undefined, `header ${JSON.stringify(header?.slice(0, 60))}`);
  }
  assert.equal(bearerToken('Bearer abc'), 'abc');
  assert.equal(bearerToken('Token abc'), undefined);
});

test('rotate issues a new token and the old one stops working; revoke removes the identity', async () => {
  const store = TokenStore.open(freshDataDir(), nodeherdIdentities);
  const first = (await store.ensureIdentity('node', 'n1')).token ?? '';
  const other = (await store.ensureIdentity('node', 'n2')).token ?? '';
  const rotated = await store.rotate('node', 'n1');
  assert.notEqual(rotated.token, first);
  assert.equal(store.authenticateToken(first), undefined);
  assert.equal(store.authenticateToken(rotated.token)?.nodeName, 'n1');
  assert.equal(store.authenticateToken(other)?.nodeName, 'n2', 'rotating n1 must not touch n2');
  assert.equal(store.list().length, 2);

  assert.equal(await store.revoke('node', 'n1'), true);
  assert.equal(await store.revoke('node', 'n1'), false);
  assert.equal(store.authenticateToken(rotated.token), undefined);
  assert.equal(store.get('node', 'n1'), undefined);
  assert.deepEqual(
    store.list().map((identity) => identity.name),
    ['nodeherd:agent:n2'],
  );
  // rotate also creates a missing identity.
  const fresh = await store.rotate('controller');
  assert.equal(store.authenticateToken(fresh.token)?.kind, 'controller');
});

test('the store survives a restart and sees changes made by another process', async () => {
  const dataDir = freshDataDir();
  const server = TokenStore.open(dataDir, nodeherdIdentities);
  const admin = (await server.ensureIdentity('admin')).token ?? '';

  const reopened = TokenStore.open(dataDir, nodeherdIdentities);
  assert.equal(reopened.authenticateToken(admin)?.name, ADMIN_USER);

  // The CLI adds a node while the server runs: the server accepts its token at once.
  const cli = TokenStore.open(dataDir, nodeherdIdentities);
  const agent = (await cli.ensureIdentity('node', 'late-node')).token ?? '';
  assert.equal(server.authenticateToken(agent)?.nodeName, 'late-node');

  // The server has accepted the admin token, and keeps who holds it. The CLI revokes it: the server
  // stops accepting it within its recheck interval (50 ms), and the CLI's rotation of a node's token
  // likewise.
  assert.equal(server.authenticateToken(admin)?.name, ADMIN_USER);
  assert.equal(server.authenticateToken(agent)?.nodeName, 'late-node');
  await cli.revoke('admin');
  const rotated = await cli.rotate('node', 'late-node');
  await new Promise((resolve) => setTimeout(resolve, 100));
  assert.equal(server.authenticateToken(admin), undefined);
  assert.equal(server.authenticateToken(agent), undefined);
  assert.equal(server.authenticateToken(rotated.token)?.nodeName, 'late-node');
});

test('an identity found once is kept, frozen, until the store or another process writes', async () => {
  const dataDir = freshDataDir();
  const server = TokenStore.open(dataDir, nodeherdIdentities);
  const token = (await server.ensureIdentity('node', 'n1')).token ?? '';
  const first = server.authenticateToken(token);
  assert.ok(first && Object.isFrozen(first) && Object.isFrozen(first.groups));
  assert.equal(server.authenticateToken(token), first, 'the second request is answered from what was kept');
  // A write of this store forgets what was kept (the identity is found again, equal but new).
  await server.ensureIdentity('node', 'n2');
  const again = server.authenticateToken(token);
  assert.notEqual(again, first);
  assert.deepEqual(again, first);
  // A write of another process, once the recheck interval has passed, too.
  await TokenStore.open(dataDir, nodeherdIdentities).ensureIdentity('node', 'n3');
  await new Promise((resolve) => setTimeout(resolve, 100));
  assert.notEqual(server.authenticateToken(token), again);
});

test('concurrent changes in one process are all kept', async () => {
  const dataDir = freshDataDir();
  const store = TokenStore.open(dataDir, nodeherdIdentities);
  const names = Array.from({ length: 20 }, (_, i) => `node-${i}`);
  const results = await Promise.all(names.map((name) => store.ensureIdentity('node', name)));
  assert.ok(results.every((result) => result.created && result.token));
  const reopened = TokenStore.open(dataDir, nodeherdIdentities);
  assert.equal(reopened.list().length, 20);
  for (const [i, result] of results.entries()) {
    assert.equal(reopened.authenticateToken(result.token ?? '')?.nodeName, names[i]);
  }
});

test('a corrupt legacy token file is reported, not silently replaced', () => {
  const dataDir = freshDataDir();
  writeFileSync(join(dataDir, LEGACY_TOKENS_FILE), JSON.stringify({ version: 99, identities: [] }));
  assert.throws(() => TokenStore.open(dataDir, nodeherdIdentities), /unsupported token store format/);
});

test('a tokens.json of an earlier build is imported once and removed', async () => {
  const dataDir = freshDataDir();
  const tokens = ['admin-token', 'node-token'];
  const hashOf = (token: string) => createHash('sha256').update(token).digest('hex');
  writeFileSync(
    join(dataDir, LEGACY_TOKENS_FILE),
    JSON.stringify({
      version: 1,
      identities: [
        {
          kind: 'admin',
          name: ADMIN_USER,
          tokenSha256: hashOf(tokens[0]!),
          createdAt: '2026-01-01T00:00:00Z',
        },
        {
          kind: 'node',
          name: 'nodeherd:agent:n1',
          nodeName: 'n1',
          tokenSha256: hashOf(tokens[1]!),
          createdAt: '2026-01-01T00:00:00Z',
        },
      ],
    }),
  );
  const store = TokenStore.open(dataDir, nodeherdIdentities);
  assert.equal(existsSync(join(dataDir, LEGACY_TOKENS_FILE)), false, 'the legacy file is gone');
  assert.equal(store.authenticateToken(tokens[0]!)?.name, ADMIN_USER);
  assert.equal(store.authenticateToken(tokens[1]!)?.nodeName, 'n1');

  // A stale copy reappearing (a crash between import and removal) does not undo a later change.
  await store.revoke('node', 'n1');
  writeFileSync(
    join(dataDir, LEGACY_TOKENS_FILE),
    JSON.stringify({
      version: 1,
      identities: [
        {
          kind: 'node',
          name: 'nodeherd:agent:n1',
          nodeName: 'n1',
          tokenSha256: hashOf(tokens[1]!),
          createdAt: 'x',
        },
      ],
    }),
  );
  const reopened = TokenStore.open(dataDir, nodeherdIdentities);
  assert.equal(reopened.authenticateToken(tokens[1]!), undefined);
  assert.equal(existsSync(join(dataDir, LEGACY_TOKENS_FILE)), false);
});
