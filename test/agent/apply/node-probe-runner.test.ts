// The real probe runner on this machine: exec and HTTP probes, with the fractional remaining-deadline
// timeouts verify.ts hands it (child_process refuses those; every exec probe failed before).
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, it } from 'node:test';
import { NodeProbeRunner } from '../../../src/agent/apply/health-probe.ts';

describe('NodeProbeRunner', () => {
  const runner = new NodeProbeRunner();

  it('runs exec probes with a fractional timeout', async () => {
    const ok = await runner.run({ exec: { command: ['true'] } }, 4999.998);
    assert.deepEqual(ok, { ok: true, detail: 'true exited 0' });
    const failed = await runner.run({ exec: { command: ['false'] } }, 1234.5);
    assert.equal(failed.ok, false);
    assert.match(failed.detail, /^false: /);
  });

  it("keeps a failed exec probe's output for the failure excerpt (issue 36)", async () => {
    const failed = await runner.run(
      { exec: { command: ['sh', '-c', 'echo checked /healthz; echo "db: connection refused" >&2; exit 3'] } },
      5000,
    );
    assert.equal(failed.ok, false);
    assert.match(failed.output ?? '', /db: connection refused/);
    assert.match(failed.output ?? '', /checked \/healthz/);
  });

  it('reports a command that cannot run as a failed probe', async () => {
    const missing = await runner.run({ exec: { command: ['/nonexistent/nodeherd-probe'] } }, 1000);
    assert.equal(missing.ok, false);
    assert.match(missing.detail, /ENOENT/);
  });

  it('runs HTTP probes with a fractional timeout and checks the status', async () => {
    const server = createServer((request, response) => {
      response.statusCode = request.url === '/healthy' ? 200 : 503;
      response.end();
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    try {
      const ok = await runner.run({ http: { url: `http://127.0.0.1:${port}/healthy` } }, 2500.25);
      assert.equal(ok.ok, true);
      const bad = await runner.run({ http: { url: `http://127.0.0.1:${port}/sick` } }, 2500.25);
      assert.equal(bad.ok, false);
    } finally {
      server.close();
    }
  });
});
