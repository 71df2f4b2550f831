// The Prometheus client against a real Prometheus scraping an exporter the test controls, plus the
// failures a gate must survive: no server, no answer, a refusal. Credentials are sent as a header
// and never appear in an error.

import assert from 'node:assert/strict';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { evaluateAlertGates } from '../../../src/controller/gates/alert-gate.ts';
import { evaluateMetricGate } from '../../../src/controller/gates/metric-gate.ts';
import { PrometheusClient, PrometheusError } from '../../../src/controller/gates/prometheus-client.ts';
import { freePort, prometheusMissing, TestExporter, TestPrometheus } from '../../support/prometheus.ts';

const RULES = `groups:
  - name: gate-test
    rules:
      - alert: GateTestHigh
        expr: gate_test_value > 1
        for: 0s
        labels:
          severity: critical
`;

describe('PrometheusClient against a real Prometheus', { skip: prometheusMissing }, () => {
  let exporter: TestExporter;
  let prometheus: TestPrometheus;
  let client: PrometheusClient;
  before(async () => {
    exporter = await TestExporter.start();
    exporter.set('gate_test_value', 0.5);
    prometheus = await TestPrometheus.start({ targets: [exporter.address], rules: RULES });
    client = new PrometheusClient({ url: prometheus.url, timeoutMs: 5_000 });
    await prometheus.waitForValue('gate_test_value', 0.5);
  });
  after(async () => {
    await prometheus?.stop();
    await exporter?.stop();
  });

  test('an instant vector', async () => {
    const result = await client.query('gate_test_value');
    assert.equal(result.type, 'vector');
    assert.ok(result.type === 'vector');
    assert.equal(result.samples.length, 1);
    assert.equal(result.samples[0]!.value, 0.5);
    assert.equal(result.samples[0]!.labels.job, 'test');
    assert.equal(
      evaluateMetricGate({ name: 'v', query: 'gate_test_value', operator: '<', threshold: 1 }, result).state,
      'pass',
    );
  });

  test('a scalar, no series, NaN and a range vector', async () => {
    const scalar = await client.query('scalar(gate_test_value)');
    assert.deepEqual(scalar, { type: 'scalar', samples: [{ labels: {}, value: 0.5 }] });
    assert.deepEqual(await client.query('gate_test_missing'), { type: 'vector', samples: [] });
    const nan = await client.query('gate_test_value * 0 / 0');
    assert.ok(nan.type === 'vector' && Number.isNaN(nan.samples[0]!.value));
    assert.deepEqual(await client.query('gate_test_value[1m]'), { type: 'matrix' });
  });

  test('a query Prometheus refuses is an error that says why', async () => {
    await assert.rejects(client.query('sum('), (err: Error) => {
      assert.ok(err instanceof PrometheusError);
      assert.match(err.message, /\/api\/v1\/query: HTTP 400: bad_data: /);
      return true;
    });
  });

  test('alerts: firing once the value crosses, by the rule file alone', async () => {
    assert.equal(evaluateAlertGates([{ alertname: 'GateTest.*' }], await client.alerts()).state, 'pass');
    exporter.set('gate_test_value', 2);
    await prometheus.waitForAlert('GateTestHigh', 'firing');
    const check = evaluateAlertGates([{ matchLabels: { severity: 'critical' } }], await client.alerts());
    assert.equal(check.state, 'fail');
    assert.match(check.message, /^alert firing: GateTestHigh\{.*severity="critical"/);
    exporter.set('gate_test_value', 0.5);
    await prometheus.waitForAlert('GateTestHigh', 'inactive');
  });
});

describe('PrometheusClient when Prometheus cannot answer', () => {
  let server: Server;
  let url = '';
  let seen: IncomingHttpHeaders | undefined;
  let reply: 'hang' | 'unauthorized' | 'ok' = 'ok';
  before(async () => {
    server = createServer((req, res) => {
      seen = req.headers;
      if (reply === 'hang') return;
      if (reply === 'unauthorized') {
        res.writeHead(401).end('Unauthorized\n');
        return;
      }
      res
        .writeHead(200, { 'content-type': 'application/json' })
        .end(JSON.stringify({ status: 'success', data: { resultType: 'vector', result: [] } }));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  after(async () => {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });

  test('nothing listening', async () => {
    const down = new PrometheusClient({ url: `http://127.0.0.1:${await freePort()}`, timeoutMs: 2_000 });
    await assert.rejects(down.query('up'), /ECONNREFUSED/);
  });

  test('no answer within the timeout', async () => {
    reply = 'hang';
    const slow = new PrometheusClient({ url, timeoutMs: 300 });
    await assert.rejects(slow.alerts(), /api\/v1\/alerts: no answer within 300 ms/);
  });

  test('a bearer token and basic auth go in the Authorization header', async () => {
    reply = 'ok';
    await new PrometheusClient({
      url,
      timeoutMs: 2_000,
      credentials: { kind: 'bearer', token: 'tok3n' },
    }).query('up');
    assert.equal(seen?.authorization, 'Bearer tok3n');
    await new PrometheusClient({
      url: `${url}/prefix`,
      timeoutMs: 2_000,
      credentials: { kind: 'basic', username: 'u', password: 'pw' },
    }).query('up');
    assert.equal(seen?.authorization, `Basic ${Buffer.from('u:pw').toString('base64')}`);
  });

  test('a refusal is an error without the credentials', async () => {
    reply = 'unauthorized';
    const client = new PrometheusClient({
      url,
      timeoutMs: 2_000,
      credentials: { kind: 'bearer', token: 'tok3n' },
    });
    await assert.rejects(client.query('up'), (err: Error) => {
      assert.match(err.message, /HTTP 401: Unauthorized/);
      assert.ok(!err.message.includes('tok3n'));
      return true;
    });
  });
});
