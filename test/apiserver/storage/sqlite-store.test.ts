import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { SqliteStore } from '../../../src/apiserver/storage/sqlite-store.ts';
import {
  StoreConflictError,
  type StoreEvent,
  StoreExistsError,
  StoreExpiredError,
  StoreNotFoundError,
} from '../../../src/apiserver/storage/types.ts';

function pod(name: string, extra: Record<string, unknown> = {}): Record<string, any> {
  return { apiVersion: 'v1', kind: 'Pod', metadata: { name, namespace: 'default' }, spec: {}, ...extra };
}

function podKey(name: string, namespace = 'default'): string {
  return `/core/pods/${namespace}/${name}`;
}

function keysOf(items: Array<{ key: string }>): string[] {
  return items.map((i) => i.key);
}

describe('SqliteStore writes', () => {
  test('create then get returns the object stamped with its revision', () => {
    const store = SqliteStore.open(':memory:');
    const created = store.create(podKey('a'), pod('a', { spec: { x: 1 } }));
    assert.equal(created.revision, 1);
    assert.equal(created.createRevision, 1);
    assert.equal(created.object.metadata.resourceVersion, '1');
    assert.deepEqual(store.get(podKey('a')), created);
    assert.equal(store.get(podKey('missing')), undefined);
    store.close();
  });

  test('a resourceVersion sent by the caller is ignored and the caller object is not touched', () => {
    const store = SqliteStore.open(':memory:');
    const input = pod('a', { metadata: { name: 'a', resourceVersion: '999' } });
    const created = store.create(podKey('a'), input);
    assert.equal(created.object.metadata.resourceVersion, '1');
    assert.equal(input.metadata.resourceVersion, '999');
    store.close();
  });

  test('objects handed out are frozen: mutating them throws and does not change the store', () => {
    const store = SqliteStore.open(':memory:');
    const seen: StoreEvent[] = [];
    store.subscribe((event) => seen.push(event));
    const created = store.create(podKey('a'), pod('a', { spec: { containers: [{ name: 'c' }] } }));
    assert.throws(() => {
      created.object.spec.containers[0].name = 'changed';
    }, TypeError);
    const got = store.get(podKey('a'))!;
    assert.equal(got.object.spec.containers[0].name, 'c');
    assert.throws(() => {
      got.object.metadata.labels = { x: 'y' };
    }, TypeError);
    assert.throws(() => {
      seen[0]!.object.spec.containers.push({ name: 'd' });
    }, TypeError);
    assert.equal(store.list('/core/pods/').items[0]!.object.metadata.labels, undefined);
    const updated = store.update(podKey('a'), created.revision, pod('a', { spec: { n: 1 } }));
    const deleted = store.delete(podKey('a'));
    for (const object of [updated.object, deleted.object, seen[1]!.prevObject!, seen[2]!.object]) {
      assert.throws(() => {
        object.metadata.resourceVersion = '0';
      }, TypeError);
    }
    assert.equal(deleted.object.metadata.resourceVersion, String(deleted.revision));
    assert.equal(updated.object.metadata.resourceVersion, String(updated.revision));
    for (const event of store.eventsSince('/core/pods/', 0))
      assert.ok(Object.isFrozen(event.object.metadata));
    store.close();
  });

  test('an own "__proto__" key survives storage and copying as plain data', () => {
    const store = SqliteStore.open(':memory:');
    const input = JSON.parse('{"metadata":{"name":"a"},"spec":{"__proto__":{"polluted":true}}}');
    store.create(podKey('a'), input);
    const spec = store.get(podKey('a'))!.object.spec;
    assert.equal(Object.getPrototypeOf(spec), Object.prototype);
    assert.deepEqual(Object.keys(spec), ['__proto__']);
    assert.equal(spec.polluted, undefined);
    store.close();
  });

  test('create of an existing key throws StoreExistsError', () => {
    const store = SqliteStore.open(':memory:');
    store.create(podKey('a'), pod('a'));
    assert.throws(() => store.create(podKey('a'), pod('a')), StoreExistsError);
    assert.equal(store.currentRevision(), 1, 'a rejected write takes no revision');
    store.close();
  });

  test('update is a compare-and-swap on the current revision', () => {
    const store = SqliteStore.open(':memory:');
    const v1 = store.create(podKey('a'), pod('a', { spec: { v: 1 } }));
    const v2 = store.update(podKey('a'), v1.revision, pod('a', { spec: { v: 2 } }));
    assert.equal(v2.revision, 2);
    assert.equal(v2.createRevision, 1);
    assert.deepEqual(v2.object.spec, { v: 2 });

    assert.throws(
      () => store.update(podKey('a'), v1.revision, pod('a', { spec: { v: 3 } })),
      (error: unknown) =>
        error instanceof StoreConflictError && error.currentRevision === 2 && error.key === podKey('a'),
    );
    assert.deepEqual(store.get(podKey('a'))!.object.spec, { v: 2 }, 'the losing write left no trace');
    assert.throws(() => store.update(podKey('nope'), 1, pod('nope')), StoreNotFoundError);
    store.close();
  });

  test('delete returns the last state with the deletion revision, optionally guarded', () => {
    const store = SqliteStore.open(':memory:');
    const a = store.create(podKey('a'), pod('a', { spec: { v: 1 } }));
    store.create(podKey('b'), pod('b'));
    assert.throws(() => store.delete(podKey('a'), a.revision + 1), StoreConflictError);
    const deleted = store.delete(podKey('a'), a.revision);
    assert.equal(deleted.revision, 3);
    assert.equal(deleted.createRevision, 1);
    assert.equal(deleted.object.metadata.resourceVersion, '3');
    assert.deepEqual(deleted.object.spec, { v: 1 });
    assert.equal(store.get(podKey('a')), undefined);
    assert.throws(() => store.delete(podKey('a')), StoreNotFoundError);
    const unguarded = store.delete(podKey('b'));
    assert.equal(unguarded.revision, 4);
    store.close();
  });

  test('a re-created key starts a new life with a new createRevision', () => {
    const store = SqliteStore.open(':memory:');
    store.create(podKey('a'), pod('a'));
    store.delete(podKey('a'));
    const again = store.create(podKey('a'), pod('a'));
    assert.equal(again.revision, 3);
    assert.equal(again.createRevision, 3);
    assert.equal(store.update(podKey('a'), 3, pod('a')).createRevision, 3);
    store.close();
  });

  test('revisions increase by one per write across all keys and operations', () => {
    const store = SqliteStore.open(':memory:');
    const seen: number[] = [];
    for (let i = 0; i < 20; i++) {
      const key = podKey(`p${i % 5}`);
      const current = store.get(key);
      if (current === undefined) seen.push(store.create(key, pod(`p${i % 5}`)).revision);
      else if (i % 3 === 0) seen.push(store.delete(key).revision);
      else seen.push(store.update(key, current.revision, pod(`p${i % 5}`, { spec: { i } })).revision);
    }
    assert.deepEqual(
      seen,
      Array.from({ length: 20 }, (_, i) => i + 1),
    );
    assert.equal(store.currentRevision(), 20);
    store.close();
  });

  test('bad input is rejected with an error naming the field', () => {
    const store = SqliteStore.open(':memory:');
    assert.throws(() => store.create('core/pods/x', pod('x')), /key must be a string starting with "\/"/);
    assert.throws(() => store.create('/a\ud800', pod('x')), /key must be/);
    assert.throws(() => store.create('/a', [] as never), /object for \/a must be a JSON object/);
    assert.throws(() => store.create('/a', { n: 1n }), /object for \/a cannot be stored as JSON/);
    store.create('/a', pod('a'));
    assert.throws(
      () => store.update('/a', Number.NaN, pod('a')),
      /expectedRevision must be a positive integer/,
    );
    assert.throws(() => store.list('/', { limit: 1.5 }), /limit must be an integer/);
    assert.throws(() => store.eventsSince('/', -1), /afterRevision must be a non-negative integer/);
    assert.throws(() => SqliteStore.open(':memory:', { retainRevisions: -1 }), /retainRevisions/);
    assert.throws(() => SqliteStore.open(':memory:', { compactIntervalMs: 0 }), /compactIntervalMs/);
    store.close();
    assert.throws(() => store.get('/a'), /store is closed/);
  });
});

describe('SqliteStore list and count', () => {
  function seeded(): SqliteStore {
    const store = SqliteStore.open(':memory:');
    for (const name of ['c', 'a', 'e', 'b', 'd']) store.create(podKey(name), pod(name));
    store.create(podKey('x', 'default-2'), pod('x'));
    store.create('/core/podsx/default/y', pod('y'));
    // LIKE wildcards must be literal in prefixes.
    store.create('/core/p_ds/default/z', pod('z'));
    store.create('/core/p%ds/default/z', pod('z'));
    return store;
  }

  test('lists exactly the keys under the prefix, in key order', () => {
    const store = seeded();
    assert.deepEqual(
      keysOf(store.list('/core/pods/default/').items),
      ['a', 'b', 'c', 'd', 'e'].map((n) => podKey(n)),
    );
    assert.deepEqual(keysOf(store.list('/core/pods/').items).length, 6);
    assert.deepEqual(keysOf(store.list('/core/p_ds/').items), ['/core/p_ds/default/z']);
    assert.deepEqual(keysOf(store.list('/core/p%').items), ['/core/p%ds/default/z']);
    assert.equal(store.list('').items.length, 9);
    assert.equal(store.list('/core/pods/').revision, store.currentRevision());
    assert.equal(store.count('/core/pods/'), 6);
    assert.equal(store.count('/core/pods/default/'), 5);
    assert.equal(store.count('/core/p_'), 1);
    assert.equal(store.count('/nothing/'), 0);
    store.close();
  });

  test('pages with afterKey and limit, and says when more follow', () => {
    const store = seeded();
    const first = store.list('/core/pods/default/', { limit: 2 });
    assert.deepEqual(keysOf(first.items), [podKey('a'), podKey('b')]);
    assert.equal(first.more, true);
    const second = store.list('/core/pods/default/', { limit: 2, afterKey: podKey('b') });
    assert.deepEqual(keysOf(second.items), [podKey('c'), podKey('d')]);
    assert.equal(second.more, true);
    const last = store.list('/core/pods/default/', { limit: 2, afterKey: podKey('d') });
    assert.deepEqual(keysOf(last.items), [podKey('e')]);
    assert.equal(last.more, false);
    const exact = store.list('/core/pods/default/', { limit: 5 });
    assert.equal(exact.more, false, 'a full page with nothing after it');
    assert.equal(store.list('/core/pods/default/', { limit: 0 }).items.length, 5, 'limit 0 means no limit');
    store.close();
  });

  test('atRevision pages reflect that revision even after later writes', () => {
    const store = seeded();
    store.update(podKey('b'), store.get(podKey('b'))!.revision, pod('b', { spec: { v: 'old' } }));
    const revision = store.currentRevision();
    const snapshot = store.list('/core/pods/default/');
    const first = store.list('/core/pods/default/', { limit: 2 });
    assert.equal(first.revision, revision);

    // Later writes that touch every kind of change.
    store.update(podKey('b'), store.get(podKey('b'))!.revision, pod('b', { spec: { v: 'new' } }));
    store.update(podKey('c'), store.get(podKey('c'))!.revision, pod('c', { spec: { v: 'new' } }));
    store.delete(podKey('d'));
    store.create(podKey('bb'), pod('bb'));
    store.create(podKey('f'), pod('f'));

    const pages = [...first.items];
    let afterKey = first.items.at(-1)!.key;
    for (;;) {
      const page = store.list('/core/pods/default/', { limit: 2, afterKey, atRevision: revision });
      assert.equal(page.revision, revision);
      pages.push(...page.items);
      if (!page.more) break;
      afterKey = page.items.at(-1)!.key;
    }
    assert.deepEqual(pages, snapshot.items);
    assert.deepEqual(store.list('/core/pods/default/', { atRevision: revision }).items, snapshot.items);
    assert.deepEqual(
      keysOf(store.list('/core/pods/default/').items),
      ['a', 'b', 'bb', 'c', 'e', 'f'].map((n) => podKey(n)),
    );
    assert.throws(
      () => store.list('/', { atRevision: store.currentRevision() + 1 }),
      /newer than the current revision/,
    );
    store.close();
  });

  test('atRevision with an afterKey before the prefix starts at the prefix', () => {
    const store = seeded();
    const revision = store.currentRevision();
    store.create(podKey('0'), pod('0'));
    const page = store.list('/core/pods/default/', { afterKey: '/core/a', atRevision: revision, limit: 1 });
    assert.deepEqual(keysOf(page.items), [podKey('a')]);
    assert.equal(page.more, true);
    store.close();
  });

  test('memory and SQL reads agree on the order of non-ASCII keys', () => {
    const store = SqliteStore.open(':memory:');
    const names = ['z', '\u00e9', '\uffff', '\u{1f600}', '\ue000', 'a'];
    for (const name of names) store.create(`/k/${name}`, { metadata: { name } });
    const revision = store.currentRevision();
    store.create('/k/later', {});
    const fromMemory = keysOf(store.list('/k/').items).filter((k) => k !== '/k/later');
    const fromLog = keysOf(store.list('/k/', { atRevision: revision }).items);
    assert.deepEqual(fromLog, fromMemory);
    assert.deepEqual(
      fromMemory,
      ['a', 'z', '\u00e9', '\ue000', '\uffff', '\u{1f600}'].map((n) => `/k/${n}`),
    );
    store.close();
  });
});

describe('SqliteStore eventsSince', () => {
  test('replays ADDED, MODIFIED and DELETED with objects and previous states', () => {
    const store = SqliteStore.open(':memory:');
    store.create(podKey('a'), pod('a', { spec: { v: 1 } })); // 1
    store.create('/core/nodes//n1', { metadata: { name: 'n1' } }); // 2
    store.update(podKey('a'), 1, pod('a', { spec: { v: 2 } })); // 3
    store.delete(podKey('a')); // 4
    store.create(podKey('a'), pod('a', { spec: { v: 3 } })); // 5

    const events = store.eventsSince('/core/pods/', 0);
    assert.deepEqual(
      events.map((e) => [
        e.type,
        e.key,
        e.revision,
        e.object.metadata.resourceVersion,
        e.prevObject?.metadata.resourceVersion,
      ]),
      [
        ['ADDED', podKey('a'), 1, '1', undefined],
        ['MODIFIED', podKey('a'), 3, '3', '1'],
        ['DELETED', podKey('a'), 4, '4', '3'],
        ['ADDED', podKey('a'), 5, '5', undefined],
      ],
    );
    assert.deepEqual(events[1]!.object.spec, { v: 2 });
    assert.deepEqual(events[1]!.prevObject!.spec, { v: 1 });
    assert.deepEqual(events[2]!.object.spec, { v: 2 }, 'DELETED carries the last state');
    assert.deepEqual(
      store.eventsSince('', 2).map((e) => e.revision),
      [3, 4, 5],
    );
    assert.deepEqual(store.eventsSince('', 5), []);
    assert.deepEqual(store.eventsSince('', 50), []);
    store.close();
  });

  test('matches what subscribers saw, event for event', () => {
    const store = SqliteStore.open(':memory:');
    const live: StoreEvent[] = [];
    store.subscribe((event) => live.push(event));
    const a = store.create(podKey('a'), pod('a'));
    store.create(podKey('b'), pod('b'));
    store.update(podKey('a'), a.revision, pod('a', { spec: { v: 2 } }));
    store.delete(podKey('b'));
    assert.deepEqual(store.eventsSince('', 0), live);
    store.close();
  });
});

describe('SqliteStore compaction', () => {
  test('drops old history: older revisions expire, live keys and recent history survive', () => {
    const store = SqliteStore.open(':memory:', { retainRevisions: 3 });
    store.create('/k/untouched', { v: 0 }); // 1
    store.create('/k/busy', { v: 0 }); // 2
    for (let v = 1; v <= 5; v++) store.update('/k/busy', store.get('/k/busy')!.revision, { v }); // 3..7
    store.create('/k/gone', {}); // 8
    store.delete('/k/gone'); // 9
    store.update('/k/busy', 7, { v: 6 }); // 10
    const stateAt7 = store.list('/k/', { atRevision: 7 }).items;

    assert.equal(store.compact(), 7);
    assert.equal(store.compactedRevision(), 7);
    assert.equal(store.compact(), 7, 'nothing more to do until new writes');

    assert.throws(
      () => store.eventsSince('/k/', 6),
      (error: unknown) =>
        error instanceof StoreExpiredError && error.requested === 6 && error.compacted === 7,
    );
    assert.throws(() => store.list('/k/', { atRevision: 6 }), StoreExpiredError);

    assert.deepEqual(
      store.eventsSince('/k/', 7).map((e) => [e.type, e.key, e.revision]),
      [
        ['ADDED', '/k/gone', 8],
        ['DELETED', '/k/gone', 9],
        ['MODIFIED', '/k/busy', 10],
      ],
    );
    assert.deepEqual(store.eventsSince('/k/', 7)[2]!.prevObject, {
      v: 5,
      metadata: { resourceVersion: '7' },
    });
    assert.deepEqual(
      store.list('/k/', { atRevision: 7 }).items,
      stateAt7,
      'the compaction point itself is listable',
    );
    assert.deepEqual(store.get('/k/untouched')!.revision, 1);
    assert.deepEqual(keysOf(store.list('/k/').items), ['/k/busy', '/k/untouched']);
    store.close();
  });

  test('the newest tombstone can be compacted without the revision going back', () => {
    const store = SqliteStore.open(':memory:', { retainRevisions: 0 });
    store.create('/k/a', {});
    store.delete('/k/a');
    assert.equal(store.compact(), 2);
    assert.deepEqual(store.eventsSince('', 2), []);
    assert.equal(store.create('/k/a', {}).revision, 3);
    store.close();
  });

  test('a key re-created after its tombstone was or was not compacted chains its history correctly', () => {
    const store = SqliteStore.open(':memory:', { retainRevisions: 2 });
    store.create('/k/early', {}); // 1
    store.delete('/k/early'); // 2: compacted below
    store.create('/k/late', {}); // 3
    store.delete('/k/late'); // 4: kept
    store.create('/k/other', {}); // 5
    store.update('/k/other', 5, { n: 1 }); // 6
    assert.equal(store.compact(), 4);
    const early = store.create('/k/early', { again: true });
    const late = store.create('/k/late', { again: true });
    assert.deepEqual([early.revision, late.revision], [7, 8]);
    assert.deepEqual(
      store.eventsSince('/k/late', 4).map((event) => [event.type, event.revision, event.prevObject]),
      [['ADDED', 8, undefined]],
    );
    store.delete('/k/late'); // 9
    assert.equal(store.create('/k/late', {}).revision, 10, 'and again, over the new tombstone');
    store.close();
  });

  test('runs on its own when compactIntervalMs is set', async () => {
    const store = SqliteStore.open(':memory:', { retainRevisions: 1, compactIntervalMs: 10 });
    store.create('/k/a', {});
    store.update('/k/a', 1, {});
    store.update('/k/a', 2, {});
    const deadline = Date.now() + 5000;
    while (store.compactedRevision() !== 2 && Date.now() < deadline)
      await new Promise((r) => setTimeout(r, 10));
    assert.equal(store.compactedRevision(), 2);
    store.close();
  });
});

describe('SqliteStore subscribe', () => {
  test('delivers every write in revision order with previous states', () => {
    const store = SqliteStore.open(':memory:');
    const seen: Array<[string, number, string | undefined]> = [];
    const unsubscribe = store.subscribe((e) =>
      seen.push([e.type, e.revision, e.prevObject?.metadata?.resourceVersion]),
    );
    const a = store.create('/k/a', {});
    store.update('/k/a', a.revision, { spec: 1 });
    store.delete('/k/a');
    unsubscribe();
    store.create('/k/b', {});
    assert.deepEqual(seen, [
      ['ADDED', 1, undefined],
      ['MODIFIED', 2, '1'],
      ['DELETED', 3, '2'],
    ]);
    store.close();
  });

  test('a write made by a listener is delivered after the current event reached everyone', () => {
    const store = SqliteStore.open(':memory:');
    const first: number[] = [];
    const second: number[] = [];
    store.subscribe((e) => {
      first.push(e.revision);
      // Like a garbage collector: react to a delete of the owner by deleting the dependent.
      if (e.type === 'DELETED' && e.key === '/k/owner') store.delete('/k/dependent');
    });
    store.subscribe((e) => second.push(e.revision));
    store.create('/k/owner', {});
    store.create('/k/dependent', {});
    store.delete('/k/owner');
    assert.deepEqual(first, [1, 2, 3, 4]);
    assert.deepEqual(second, [1, 2, 3, 4]);
    assert.equal(store.get('/k/dependent'), undefined);
    store.close();
  });

  test('a throwing listener is reported and does not fail the write or starve others', () => {
    const reported: string[] = [];
    const store = SqliteStore.open(':memory:', {
      onBackgroundError: (_error, context) => reported.push(context),
    });
    const heard: number[] = [];
    store.subscribe(() => {
      throw new Error('boom');
    });
    store.subscribe((e) => heard.push(e.revision));
    assert.equal(store.create('/k/a', {}).revision, 1);
    assert.deepEqual(heard, [1]);
    assert.deepEqual(reported, ['store listener for ADDED /k/a at revision 1']);
    store.close();
  });

  test('a listener removed by another during an event does not hear it', () => {
    const store = SqliteStore.open(':memory:');
    const heard: number[] = [];
    let removeSecond = () => {};
    store.subscribe(() => removeSecond());
    removeSecond = store.subscribe((e) => heard.push(e.revision));
    store.create('/k/a', {});
    assert.deepEqual(heard, []);
    store.close();
  });

  test('the writer cannot change what subscribers were given through the object returned to it', () => {
    const store = SqliteStore.open(':memory:');
    let event: StoreEvent | undefined;
    store.subscribe((e) => {
      event = e;
    });
    const created = store.create('/k/a', { spec: { v: 1 } });
    assert.throws(() => {
      created.object.spec.v = 2;
    }, TypeError);
    assert.equal(event!.object.spec.v, 1);
    store.close();
  });
});
