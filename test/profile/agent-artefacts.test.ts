import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { request } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { type LocalApiServer, startLocalApiServer } from '../support/local-apiserver.ts';

let local: LocalApiServer;
let artefacts: string;

before(async () => {
  artefacts = mkdtempSync(join(tmpdir(), 'nodeherd-artefacts-'));
  writeFileSync(join(artefacts, 'nodeherd-agent.mjs'), 'console.log("agent")\n');
  writeFileSync(join(artefacts, 'nodeherd-agent.mjs.sha256'), 'abc  nodeherd-agent.mjs\n');
  local = await startLocalApiServer({ artefactDirectory: artefacts });
});
after(async () => {
  await local.stop();
  rmSync(artefacts, { recursive: true, force: true });
});

function get(path: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const url = new URL(path, local.server.url);
    const req = request(url, { ca: local.server.caPem }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk) => {
        body += chunk;
      });
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on('error', reject);
    req.end();
  });
}

test('the control plane serves the agent artefacts over HTTPS without a token, and nothing outside them', async () => {
  const agent = await get('/nodeherd/agent/nodeherd-agent.mjs');
  assert.equal(agent.status, 200);
  assert.equal(agent.body, 'console.log("agent")\n');
  assert.equal((await get('/nodeherd/agent/nodeherd-agent.mjs.sha256')).body, 'abc  nodeherd-agent.mjs\n');
  assert.equal((await get('/nodeherd/agent/..%2Fkubeconfig')).status, 404);
  assert.equal((await get('/nodeherd/agent/missing')).status, 404);
  // Everything else still needs a token.
  assert.equal((await get('/api/v1/namespaces')).status, 401);
});
