import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  hasStatus,
  KubeApiError,
  kubeApiErrorFromResponse,
  kubeApiErrorFromStatus,
} from '../../../src/kube/light/kube-api-error.ts';

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
  const error = kubeApiErrorFromResponse(403, JSON.stringify(status));
  assert.ok(error instanceof KubeApiError);
  assert.ok(error instanceof Error);
  assert.equal(error.status, 403);
  assert.equal(error.reason, 'Forbidden');
  assert.equal(error.message, status.message);
  assert.deepEqual(error.body, status);
  assert.ok(hasStatus(error, 403));
  assert.ok(!hasStatus(error, 404));
  assert.ok(!hasStatus(new Error('x'), 403));
});

test('a watch ERROR event Status takes its code from the body', () => {
  const error = kubeApiErrorFromStatus({
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
  const error = kubeApiErrorFromResponse(409, JSON.stringify({ kind: 'Status', status: 'Failure' }));
  assert.equal(error.status, 409);
  assert.equal(error.reason, 'Conflict');
  assert.equal(error.message, 'HTTP 409');
});

test('a body that is not a Status is kept short and summarised by its first line', () => {
  const html = `<html>\n<body>bad gateway</body>${'x'.repeat(5000)}`;
  const error = kubeApiErrorFromResponse(502, html);
  assert.equal(error.status, 502);
  assert.equal(error.reason, 'Unknown');
  assert.equal(error.message, 'HTTP 502: <html>');
  assert.equal(typeof error.body, 'string');
  assert.ok((error.body as string).length <= 1025);
  const empty = kubeApiErrorFromResponse(503, '');
  assert.equal(empty.reason, 'ServiceUnavailable');
  assert.equal(empty.message, 'HTTP 503');
  assert.equal(empty.body, undefined);
});

test('retryAfterSeconds is read from the Status details', () => {
  const error = kubeApiErrorFromResponse(
    429,
    JSON.stringify({
      kind: 'Status',
      code: 429,
      reason: 'TooManyRequests',
      details: { retryAfterSeconds: 7 },
    }),
  );
  assert.equal(error.retryAfterSeconds, 7);
  assert.equal(kubeApiErrorFromResponse(429, 'slow down').retryAfterSeconds, undefined);
});
