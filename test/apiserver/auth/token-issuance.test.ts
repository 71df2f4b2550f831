// Issuing a credential per node must scale to fleets: every issued token is durable on its own and all
// of them authenticate after a restart (timing belongs to bench/apiserver-tokens.bench.ts).

import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { TokenStore } from '../../../src/apiserver/auth/tokens.ts';
import { nodeherdIdentities } from '../../../src/profile/nodeherd-identities.ts';

const NODES = 2000;

const root = mkdtempSync(join(tmpdir(), 'nodeherd-token-issuance-'));
after(() => rmSync(root, { recursive: true, force: true }));

test(`${NODES} issued node tokens all authenticate after a restart`, async () => {
  const store = TokenStore.open(root, nodeherdIdentities);
  const issued: { name: string; token: string }[] = [];
  for (let i = 0; i < NODES; i++) {
    const name = `node-${i}`;
    const ensured = await store.ensureIdentity('node', name);
    assert.equal(ensured.created, true);
    issued.push({ name, token: ensured.token ?? '' });
  }
  // Some rotate: only their newest token may work.
  const rotated = new Map<string, string>();
  for (let i = 0; i < NODES; i += 97) {
    const name = `node-${i}`;
    rotated.set(name, (await store.rotate('node', name)).token);
  }
  store.close();

  const reopened = TokenStore.open(root, nodeherdIdentities);
  assert.equal(reopened.list().length, NODES);
  for (const { name, token } of issued) {
    const newer = rotated.get(name);
    if (newer === undefined) {
      assert.equal(reopened.authenticateToken(token)?.nodeName, name);
    } else {
      assert.equal(reopened.authenticateToken(token), undefined, `${name}'s rotated-out token`);
      assert.equal(reopened.authenticateToken(newer)?.nodeName, name);
    }
  }
  reopened.close();
});
