import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { openSqliteDatabase } from '../../../src/apiserver/storage/sqlite-driver.ts';
import { SqliteStore } from '../../../src/apiserver/storage/sqlite-store.ts';
import { StoreExpiredError } from '../../../src/apiserver/storage/types.ts';

const dir = mkdtempSync(join(tmpdir(), 'nodeherd-store-restart-'));
after(() => rmSync(dir, { recursive: true, force: true }));
let files = 0;
function freshPath(): string {
  return join(dir, `store-${files++}`, 'state.db');
}

function logRowCount(path: string): number {
  const db = openSqliteDatabase(path);
  try {
    return db.prepare<{ n: number }>('SELECT count(*) AS n FROM log').get()!.n;
  } finally {
    db.close();
  }
}

describe('SqliteStore across restarts', () => {
  test('reopening keeps every object, its revisions and the revision counter', () => {
    const path = freshPath();
    const first = SqliteStore.open(path);
    first.create('/core/pods/default/a', { metadata: { name: 'a' }, spec: { v: 1 } });
    first.create('/core/pods/default/b', { metadata: { name: 'b' } });
    first.update('/core/pods/default/a', 1, { metadata: { name: 'a' }, spec: { v: 2 } });
    first.create('/core/pods/default/c', { metadata: { name: 'c' } });
    first.delete('/core/pods/default/c');
    const before = first.list('');
    const eventsBefore = first.eventsSince('', 0);
    first.close();

    const second = SqliteStore.open(path);
    assert.equal(second.currentRevision(), 5);
    assert.deepEqual(second.list(''), before);
    assert.deepEqual(second.get('/core/pods/default/a'), {
      key: '/core/pods/default/a',
      revision: 3,
      createRevision: 1,
      object: { metadata: { name: 'a', resourceVersion: '3' }, spec: { v: 2 } },
    });
    assert.deepEqual(second.eventsSince('', 0), eventsBefore);
    assert.equal(second.count('/core/pods/'), 2);
    assert.equal(second.update('/core/pods/default/a', 3, { spec: { v: 3 } }).revision, 6);
    assert.equal(
      second.create('/core/pods/default/c', {}).revision,
      7,
      're-create over a tombstone from before the restart',
    );
    second.close();
  });

  test('a compacted newest tombstone does not let the revision counter go back after a restart', () => {
    const path = freshPath();
    const first = SqliteStore.open(path, { retainRevisions: 0 });
    first.create('/k/live', {});
    first.create('/k/doomed', {});
    first.update('/k/doomed', 2, { v: 2 });
    first.delete('/k/doomed'); // revision 4: the newest row, and a tombstone
    assert.equal(first.compact(), 4);
    first.close();
    // Only the live key's row is left: its revision (1) is far below the counter.
    assert.equal(logRowCount(path), 1);

    const second = SqliteStore.open(path);
    assert.equal(second.currentRevision(), 4);
    assert.equal(second.compactedRevision(), 4);
    assert.throws(() => second.eventsSince('', 3), StoreExpiredError);
    assert.deepEqual(second.eventsSince('', 4), []);
    assert.equal(second.get('/k/live')!.revision, 1);
    assert.equal(second.create('/k/doomed', {}).revision, 5);
    second.close();
  });

  test('compaction removes superseded rows and keeps the newest row of every live key', () => {
    const path = freshPath();
    const store = SqliteStore.open(path, { retainRevisions: 2 });
    for (let i = 0; i < 5; i++) store.create(`/k/${i}`, { v: 0 }); // 1..5
    for (let v = 1; v <= 10; v++) store.update('/k/0', store.get('/k/0')!.revision, { v }); // 6..15
    store.delete('/k/4'); // 16
    store.update('/k/1', 2, { v: 1 }); // 17
    assert.equal(store.compact(), 15);
    store.close();
    // Kept: the newest row at or below 15 of each of /k/0..4 (15, 2, 3, 4, 5: the state at the compaction
    // point, which the later rows 16 and 17 still need as their previous state) and the rows 16 and 17.
    // Gone: /k/0's rows 1 and 6..14.
    assert.equal(logRowCount(path), 7);

    const reopened = SqliteStore.open(path);
    assert.deepEqual(
      reopened.list('/k/', { atRevision: 15 }).items.map((i) => [i.key, i.revision]),
      [
        ['/k/0', 15],
        ['/k/1', 2],
        ['/k/2', 3],
        ['/k/3', 4],
        ['/k/4', 5],
      ],
    );
    assert.deepEqual(
      reopened.eventsSince('/k/', 15).map((e) => [e.type, e.key, e.prevObject?.metadata.resourceVersion]),
      [
        ['DELETED', '/k/4', '5'],
        ['MODIFIED', '/k/1', '2'],
      ],
    );
    reopened.close();
  });

  test('a second store on the same file is refused while the first is open', () => {
    const path = freshPath();
    const first = SqliteStore.open(path);
    first.create('/k/a', {});
    assert.throws(() => SqliteStore.open(path), /is locked by another process/);
    assert.equal(first.create('/k/b', {}).revision, 2, 'the first store is unaffected');
    first.close();
    const again = SqliteStore.open(path);
    assert.equal(again.currentRevision(), 2);
    again.close();
  });
});
