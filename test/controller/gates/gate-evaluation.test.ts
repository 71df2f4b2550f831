// Pure evaluation of the health gate: metric results against thresholds, alerts against matchers,
// blocking pods, the Secret's credentials, and how the checks combine into pass, hold or fail.

import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { evaluateAlertGates } from '../../../src/controller/gates/alert-gate.ts';
import { blockingPodsMessage } from '../../../src/controller/gates/blocking-pods.ts';
import { combineGateChecks, type MetricGateSpec } from '../../../src/controller/gates/gate-check.ts';
import { prometheusAccess } from '../../../src/controller/gates/gate-credentials.ts';
import { evaluateMetricGate } from '../../../src/controller/gates/metric-gate.ts';
import type { PrometheusAlert, QueryResult } from '../../../src/controller/gates/prometheus-client.ts';
import type { Pod, Secret } from '../../../src/kube/types.ts';

const gate = (operator: MetricGateSpec['operator'], threshold?: number): MetricGateSpec => ({
  name: 'errors',
  query: 'sum(rate(errors_total[5m]))',
  operator,
  ...(threshold !== undefined ? { threshold } : {}),
});
const vector = (...values: number[]): QueryResult => ({
  type: 'vector',
  samples: values.map((value, i) => ({
    labels: (values.length > 1 ? { instance: `n${i}` } : {}) as Record<string, string>,
    value,
  })),
});

describe('metric gates', () => {
  const table: [string, MetricGateSpec, QueryResult, 'pass' | 'fail' | 'unavailable'][] = [
    ['below the threshold', gate('<', 0.05), vector(0.01), 'pass'],
    ['at the threshold with <', gate('<', 0.05), vector(0.05), 'fail'],
    ['at the threshold with <=', gate('<=', 0.05), vector(0.05), 'pass'],
    ['above with >', gate('>', 10), vector(11), 'pass'],
    ['below with >=', gate('>=', 10), vector(9.99), 'fail'],
    ['equal with ==', gate('==', 1), vector(1), 'pass'],
    ['different with ==', gate('==', 1), vector(0), 'fail'],
    ['different with !=', gate('!=', 0), vector(3), 'pass'],
    ['every series must hold', gate('<', 1), vector(0.1, 0.2, 5), 'fail'],
    ['all series hold', gate('<', 1), vector(0.1, 0.2, 0.3), 'pass'],
    ['a scalar', gate('<', 1), { type: 'scalar', samples: [{ labels: {}, value: 0.5 }] }, 'pass'],
    ['+Inf is a value', gate('<', 1), vector(Number.POSITIVE_INFINITY), 'fail'],
    ['no series where a value is required', gate('<', 1), vector(), 'unavailable'],
    ['NaN', gate('<', 1), vector(Number.NaN), 'unavailable'],
    ['NaN among values', gate('<', 1), vector(0.1, Number.NaN), 'unavailable'],
    ['a matrix', gate('<', 1), { type: 'matrix' }, 'unavailable'],
    ['a string', gate('<', 1), { type: 'string' }, 'unavailable'],
    ['NoSeries and none', gate('NoSeries'), vector(), 'pass'],
    ['NoSeries and some', gate('NoSeries'), vector(1), 'fail'],
    [
      'NoSeries of a scalar',
      gate('NoSeries'),
      { type: 'scalar', samples: [{ labels: {}, value: 0 }] },
      'unavailable',
    ],
  ];
  for (const [name, spec, result, expected] of table) {
    test(name, () => assert.equal(evaluateMetricGate(spec, result).state, expected));
  }

  test('a failure names the query, its value and the threshold', () => {
    const check = evaluateMetricGate(gate('<', 0.05), vector(0.42));
    assert.equal(check.state, 'fail');
    assert.equal(check.message, 'metric gate errors (sum(rate(errors_total[5m]))) = 0.42, must be < 0.05');
    const many = evaluateMetricGate(gate('<', 1), vector(0.5, 2, 3));
    assert.match(many.message, /= 2 for \{instance="n1"\}, 3 for \{instance="n2"\}, must be < 1/);
  });

  test('no data says so', () => {
    assert.match(
      evaluateMetricGate(gate('<', 1), vector()).message,
      /returned no series: no value to compare with < 1/,
    );
    assert.match(evaluateMetricGate(gate('<', 1), vector(Number.NaN)).message, /= NaN/);
  });
});

describe('alert gates', () => {
  const alerts: PrometheusAlert[] = [
    { labels: { alertname: 'NodeDown', severity: 'critical', instance: 'n1' }, state: 'firing' },
    { labels: { alertname: 'DiskFilling', severity: 'warning' }, state: 'firing' },
    { labels: { alertname: 'NodeSlow', severity: 'critical' }, state: 'pending' },
  ];
  test('a firing alert matching by name fails, naming it', () => {
    const check = evaluateAlertGates([{ alertname: 'Node.*' }], alerts);
    assert.equal(check.state, 'fail');
    assert.equal(check.message, 'alert firing: NodeDown{severity="critical", instance="n1"}');
  });
  test('the name is matched in full', () => {
    assert.equal(evaluateAlertGates([{ alertname: 'Node' }], alerts).state, 'pass');
    assert.equal(evaluateAlertGates([{ alertname: 'Down' }], alerts).state, 'pass');
  });
  test('labels must all be equal', () => {
    assert.equal(evaluateAlertGates([{ matchLabels: { severity: 'warning' } }], alerts).state, 'fail');
    assert.equal(
      evaluateAlertGates([{ alertname: 'DiskFilling', matchLabels: { severity: 'critical' } }], alerts).state,
      'pass',
    );
  });
  test('pending alerts do not count', () => {
    assert.equal(evaluateAlertGates([{ alertname: 'NodeSlow' }], alerts).state, 'pass');
  });
  test('an empty matcher blocks on any firing alert', () => {
    const check = evaluateAlertGates([{}], alerts);
    assert.equal(check.state, 'fail');
    assert.match(check.message, /^2 alerts firing: NodeDown.*DiskFilling/);
  });
  test('no alerts pass', () => assert.equal(evaluateAlertGates([{}], []).state, 'pass'));
});

describe('combining checks', () => {
  const pass = { state: 'pass', message: 'ok' } as const;
  const fail = { state: 'fail', reason: 'MetricGateFailed', message: 'x = 2, must be < 1' } as const;
  const alert = { state: 'fail', reason: 'AlertFiring', message: 'alert firing: A' } as const;
  const down = { state: 'unavailable', message: 'Prometheus cannot be asked' } as const;
  test('everything passes', () => assert.equal(combineGateChecks([pass, pass]).verdict, 'pass'));
  test('nothing to check passes', () => assert.equal(combineGateChecks([]).verdict, 'pass'));
  test('a failure fails, whatever cannot be read', () => {
    const outcome = combineGateChecks([down, fail, alert], 'blocking');
    assert.deepEqual(outcome, {
      verdict: 'fail',
      reason: 'MetricGateFailed',
      message: 'x = 2, must be < 1; alert firing: A',
    });
  });
  test('a gate that cannot be evaluated holds, never passes', () => {
    const outcome = combineGateChecks([pass, down]);
    assert.equal(outcome.verdict, 'hold');
    assert.equal(outcome.reason, 'GateUnavailable');
    assert.match(
      outcome.message,
      /Prometheus cannot be asked; no batch starts until the gate can be evaluated/,
    );
  });
  test('blocking pods hold', () => {
    assert.deepEqual(combineGateChecks([pass], 'pods run'), {
      verdict: 'hold',
      reason: 'BlockingPods',
      message: 'pods run',
    });
  });
});

describe('blocking pods', () => {
  const pod = (name: string, node: string, labels: Record<string, string>, phase = 'Running'): Pod =>
    ({ metadata: { name, namespace: 'apps', labels }, spec: { nodeName: node }, status: { phase } }) as Pod;
  const pods: Record<string, Pod[]> = {
    n1: [pod('db-0', 'n1', { blocks: 'yes' }), pod('web', 'n1', {})],
    n2: [pod('job-done', 'n2', { blocks: 'yes' }, 'Succeeded')],
    n3: [pod('web', 'n3', { blocks: 'no' })],
  };
  const on = (n: string) => pods[n] ?? [];
  const selector = { matchLabels: { blocks: 'yes' } };
  test('a running pod on a node of the batch blocks', () => {
    assert.equal(
      blockingPodsMessage(['n1', 'n2'], on, selector),
      'blocking pods run on the nodes the next batch would take: apps/db-0 on n1',
    );
  });
  test('finished pods and other nodes do not', () => {
    assert.equal(blockingPodsMessage(['n2', 'n3'], on, selector), undefined);
    assert.equal(blockingPodsMessage([], on, selector), undefined);
  });
});

describe('credentials from the Secret', () => {
  const server = { url: 'http://p:9090', timeoutSeconds: 5, intervalSeconds: 10 };
  const ref = { credentialsSecretRef: { namespace: 'nodeherd' as const, name: 'reader' } };
  const b64 = (s: string) => Buffer.from(s).toString('base64');
  const secretWith = (data: Record<string, string>) => ({
    secret: () =>
      ({
        metadata: { name: 'reader', resourceVersion: '7' },
        data: Object.fromEntries(Object.entries(data).map(([k, v]) => [k, b64(v)])),
      }) as Secret,
  });
  test('none needed', () =>
    assert.deepEqual(prometheusAccess(server, { secret: () => undefined }), {
      ok: true,
      credentials: { kind: 'none' },
      version: '',
    }));
  test('a bearer token', () => {
    const access = prometheusAccess({ ...server, ...ref }, secretWith({ token: 's3cret\n' }));
    assert.ok(access.ok);
    assert.deepEqual(access.credentials, { kind: 'bearer', token: 's3cret' });
  });
  test('basic auth and a CA', () => {
    const access = prometheusAccess(
      { ...server, ...ref },
      secretWith({ username: 'u', password: 'p', 'ca.crt': 'PEM' }),
    );
    assert.ok(access.ok);
    assert.deepEqual(access.credentials, { kind: 'basic', username: 'u', password: 'p' });
    assert.equal(access.caPem, 'PEM');
  });
  test('a Secret outside nodeherd’s namespace, stored before the API refused it, is never read', () => {
    let read = 0;
    const elsewhere = { credentialsSecretRef: { namespace: 'kube-system', name: 'reader' } } as never;
    const access = prometheusAccess({ ...server, ...(elsewhere as object) } as never, {
      secret: () => {
        read++;
        return undefined;
      },
    });
    assert.equal(access.ok, false);
    assert.equal(read, 0);
    assert.match((access as { message: string }).message, /read only in namespace nodeherd/);
  });
  test('problems say which Secret, never its values', () => {
    const missing = prometheusAccess({ ...server, ...ref }, { secret: () => undefined });
    assert.deepEqual(missing, {
      ok: false,
      message: 'Secret nodeherd/reader (prometheus.credentialsSecretRef) not found',
    });
    const both = prometheusAccess({ ...server, ...ref }, secretWith({ token: 'tok3n', username: 'u' }));
    assert.equal(both.ok, false);
    assert.ok(!JSON.stringify(both).includes('tok3n'));
    assert.equal(prometheusAccess({ ...server, ...ref }, secretWith({ username: 'u' })).ok, false);
  });
});
