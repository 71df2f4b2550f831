// The local endpoint over real HTTP: /healthz, /metrics, unknown paths and methods.

import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { AgentHttpServer } from '../../../src/agent/http/agent-http-server.ts';

describe('agent HTTP endpoint', () => {
  let healthy = true;
  const server = new AgentHttpServer(
    {
      health: () => ({ healthy, body: { state: healthy ? 'Done' : 'broken' } }),
      renderMetrics: () => '# TYPE x counter\nx 1\n',
    },
    { port: 0 },
  );
  let base = '';

  before(async () => {
    const address = await server.listen();
    assert.equal(address.host, '127.0.0.1', 'local only by default');
    base = `http://127.0.0.1:${address.port}`;
  });
  after(() => server.close());

  it('serves /healthz as JSON, 503 when unhealthy', async () => {
    let response = await fetch(`${base}/healthz`);
    assert.equal(response.status, 200);
    assert.deepEqual(await response.json(), { state: 'Done' });
    healthy = false;
    response = await fetch(`${base}/healthz`);
    assert.equal(response.status, 503);
    healthy = true;
  });

  it('serves /metrics in the Prometheus text format', async () => {
    const response = await fetch(`${base}/metrics`);
    assert.equal(response.status, 200);
    assert.match(response.headers.get('content-type') ?? '', /^text\/plain; version=0\.0\.4/);
    assert.equal(await response.text(), '# TYPE x counter\nx 1\n');
  });

  it('answers 404 and 405, and takes extra routes', async () => {
    assert.equal((await fetch(`${base}/nope`)).status, 404);
    assert.equal((await fetch(`${base}/metrics`, { method: 'POST' })).status, 405);
    server.route('POST', '/upgrade', (_req, res) => {
      res.statusCode = 202;
      res.end('ok');
    });
    assert.equal((await fetch(`${base}/upgrade`, { method: 'POST' })).status, 202);
    server.route('GET', '/boom', () => {
      throw new Error('handler broke');
    });
    const broken = await fetch(`${base}/boom`);
    assert.equal(broken.status, 500);
    assert.match(await broken.text(), /handler broke/);
  });

  it('matches {name} segments and hands their decoded values to the handler', async () => {
    server.route('POST', '/v1/namespaces/{namespace}/pods/{name}/upgrade', (_req, res, params) => {
      res.end(JSON.stringify(params));
    });
    const ok = await fetch(`${base}/v1/namespaces/kube-system/pods/a%2Db/upgrade`, { method: 'POST' });
    assert.deepEqual(await ok.json(), { namespace: 'kube-system', name: 'a-b' });
    assert.equal((await fetch(`${base}/v1/namespaces/x/pods/upgrade`, { method: 'POST' })).status, 404);
    assert.equal((await fetch(`${base}/v1/namespaces/x/pods/y/upgrade`)).status, 405);
  });
});
