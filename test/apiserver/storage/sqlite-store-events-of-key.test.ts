// eventsSince with a key: a watch of one object resumed from a resourceVersion reads that object's
// history, the same events as the prefix's filtered to the key (issue 17: 5,000 agents resuming their
// Node watches each read every Node's history since their resourceVersion).
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { SqliteStore } from '../../../src/apiserver/storage/sqlite-store.ts';
import { type StoreEvent, StoreExpiredError } from '../../../src/apiserver/storage/types.ts';

const dir = mkdtempSync(join(tmpdir(), 'nodeherd-events-of-key-'));
after(() => rmSync(dir, { recursive: true, force: true }));

const prefix = '/test/things//';
const key = (name: string) => `${prefix}${name}`;
const shape = (events: StoreEvent[]) =>
  events.map((e) => [
    e.type,
    e.key,
    e.revision,
    e.object.metadata.resourceVersion,
    e.prevObject?.metadata.resourceVersion,
  ]);

test('the events of one key are those of its prefix filtered to it: ADDED, MODIFIED with the previous state, DELETED, re-created', () => {
  const store = SqliteStore.open(join(dir, 'a.db'));
  const start = store.currentRevision();
  // Interleaved writes of three keys, and a key that shares the name's beginning.
  let a = store.create(key('a'), { metadata: { name: 'a' }, n: 0 });
  store.create(key('ab'), { metadata: { name: 'ab' } });
  const b = store.create(key('b'), { metadata: { name: 'b' } });
  const middle = store.currentRevision();
  a = store.update(key('a'), a.revision, { metadata: { name: 'a' }, n: 1 });
  store.update(key('b'), b.revision, { metadata: { name: 'b' }, n: 1 });
  store.delete(key('a'), a.revision);
  store.create(key('a'), { metadata: { name: 'a' }, n: 2 });
  store.create('/test/other//a', { metadata: { name: 'a' } });

  for (const after of [start, middle]) {
    const filtered = store.eventsSince(prefix, after).filter((e) => e.key === key('a'));
    const own = store.eventsSince(prefix, after, key('a'));
    assert.deepEqual(shape(own), shape(filtered));
    assert.deepEqual(
      own.map((e) => e.object),
      filtered.map((e) => e.object),
    );
  }
  assert.deepEqual(
    store.eventsSince(prefix, middle, key('a')).map((e) => e.type),
    ['MODIFIED', 'DELETED', 'ADDED'],
  );
  assert.deepEqual(store.eventsSince(prefix, start, key('nothing')), []);
  assert.deepEqual(store.eventsSince(prefix, store.currentRevision(), key('a')), []);
  store.close();
});

test('a key outside the prefix is refused, and a compacted revision expires as for the prefix', () => {
  const store = SqliteStore.open(join(dir, 'b.db'), { retainRevisions: 2 });
  const first = store.create(key('x'), { metadata: { name: 'x' } });
  assert.throws(() => store.eventsSince(prefix, 0, '/test/other//x'), /not under prefix/);
  let x = first;
  for (let i = 0; i < 5; i++) x = store.update(key('x'), x.revision, { metadata: { name: 'x' }, n: i });
  store.compact();
  assert.throws(() => store.eventsSince(prefix, first.revision, key('x')), StoreExpiredError);
  store.close();
});
