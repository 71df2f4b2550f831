// The local endpoint over real HTTP: /healthz, /metrics, unknown paths and methods.

import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { createServer } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { promisify } from 'node:util';
import { AgentHttpServer } from '../../../src/agent/http/agent-http-server.ts';

const execFileAsync = promisify(execFile);
const SERVER_MODULE = new URL('../../../src/agent/http/agent-http-server.ts', import.meta.url).href;

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

describe('agent HTTP endpoint: binding', () => {
  it('binds an IP address without loading node:dns (issue 17: ~1 MB of idle RSS)', async () => {
    const script = `
      import { AgentHttpServer } from ${JSON.stringify(SERVER_MODULE)};
      const server = new AgentHttpServer({ health: () => ({ healthy: true, body: {} }), renderMetrics: () => '' }, { port: 0 });
      const address = await server.listen();
      const answer = await fetch('http://127.0.0.1:' + address.port + '/healthz');
      console.log(JSON.stringify({ address, status: answer.status, dns: process.moduleLoadList.includes('NativeModule dns') }));
      await server.close();`;
    const { stdout } = await execFileAsync(process.execPath, ['--input-type=module', '-e', script]);
    const result = JSON.parse(stdout) as { address: { host: string }; status: number; dns: boolean };
    assert.equal(result.address.host, '127.0.0.1');
    assert.equal(result.status, 200);
    assert.equal(result.dns, false);
  });

  it('still takes a host name, and says when the port is taken', async () => {
    const named = new AgentHttpServer(
      { health: () => ({ healthy: true, body: {} }), renderMetrics: () => '' },
      { host: 'localhost', port: 0 },
    );
    const address = await named.listen();
    assert.ok(['127.0.0.1', '::1'].includes(address.host), address.host);
    await named.close();

    const squatter = createServer();
    const port = await new Promise<number>((resolve) =>
      squatter.listen(0, '127.0.0.1', () => resolve((squatter.address() as { port: number }).port)),
    );
    try {
      const busy = new AgentHttpServer(
        { health: () => ({ healthy: true, body: {} }), renderMetrics: () => '' },
        { port },
      );
      await assert.rejects(busy.listen(), /EADDRINUSE/);
    } finally {
      squatter.close();
    }
  });
});
