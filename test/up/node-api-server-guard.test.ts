// `nodeherd up` serves every simulated node's local API on one port; it answers like a node's own
// agent would: requests under a foreign Host, or state-changing ones a web page could send, are 403
// with a JSON Status — for the node routes and for the /nodes listing — while curl's requests pass.

import assert from 'node:assert/strict';
import { request } from 'node:http';
import { after, before, test } from 'node:test';
import { RouteTable } from '../../src/agent/http/route-table.ts';
import { NodeApiServer } from '../../src/up/node-api-server.ts';

function send(port: number, method: string, path: string, headers: Record<string, string>) {
  return new Promise<{ status: number; body: string }>((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, method, path, headers, setHost: false }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        body += chunk;
      });
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on('error', reject);
    req.end();
  });
}

let server: NodeApiServer;
let applied = 0;

before(async () => {
  server = await NodeApiServer.listen({ port: 0 });
  const routes = new RouteTable();
  routes.route('POST', '/v1/update', (_req, res) => {
    applied++;
    res.statusCode = 202;
    res.end('{}');
  });
  server.serve({ names: ['sim-0001'], localApi: (node) => (node === 'sim-0001' ? routes : undefined) });
});
after(() => server.close());

test('curl reaches the node routes and the listing', async () => {
  const host = { host: `127.0.0.1:${server.port}` };
  assert.equal((await send(server.port, 'POST', '/nodes/sim-0001/v1/update', host)).status, 202);
  assert.equal((await send(server.port, 'GET', '/nodes', { host: `localhost:${server.port}` })).status, 200);
  assert.equal(applied, 1);
});

test('a rebound name or a web page is refused, on the listing and on the node routes', async () => {
  const before = applied;
  const attempts: [string, string, Record<string, string>][] = [
    ['GET', '/nodes', { host: 'rebind.attacker.test' }],
    ['POST', '/nodes/sim-0001/v1/update', { host: `evil.example:${server.port}` }],
    [
      'POST',
      '/nodes/sim-0001/v1/update',
      { host: `127.0.0.1:${server.port}`, origin: 'https://evil.example' },
    ],
    ['POST', '/nodes/sim-0001/v1/update', { host: `127.0.0.1:${server.port}`, 'content-type': 'text/plain' }],
  ];
  for (const [method, path, headers] of attempts) {
    const answer = await send(server.port, method, path, headers);
    assert.equal(answer.status, 403, `${method} ${path} ${JSON.stringify(headers)}`);
    assert.equal(JSON.parse(answer.body).kind, 'Status');
  }
  assert.equal(applied, before);
});
