import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  isKubeError,
  KubeError,
  kubeErrorFromResponse,
  kubeErrorFromStatus,
} from '../../src/kube/kube-error.ts';

test('a Status body gives status, reason, message and the body', () => {
  const status = {
    kind: 'Status',
    apiVersion: 'v1',
    metadata: {},
    status: 'Failure',
    message: 'nodes "n2" is forbidden: User "system:node:n1" cannot get resource "nodes"',
    reason: 'Forbidden',
    details: { name: 'n2', kind: 'nodes' },
    code: 403,
  };
  const error = kubeErrorFromResponse(403, JSON.stringify(status));
  assert.ok(error instanceof KubeError);
  assert.ok(error instanceof Error);
  assert.equal(error.status, 403);
  assert.equal(error.reason, 'Forbidden');
  assert.equal(error.message, status.message);
  assert.deepEqual(error.body, status);
  assert.ok(isKubeError(error, 403));
  assert.ok(!isKubeError(error, 404));
  assert.ok(!isKubeError(new Error('x'), 403));
});

test('a watch ERROR event Status takes its code from the body', () => {
  const error = kubeErrorFromStatus({
    kind: 'Status',
    status: 'Failure',
    code: 410,
    reason: 'Expired',
    message: 'too old resource version: 5 (1234)',
  });
  assert.equal(error.status, 410);
  assert.equal(error.reason, 'Expired');
  assert.equal(error.message, 'too old resource version: 5 (1234)');
});

test('missing reason and message are filled in from the HTTP code', () => {
  const error = kubeErrorFromResponse(409, JSON.stringify({ kind: 'Status', status: 'Failure' }));
  assert.equal(error.status, 409);
  assert.equal(error.reason, 'Conflict');
  assert.equal(error.message, 'HTTP 409');
});

test('a body that is not a Status is kept short and summarised by its first line', () => {
  const html = `<html>\n<body>bad gateway</body>${'x'.repeat(5000)}`;
  const error = kubeErrorFromResponse(502, html);
  assert.equal(error.status, 502);
  assert.equal(error.reason, 'Unknown');
  assert.equal(error.message, 'HTTP 502: <html>');
  assert.equal(typeof error.body, 'string');
  assert.ok((error.body as string).length <= 1025);
  const empty = kubeErrorFromResponse(503, '');
  assert.equal(empty.reason, 'ServiceUnavailable');
  assert.equal(empty.message, 'HTTP 503');
  assert.equal(empty.body, undefined);
});

test('retryAfterSeconds is read from the Status details', () => {
  const error = kubeErrorFromResponse(
    429,
    JSON.stringify({
      kind: 'Status',
      code: 429,
      reason: 'TooManyRequests',
      details: { retryAfterSeconds: 7 },
    }),
  );
  assert.equal(error.retryAfterSeconds, 7);
  assert.equal(kubeErrorFromResponse(429, 'slow down').retryAfterSeconds, undefined);
});
