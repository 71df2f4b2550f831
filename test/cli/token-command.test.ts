import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { after, before, test } from 'node:test';
import { promisify } from 'node:util';
import { LightKubeClient } from '../../src/kube/light/light-kube-client.ts';
import { type LocalApiServer, startLocalApiServer } from '../support/local-apiserver.ts';

const run = promisify(execFile);
let local: LocalApiServer;

before(async () => {
  local = await startLocalApiServer();
});
after(() => local.stop());

async function nodeherd(...args: string[]) {
  return run(process.execPath, ['bin/nodeherd.ts', ...args], {
    cwd: new URL('../..', import.meta.url).pathname,
  });
}

test('nodeherd token issues a node token the running server accepts for that node only; reissuing revokes the old one', async () => {
  const first = (await nodeherd('token', '--data-dir', local.dataDir, '--node', 'edge-1')).stdout.trim();
  const client = (token: string) =>
    new LightKubeClient({ server: local.server.url, caPem: local.server.caPem, token });
  await local.kubectl(['create', '-f', '-'], {
    input: JSON.stringify({ apiVersion: 'v1', kind: 'Node', metadata: { name: 'edge-1' } }),
  });
  const agent = client(first);
  assert.equal(
    (await agent.get<{ metadata: { name: string } }>('/api/v1/nodes/edge-1')).metadata.name,
    'edge-1',
  );
  await assert.rejects(agent.get('/api/v1/nodes'), (err: { status?: number }) => err.status === 403);
  agent.close();

  const second = (await nodeherd('token', '--data-dir', local.dataDir, '--node', 'edge-1')).stdout.trim();
  assert.notEqual(second, first);
  // The server notices another process's change to its token file within a second.
  const stale = client(first);
  const deadline = Date.now() + 3000;
  let status = 200;
  while (Date.now() < deadline) {
    status = await stale.get('/api/v1/nodes/edge-1').then(
      () => 200,
      (err: { status?: number }) => err.status ?? 0,
    );
    if (status === 401) break;
    await new Promise((r) => setTimeout(r, 200));
  }
  assert.equal(status, 401, 'the replaced token is refused');
  stale.close();
});

test('nodeherd token refuses an invalid node name and changes nothing', async () => {
  await assert.rejects(
    nodeherd('token', '--data-dir', local.dataDir, '--node', 'Not_A_Name'),
    (err: { stderr?: string }) => /must be a valid Node name/.test(err.stderr ?? ''),
  );
});
