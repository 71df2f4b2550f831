import assert from 'node:assert/strict';
import { test } from 'node:test';
import { RequestCounters } from '../../src/kube/request-counters.ts';

test('counts requests per verb, responses per status, failures, events and bytes', () => {
  const counters = new RequestCounters();
  counters.request('get');
  counters.request('get');
  counters.request('watch');
  counters.response(200);
  counters.response(404);
  counters.response(200);
  counters.transportFailure();
  counters.connection();
  counters.retry();
  counters.watchEvent('BOOKMARK', 'Lease');
  counters.watchEvent('BOOKMARK');
  counters.watchEvent('ADDED', 'Lease');
  counters.bytes(100);
  counters.bytes(23);
  const snapshot = counters.snapshot();
  assert.equal(snapshot.requests, 3);
  assert.deepEqual(snapshot.byVerb, { get: 2, list: 0, watch: 1, create: 0, update: 0, patch: 0, delete: 0 });
  assert.deepEqual(snapshot.byStatus, { 200: 2, 404: 1 });
  assert.equal(snapshot.transportFailures, 1);
  assert.equal(snapshot.connections, 1);
  assert.equal(snapshot.retries, 1);
  assert.deepEqual(snapshot.watchEvents, { BOOKMARK: 2, ADDED: 1 });
  assert.deepEqual(snapshot.watchEventsByKind, { Lease: 1 }, 'bookmarks are no fan-out');
  assert.equal(snapshot.bytesReceived, 123);
  // A snapshot is a copy.
  snapshot.byVerb.get = 99;
  assert.equal(counters.snapshot().byVerb.get, 2);
});
