// The comparison gate against a real Prometheus scraping series labelled by node: the updated nodes'
// mean judged against the others', asked with one query per side (a POST form), failing when the
// updated side is worse by more than the margin, and judging nothing below the minimum sample.

import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import {
  type CompareGateSpec,
  checkComparison,
  queryFor,
} from '../../../src/controller/gates/compare-gate.ts';
import { compareNodeSets } from '../../../src/controller/gates/gate-step.ts';
import { PrometheusClient } from '../../../src/controller/gates/prometheus-client.ts';
import { prometheusMissing, TestPrometheus } from '../../support/prometheus.ts';

/** Serves gauges with a `node` label; values the test sets. */
class NodeExporter {
  readonly values = new Map<string, Map<string, number>>();
  private readonly server: Server;
  address = '';
  constructor() {
    this.server = createServer((req, res) => {
      const lines: string[] = [];
      for (const [metric, byNode] of this.values) {
        lines.push(`# TYPE ${metric} gauge`);
        for (const [node, value] of byNode) lines.push(`${metric}{node=${JSON.stringify(node)}} ${value}`);
      }
      res.writeHead(req.url === '/metrics' ? 200 : 404, { 'content-type': 'text/plain; version=0.0.4' });
      res.end(`${lines.join('\n')}\n`);
    });
  }
  async start(): Promise<void> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    this.address = `127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }
  set(metric: string, values: Record<string, number>): void {
    this.values.set(metric, new Map(Object.entries(values)));
  }
  async stop(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}

function spec(overrides: Partial<CompareGateSpec>): CompareGateSpec {
  return {
    name: 'errors',
    query: 'test_errors{$NODES}',
    nodeLabel: 'node',
    worseWhen: 'Higher',
    margin: 50,
    marginUnit: 'Percent',
    minNodes: 3,
    ...overrides,
  };
}

// Dots in node names are regex metacharacters: `node-1.0` must not match `node-1x0`.
const updated = ['node-1.0', 'node-1.1', 'node-1.2', 'node-1.3'];
const rest = ['node-1x0', 'node-2.1', 'node-2.2', 'node-2.3'];

describe('comparison gate with a real Prometheus', { skip: prometheusMissing }, () => {
  const exporter = new NodeExporter();
  let prometheus: TestPrometheus;
  let client: PrometheusClient;
  before(async () => {
    await exporter.start();
    const values = (u: number, r: number) => ({
      ...Object.fromEntries(updated.map((n) => [n, u])),
      ...Object.fromEntries(rest.map((n) => [n, r])),
    });
    exporter.set('test_errors', values(5, 1)); // updated five times worse
    exporter.set('test_latency', values(1.2, 1)); // 20 % worse
    exporter.set('test_throughput', values(40, 100)); // lower is worse: 60 % worse
    exporter.set('test_errors_abs', values(0.3, 0)); // others at zero
    prometheus = await TestPrometheus.start({ targets: [exporter.address] });
    await prometheus.waitForValue('count(test_errors_abs)', 8);
    client = new PrometheusClient({ url: prometheus.url, timeoutMs: 5_000 });
  });
  after(async () => {
    await prometheus?.stop();
    await exporter.stop();
  });

  test('the updated side worse by more than the margin fails, naming both sides', async () => {
    const check = await checkComparison(spec({}), { updated, rest }, client);
    assert.equal(check.state, 'fail', check.message);
    assert.match(check.message, /updated 5 over 4 nodes, others 1 over 4/);
    assert.match(check.message, /worse by 400%, more than the margin 50%/);
  });

  test('within the margin passes', async () => {
    const check = await checkComparison(spec({ query: 'test_latency{$NODES}' }), { updated, rest }, client);
    assert.equal(check.state, 'pass', check.message);
    assert.match(check.message, /updated 1.2 over 4 nodes, others 1 over 4, within 50%/);
  });

  test('worseWhen Lower: less throughput on the updated side fails', async () => {
    const lower = spec({ query: 'test_throughput{$NODES}', worseWhen: 'Lower' });
    const check = await checkComparison(lower, { updated, rest }, client);
    assert.equal(check.state, 'fail', check.message);
    assert.match(check.message, /worse by 60%/);
    const higher = await checkComparison({ ...lower, worseWhen: 'Higher' }, { updated, rest }, client);
    assert.equal(higher.state, 'pass', higher.message);
  });

  test('an absolute margin against a side at zero', async () => {
    const q = 'test_errors_abs{$NODES}';
    const failing = await checkComparison(
      spec({ query: q, marginUnit: 'Absolute', margin: 0.1 }),
      { updated, rest },
      client,
    );
    assert.equal(failing.state, 'fail', failing.message);
    const passing = await checkComparison(
      spec({ query: q, marginUnit: 'Absolute', margin: 0.5 }),
      { updated, rest },
      client,
    );
    assert.equal(passing.state, 'pass', passing.message);
  });

  test('below the minimum sample the gate judges nothing: it neither fails nor holds', async () => {
    const few = await checkComparison(spec({ minNodes: 5 }), { updated, rest }, client);
    assert.equal(few.state, 'pass');
    assert.match(few.message, /not judged: 4 updated and 4 other nodes have a value, 5 each are needed/);
    // The first batch: no updated node yet. Nodes without series do not count either.
    const first = await checkComparison(spec({}), { updated: [], rest: [...rest, 'no-such-node'] }, client);
    assert.equal(first.state, 'pass');
    assert.match(first.message, /not judged: 0 updated and 4 other/);
  });

  test('each side is asked of exactly its nodes: a node of the other set never leaks in', async () => {
    // Half of the updated side, against the rest: the mean stays 5, the count says 2.
    const check = await checkComparison(
      spec({ minNodes: 2 }),
      { updated: ['node-1.0', 'node-1.1'], rest },
      client,
    );
    assert.match(check.message, /updated 5 over 2 nodes, others 1 over 4/);
    assert.equal(queryFor(spec({}), ['a.b', 'c']), 'test_errors{node=~"a\\\\.b|c"}');
  });

  test('a long node set goes in a POST form', async () => {
    // 20,000 names of 60 characters: a 1.2 MB matcher, more than Prometheus accepts in a URL (its 1 MB header limit).
    const many = Array.from(
      { length: 20_000 },
      (_, i) => `ip-10-0-${i}.eu-central-1.compute.internal.example.org-x`,
    );
    const check = await checkComparison(spec({}), { updated: [...updated, ...many], rest }, client);
    assert.equal(check.state, 'fail', check.message);
    assert.match(check.message, /updated 5 over 4 nodes/);
  });

  test('a query that is no instant vector cannot be judged: it holds', async () => {
    const check = await checkComparison(
      spec({ query: 'test_errors{$NODES}[1m]' }),
      { updated, rest },
      client,
    );
    assert.equal(check.state, 'unavailable');
    assert.match(check.message, /returns a matrix/);
  });

  test('an unreachable Prometheus holds, never passes', async () => {
    const gone = new PrometheusClient({ url: 'http://127.0.0.1:1', timeoutMs: 1_000 });
    const check = await checkComparison(spec({}), { updated, rest }, gone);
    assert.equal(check.state, 'unavailable');
    assert.match(check.message, /Prometheus cannot be asked/);
  });
});

describe('the node sets a comparison compares', () => {
  test('updated: on the revision; the rest: neither on it nor on their way to it', () => {
    const sets = compareNodeSets('r2', [
      { name: 'done', currentRevision: 'r2', desiredRevision: 'r2' },
      { name: 'applying', currentRevision: 'r1', desiredRevision: 'r2' },
      { name: 'waiting', currentRevision: 'r1', desiredRevision: 'r1' },
      { name: 'new', desiredRevision: undefined },
    ]);
    assert.deepEqual(sets, { updated: ['done'], rest: ['waiting', 'new'] });
  });
});
