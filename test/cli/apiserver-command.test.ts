// `nodeherd apiserver --agent-artefacts DIR` serves the built agent at /nodeherd/agent/ before
// authentication, as docs/real-nodes.md documents: a node downloads it with nothing but the CA.

import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { request } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import {
  adminCredential,
  killServerProcess,
  type ServerProcess,
  startServerProcess,
} from '../apiserver/durability/server-process.ts';

let server: ServerProcess | undefined;
const dirs: string[] = [];

after(async () => {
  await killServerProcess(server);
  for (const dir of dirs) await rm(dir, { recursive: true, force: true });
});

function get(
  url: string,
  ca: Buffer,
): Promise<{ status: number; headers: Record<string, unknown>; body: Buffer }> {
  return new Promise((resolve, reject) => {
    const req = request(url, { ca, agent: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () =>
        resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }),
      );
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end();
  });
}

test('apiserver --agent-artefacts serves the agent to a node that has only the CA', async () => {
  const dataDir = await mkdtemp(join(tmpdir(), 'nodeherd-apiserver-artefacts-'));
  const artefacts = await mkdtemp(join(tmpdir(), 'nodeherd-artefacts-'));
  dirs.push(dataDir, artefacts);
  const bundle = Buffer.from('// nodeherd-agent test bundle\n');
  const digest = createHash('sha256').update(bundle).digest('hex');
  await writeFile(join(artefacts, 'nodeherd-agent.mjs'), bundle);
  await writeFile(join(artefacts, 'nodeherd-agent.mjs.sha256'), `${digest}  nodeherd-agent.mjs\n`);

  server = await startServerProcess(dataDir, 0, ['--agent-artefacts', artefacts]);
  const { ca } = adminCredential(dataDir);
  const response = await get(`${server.url}/nodeherd/agent/nodeherd-agent.mjs`, ca);
  assert.equal(response.status, 200, response.body.toString());
  assert.deepEqual(response.body, bundle);
  assert.equal(response.headers.etag, `"${digest}"`);
  // Only the artefacts are public: the API itself still wants a credential.
  assert.equal((await get(`${server.url}/api/v1/namespaces`, ca)).status, 401);
});
