// The event TTL controller over a real store, with its clock in the test's hands: an Event lives the
// TTL from its last write as the server saw it, one written before a restart by its own newest
// timestamp, and nothing else under the store is touched.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { EventTtlController } from '../../../src/apiserver/controllers/event-ttl.ts';
import { SqliteStore } from '../../../src/apiserver/storage/sqlite-store.ts';

const HOUR = 60 * 60_000;
const T0 = Date.parse('2026-06-01T12:00:00Z');

function event(name: string, lastTimestamp?: string): Record<string, unknown> {
  return {
    metadata: { name, namespace: 'default', creationTimestamp: '2026-06-01T09:00:00Z' },
    involvedObject: { kind: 'Node', name: 'n1' },
    ...(lastTimestamp ? { lastTimestamp } : {}),
  };
}

test('an Event lives an hour from its last write; one from before the start by its own timestamps', () => {
  const store = SqliteStore.open(':memory:');
  let now = T0;
  // Written before this server started: 3 h old, 30 min old (by lastTimestamp), and "from the future".
  store.create('/core/events/default/old', event('old'));
  store.create('/core/events/default/recent', event('recent', '2026-06-01T11:30:00Z'));
  store.create('/core/events/default/future', event('future', '2026-06-02T12:00:00Z'));
  store.create('/core/configmaps/default/kept', { metadata: { name: 'kept' } });
  const ttl = new EventTtlController(store, { now: () => now });
  ttl.start();
  try {
    assert.equal(ttl.sweep(), 1);
    assert.equal(store.get('/core/events/default/old'), undefined);

    now = T0 + 10 * 60_000;
    store.create('/core/events/default/fresh', event('fresh'));
    now = T0 + 31 * 60_000;
    assert.equal(ttl.sweep(), 1, 'recent expires 1 h after its lastTimestamp');
    assert.equal(store.get('/core/events/default/recent'), undefined);

    // An update (a repeat counted) moves the expiry to an hour from now.
    now = T0 + 50 * 60_000;
    const fresh = store.get('/core/events/default/fresh')!;
    store.update(fresh.key, fresh.revision, { ...event('fresh'), count: 2 });
    now = T0 + HOUR + 1;
    assert.equal(ttl.sweep(), 1, 'the future-dated Event lives an hour from the start, no more');
    assert.equal(store.get('/core/events/default/future'), undefined);
    assert.ok(store.get('/core/events/default/fresh'), 'updated at 50 min: still alive');
    now = T0 + 50 * 60_000 + HOUR + 1;
    assert.equal(ttl.sweep(), 1);
    assert.equal(store.list('/core/events/').items.length, 0);
    assert.ok(store.get('/core/configmaps/default/kept'));
  } finally {
    ttl.stop();
    store.close();
  }
});

test('a TTL that is not a positive number is refused', () => {
  const store = SqliteStore.open(':memory:');
  try {
    assert.throws(() => new EventTtlController(store, { ttlMs: 0 }), /eventTtlMs must be positive/);
  } finally {
    store.close();
  }
});
