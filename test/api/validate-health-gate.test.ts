// The health gate's metric, alert and blocking-pod fields: what is accepted, and the field errors of
// what is not.

import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { validateNodeConfigPool } from '../../src/api/validation.ts';

const base = { nodeSelector: {}, configSelector: { matchLabels: { pool: 'workers' } } };
const prometheus = { url: 'http://prometheus.monitoring:9090' };

function causes(healthGate: unknown, type = 'RollingUpdate'): [string, string, string][] {
  const spec = { ...base, updateStrategy: { type, rollingUpdate: { healthGate } } };
  return validateNodeConfigPool({
    apiVersion: 'nodeherd.io/v1alpha1',
    kind: 'NodeConfigPool',
    metadata: { name: 'workers' },
    spec,
  }).map((c) => [c.field, c.type, c.message]);
}

const at = 'spec.updateStrategy.rollingUpdate.healthGate';

describe('health gate validation', () => {
  test('a full gate is accepted', () => {
    assert.deepEqual(
      causes({
        podSelector: { matchLabels: { app: 'critical' } },
        blockingPodSelector: { matchLabels: { 'nodeherd.io/blocks-updates': 'true' } },
        prometheus: {
          url: 'https://prometheus.monitoring:9090/prom',
          credentialsSecretRef: { namespace: 'nodeherd', name: 'prometheus-reader' },
          timeoutSeconds: 3,
          intervalSeconds: 15,
        },
        metrics: [
          { name: 'error-rate', query: 'sum(rate(errors_total[5m]))', operator: '<', threshold: 0.05 },
          { name: 'crashloops', query: 'kube_pod_container_status_waiting_reason > 0', operator: 'NoSeries' },
        ],
        alerts: [{ alertname: 'Node.*' }, { matchLabels: { severity: 'critical' } }, {}],
      }),
      [],
    );
  });

  const bad: [string, unknown, string, string, RegExp][] = [
    [
      'metrics without a server',
      { metrics: [{ name: 'a', query: 'up', operator: '==', threshold: 1 }] },
      `${at}.prometheus`,
      'FieldValueRequired',
      /need the Prometheus server/,
    ],
    [
      'a server nothing uses',
      { prometheus },
      `${at}.metrics`,
      'FieldValueRequired',
      /no metrics, compare or alerts/,
    ],
    [
      'a server without url',
      { prometheus: {}, alerts: [{}] },
      `${at}.prometheus.url`,
      'FieldValueRequired',
      /Required/,
    ],
    [
      'a url that is not http',
      { prometheus: { url: 'ftp://x' }, alerts: [{}] },
      `${at}.prometheus.url`,
      'FieldValueInvalid',
      /http or https/,
    ],
    [
      'a url with credentials',
      { prometheus: { url: 'http://u:secret@x:9090' }, alerts: [{}] },
      `${at}.prometheus.url`,
      'FieldValueForbidden',
      /credentialsSecretRef/,
    ],
    [
      'a timeout out of range',
      { prometheus: { ...prometheus, timeoutSeconds: 0 }, alerts: [{}] },
      `${at}.prometheus.timeoutSeconds`,
      'FieldValueInvalid',
      /between 1 and 60/,
    ],
    [
      'a secret ref without name',
      { prometheus: { ...prometheus, credentialsSecretRef: { namespace: 'nodeherd' } }, alerts: [{}] },
      `${at}.prometheus.credentialsSecretRef.name`,
      'FieldValueRequired',
      /Required/,
    ],
    [
      'a comparison without a server',
      { compare: [{ name: 'errors', query: 'errors{$NODES}', margin: 10 }] },
      `${at}.prometheus`,
      'FieldValueRequired',
      /need the Prometheus server/,
    ],
    [
      'a comparison whose query has no $NODES',
      { prometheus, compare: [{ name: 'errors', query: 'errors', margin: 10 }] },
      `${at}.compare[0].query`,
      'FieldValueInvalid',
      /must contain \$NODES/,
    ],
    [
      'a comparison query over 4096 characters',
      { prometheus, compare: [{ name: 'errors', query: `errors{$NODES}${' '.repeat(4090)}`, margin: 10 }] },
      `${at}.compare[0].query`,
      'FieldValueTooLong',
      /4096/,
    ],
    [
      'a metric query over 4096 characters',
      { prometheus, metrics: [{ name: 'a', query: `up${' '.repeat(4095)}`, operator: 'NoSeries' }] },
      `${at}.metrics[0].query`,
      'FieldValueTooLong',
      /4096/,
    ],
    [
      'a comparison without a query',
      { prometheus, compare: [{ name: 'errors', margin: 10 }] },
      `${at}.compare[0].query`,
      'FieldValueRequired',
      /Required/,
    ],
    [
      'a comparison without a margin',
      { prometheus, compare: [{ name: 'errors', query: 'errors{$NODES}' }] },
      `${at}.compare[0].margin`,
      'FieldValueRequired',
      /Required/,
    ],
    [
      'a negative margin',
      { prometheus, compare: [{ name: 'errors', query: 'errors{$NODES}', margin: -1 }] },
      `${at}.compare[0].margin`,
      'FieldValueInvalid',
      /0 or more/,
    ],
    [
      'a node label that is no label name',
      {
        prometheus,
        compare: [{ name: 'errors', query: 'errors{$NODES}', margin: 1, nodeLabel: 'node-name' }],
      },
      `${at}.compare[0].nodeLabel`,
      'FieldValueInvalid',
      /label name/,
    ],
    [
      'a minimum of no nodes',
      { prometheus, compare: [{ name: 'errors', query: 'errors{$NODES}', margin: 1, minNodes: 0 }] },
      `${at}.compare[0].minNodes`,
      'FieldValueInvalid',
      /between 1 and 1000/,
    ],
    [
      'an unknown direction',
      { prometheus, compare: [{ name: 'errors', query: 'errors{$NODES}', margin: 1, worseWhen: 'Up' }] },
      `${at}.compare[0].worseWhen`,
      'FieldValueNotSupported',
      /supported values/,
    ],
    [
      'a metric without a threshold',
      { prometheus, metrics: [{ name: 'a', query: 'up', operator: '<' }] },
      `${at}.metrics[0].threshold`,
      'FieldValueRequired',
      /required when operator is </,
    ],
    [
      'NoSeries with a threshold',
      { prometheus, metrics: [{ name: 'a', query: 'up', operator: 'NoSeries', threshold: 1 }] },
      `${at}.metrics[0].threshold`,
      'FieldValueForbidden',
      /NoSeries/,
    ],
    [
      'an unknown operator',
      { prometheus, metrics: [{ name: 'a', query: 'up', operator: '=<', threshold: 1 }] },
      `${at}.metrics[0].operator`,
      'FieldValueNotSupported',
      /supported values/,
    ],
    [
      'an empty query',
      { prometheus, metrics: [{ name: 'a', query: ' ', operator: '<', threshold: 1 }] },
      `${at}.metrics[0].query`,
      'FieldValueInvalid',
      /PromQL/,
    ],
    [
      'a string threshold',
      { prometheus, metrics: [{ name: 'a', query: 'up', operator: '<', threshold: '1' }] },
      `${at}.metrics[0].threshold`,
      'FieldValueTypeInvalid',
      /finite number/,
    ],
    [
      'a duplicate name',
      {
        prometheus,
        metrics: [
          { name: 'a', query: 'up', operator: 'NoSeries' },
          { name: 'a', query: 'up', operator: 'NoSeries' },
        ],
      },
      `${at}.metrics[1].name`,
      'FieldValueDuplicate',
      /"a"/,
    ],
    [
      'a bad name',
      { prometheus, metrics: [{ name: 'Error Rate', query: 'up', operator: 'NoSeries' }] },
      `${at}.metrics[0].name`,
      'FieldValueInvalid',
      /DNS-1123/,
    ],
    [
      'an alertname that does not compile',
      { prometheus, alerts: [{ alertname: 'Node(' }] },
      `${at}.alerts[0].alertname`,
      'FieldValueInvalid',
      /RE2/,
    ],
    [
      'a label value that is not a string',
      { prometheus, alerts: [{ matchLabels: { severity: 1 } }] },
      `${at}.alerts[0].matchLabels.severity`,
      'FieldValueTypeInvalid',
      /string/,
    ],
    [
      'a bad blocking pod selector',
      { blockingPodSelector: { matchExpressions: [{ key: 'a', operator: 'Near' }] } },
      `${at}.blockingPodSelector.matchExpressions[0].operator`,
      'FieldValueNotSupported',
      /supported/,
    ],
  ];
  for (const [name, gate, field, type, message] of bad) {
    test(`refuses ${name}`, () => {
      const found = causes(gate);
      const cause = found.find((c) => c[0] === field);
      assert.ok(cause, `no cause at ${field}: ${JSON.stringify(found)}`);
      assert.equal(cause[1], type);
      assert.match(cause[2], message);
    });
  }

  test('the password of a URL is never echoed', () => {
    const found = causes({ prometheus: { url: 'http://u:hunter2@x:9090' }, alerts: [{}] });
    assert.ok(found.length > 0);
    assert.ok(
      found.every((c) => !c[2].includes('hunter2')),
      JSON.stringify(found),
    );
  });

  test('metric, alert and blocking-pod gates are RollingUpdate only', () => {
    const found = causes({ blockingPodSelector: {}, prometheus, alerts: [{}] }, 'Spread').filter(
      (c) => c[1] === 'FieldValueForbidden',
    );
    assert.deepEqual(found.map((c) => c[0]).sort(), [
      `${at}.alerts`,
      `${at}.blockingPodSelector`,
      `${at}.prometheus`,
    ]);
  });
});
