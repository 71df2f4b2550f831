// Group commit: the writes of one event-loop turn share one transaction. Inside the process they behave
// exactly as serial writes (reads, preconditions, revisions, events); only durability comes later, and
// whenDurable() says when.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { SqliteStore } from '../../../src/apiserver/storage/sqlite-store.ts';
import {
  StoreConflictError,
  type StoreEvent,
  StoreExistsError,
  StoreNotFoundError,
} from '../../../src/apiserver/storage/types.ts';

const dir = mkdtempSync(join(tmpdir(), 'nodeherd-group-commit-'));
after(() => rmSync(dir, { recursive: true, force: true }));
let files = 0;
const freshPath = () => join(dir, `state-${files++}.db`);

const thing = (name: string, extra: Record<string, unknown> = {}) => ({ metadata: { name }, ...extra });
const key = (name: string) => `/test/things//${name}`;

describe('SqliteStore group commit', () => {
  test('the writes of one turn are visible at once and durable together when whenDurable resolves', async () => {
    const path = freshPath();
    const store = SqliteStore.open(path, { groupCommit: true });
    const before = store.currentRevision();
    const revisions = ['a', 'b', 'c'].map((name) => store.create(key(name), thing(name)).revision);
    assert.deepEqual(revisions, [before + 1, before + 2, before + 3]);
    assert.equal(store.get(key('b'))?.revision, before + 2, 'reads in the process see the write');
    assert.equal(store.list('/test/things/').items.length, 3);
    assert.equal(store.durableRevision(), before, 'nothing is durable within the turn');
    let durable = false;
    const waiting = store.whenDurable(revisions[0]).then(() => {
      durable = true;
    });
    assert.equal(durable, false);
    await waiting;
    assert.equal(store.durableRevision(), before + 3, 'one commit made the whole turn durable');
    await store.whenDurable(); // nothing pending: resolves at once
    store.close();

    const reopened = SqliteStore.open(path, { groupCommit: true });
    assert.deepEqual(
      reopened.list('/test/things/').items.map((item) => [item.key, item.revision]),
      revisions.map((revision, i) => [key(['a', 'b', 'c'][i]!), revision]),
    );
    reopened.close();
  });

  test('preconditions inside one group behave exactly as serial writes', async () => {
    const path = freshPath();
    const store = SqliteStore.open(path, { groupCommit: true });
    const seen: StoreEvent[] = [];
    store.subscribe((event) => seen.push(event));
    const created = store.create(key('x'), thing('x', { n: 0 }));
    const updated = store.update(key('x'), created.revision, thing('x', { n: 1 }));
    assert.equal(updated.revision, created.revision + 1);
    // A writer that read before the first update lost the race, as it would serially.
    assert.throws(
      () => store.update(key('x'), created.revision, thing('x', { n: 2 })),
      (error: unknown) => error instanceof StoreConflictError && error.currentRevision === updated.revision,
    );
    assert.throws(() => store.create(key('x'), thing('x')), StoreExistsError);
    assert.throws(() => store.delete(key('x'), created.revision), StoreConflictError);
    const deleted = store.delete(key('x'), updated.revision);
    assert.throws(() => store.update(key('x'), deleted.revision, thing('x')), StoreNotFoundError);
    const again = store.create(key('x'), thing('x', { n: 3 }));
    // Failed writes use no revision: the sequence stays gap-free.
    assert.deepEqual(
      [created, updated, deleted, again].map((item) => item.revision),
      [1, 2, 3, 4],
    );
    assert.equal(again.createRevision, 4);
    assert.deepEqual(
      seen.map((event) => [event.type, event.revision]),
      [
        ['ADDED', 1],
        ['MODIFIED', 2],
        ['DELETED', 3],
        ['ADDED', 4],
      ],
      'subscribers hear each write in order, within the turn',
    );
    await store.whenDurable();
    store.close();

    const reopened = SqliteStore.open(path);
    assert.deepEqual(
      reopened.eventsSince('', 0).map((event) => [event.type, event.revision, event.object.n]),
      seen.map((event) => [event.type, event.revision, event.object.n]),
      'the log holds exactly the serial history',
    );
    assert.equal(reopened.get(key('x'))?.object.n, 3);
    reopened.close();
  });

  test('writes of later turns form later groups; each waiter resolves with its own group', async () => {
    const store = SqliteStore.open(freshPath(), { groupCommit: true });
    const first = store.create(key('one'), thing('one'));
    const firstDurable = store.whenDurable(first.revision);
    await firstDurable;
    const second = store.create(key('two'), thing('two'));
    assert.equal(store.durableRevision(), first.revision);
    await store.whenDurable(second.revision);
    assert.equal(store.durableRevision(), second.revision);
    // History reads inside a group see the group's writes, like every other read in the process.
    const third = store.update(key('two'), second.revision, thing('two', { n: 1 }));
    assert.deepEqual(
      store.eventsSince('/test/things/', second.revision).map((event) => event.revision),
      [third.revision],
    );
    assert.equal(store.list('/test/things/', { atRevision: second.revision }).items.length, 2);
    await store.whenDurable();
    store.close();
  });

  test('a group is durable only once its fsync has returned, and writes made meanwhile wait for the next', async () => {
    const path = freshPath();
    const store = SqliteStore.open(path, { groupCommit: true });
    const first = store.create(key('f1'), thing('f1'));
    let firstDurable = false;
    const waitFirst = store.whenDurable(first.revision).then(() => {
      firstDurable = true;
    });
    // The group commits in a setImmediate of this turn; its fsync runs on the thread pool after that.
    await new Promise((resolve) => setImmediate(resolve));
    assert.equal(store.durableRevision(), first.revision - 1, 'committed, but not durable before the fsync');
    assert.equal(firstDurable, false);
    // Written while the first group's fsync runs: a group of its own, committed after that fsync.
    const second = store.create(key('f2'), thing('f2'));
    const third = store.update(key('f2'), second.revision, thing('f2', { n: 1 }));
    const order: string[] = [];
    const waitSecond = store.whenDurable(third.revision).then(() => order.push('second'));
    await waitFirst.then(() => order.push('first'));
    assert.equal(store.durableRevision(), first.revision, 'the first fsync covers the first group only');
    await waitSecond;
    assert.deepEqual(order, ['first', 'second']);
    assert.equal(store.durableRevision(), third.revision);
    store.close();
    const reopened = SqliteStore.open(path);
    assert.equal(reopened.get(key('f2'))?.object.n, 1);
    reopened.close();
  });

  test('flush makes every write durable before it returns, also while an fsync runs', async () => {
    const store = SqliteStore.open(freshPath(), { groupCommit: true });
    const first = store.create(key('g1'), thing('g1'));
    const waitFirst = store.whenDurable(first.revision);
    await new Promise((resolve) => setImmediate(resolve));
    const second = store.create(key('g2'), thing('g2'));
    const waitSecond = store.whenDurable(second.revision);
    store.flush();
    assert.equal(store.durableRevision(), second.revision);
    await Promise.all([waitFirst, waitSecond]);
    // The fsync that was running returns to a store that moved on: nothing changes.
    await new Promise((resolve) => setTimeout(resolve, 50));
    assert.equal(store.durableRevision(), second.revision);
    const third = store.create(key('g3'), thing('g3'));
    await store.whenDurable(third.revision);
    assert.equal(store.durableRevision(), third.revision);
    store.close();
  });

  test('close and compact commit what is pending first', async () => {
    const path = freshPath();
    const store = SqliteStore.open(path, { groupCommit: true, retainRevisions: 1 });
    let item = store.create(key('c'), thing('c', { n: 0 }));
    for (let n = 1; n <= 5; n++) item = store.update(key('c'), item.revision, thing('c', { n }));
    assert.equal(store.compact(), item.revision - 1);
    assert.equal(store.durableRevision(), item.revision, 'compaction committed the group first');
    const pending = store.create(key('d'), thing('d'));
    store.close();
    const reopened = SqliteStore.open(path);
    assert.equal(reopened.get(key('d'))?.revision, pending.revision, 'close committed the pending write');
    assert.equal(reopened.get(key('c'))?.object.n, 5);
    reopened.close();
  });

  test('without group commit every write is durable when it returns', async () => {
    const store = SqliteStore.open(freshPath());
    const item = store.create(key('plain'), thing('plain'));
    assert.equal(store.durableRevision(), item.revision);
    await store.whenDurable(item.revision);
    store.close();
  });
});
