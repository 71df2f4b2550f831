// The data dir holds every Secret, the keys and the token hashes: whatever modes its files had before
// (a backup restored, a dir made by hand, an older build), the server makes them private when it starts.

import assert from 'node:assert/strict';
import { chmodSync, existsSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { privateFilesOf } from '../../src/apiserver/data-dir-permissions.ts';
import { startLocalApiServer } from '../support/local-apiserver.ts';

const modeOf = (path: string) => statSync(path).mode & 0o777;

test('secrets and keys are 0600 and the data dir 0700 after every start, whatever they were', async () => {
  const local = await startLocalApiServer();
  try {
    // A write, so state.db has its WAL beside it.
    const res = await local.kubectl(['create', 'secret', 'generic', 's', '--from-literal=k=v']);
    assert.equal(res.code, 0, res.stderr);
    const present = privateFilesOf(local.dataDir).filter((path) => existsSync(path));
    for (const name of [
      'state.db',
      'state.db-wal',
      'tokens.db',
      'kubeconfig',
      'pki/ca.key',
      'pki/server.key',
    ]) {
      assert.ok(present.includes(join(local.dataDir, name)), `${name} exists`);
    }
    for (const path of present) assert.equal(modeOf(path), 0o600, path);
    assert.equal(modeOf(local.dataDir), 0o700);

    // Loosened, as a restore or a careless chmod -R would leave them; then the server starts again.
    chmodSync(local.dataDir, 0o755);
    chmodSync(join(local.dataDir, 'pki'), 0o755);
    for (const path of present) chmodSync(path, 0o644);
    await local.restart();
    for (const path of privateFilesOf(local.dataDir).filter((p) => existsSync(p))) {
      assert.equal(modeOf(path), 0o600, `${path} after restart`);
    }
    assert.equal(modeOf(local.dataDir), 0o700);
    assert.equal(modeOf(join(local.dataDir, 'pki')), 0o700);
  } finally {
    await local.stop();
  }
});
