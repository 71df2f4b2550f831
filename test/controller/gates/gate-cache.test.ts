// The health gate keeps Prometheus' answer for intervalSeconds, but only for the revision it was read
// for: an answer from the end of one rollout must not start the first batch of the next. Against a
// small HTTP server speaking Prometheus' alerts API, whose answer the test changes.

import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import { after, before, test } from 'node:test';
import { type HealthGateSpec, HealthGates } from '../../../src/controller/gates/evaluate-gates.ts';

let server: Server;
let url = '';
let firing = false;
let asked = 0;

before(async () => {
  server = createServer((req, res) => {
    asked++;
    assert.equal(req.url, '/api/v1/alerts');
    const alerts = firing ? [{ labels: { alertname: 'Broken' }, state: 'firing', value: '1' }] : [];
    res.setHeader('content-type', 'application/json');
    res.end(JSON.stringify({ status: 'success', data: { alerts } }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
});
after(() => server.close());

test('an answer is reused within the interval for the same revision, never for another', async () => {
  const now = 1_000_000;
  const gates = new HealthGates({ secret: () => undefined, podsOn: () => [], now: () => now });
  const gate: HealthGateSpec = {
    prometheus: { url, intervalSeconds: 60, timeoutSeconds: 5 },
    alerts: [{ alertname: 'Broken' }],
  } as HealthGateSpec;
  const input = (revision: string) => ({ revision, starting: [], checkPrometheus: true });

  assert.equal((await gates.check('pool', gate, input('rev-1'))).verdict, 'pass');
  firing = true;
  // Same revision, within the interval: the kept answer, Prometheus not asked.
  assert.equal((await gates.check('pool', gate, input('rev-1'))).verdict, 'pass');
  assert.equal(asked, 1);
  // A new revision asks again and sees the alert.
  const next = await gates.check('pool', gate, input('rev-2'));
  assert.equal(next.verdict, 'fail');
  assert.match(next.message, /Broken/);
  assert.equal(asked, 2);
});
