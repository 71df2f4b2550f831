// The store refuses, like etcd, to keep an object larger than its limit (default 1.5 MiB): on create
// and on update, counting UTF-8 bytes, and the refused write changes nothing.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { SqliteStore } from '../../../src/apiserver/storage/sqlite-store.ts';
import { MAX_OBJECT_BYTES, StoreTooLargeError } from '../../../src/apiserver/storage/types.ts';

const KEY = '/core/configmaps/default/c';

test('an object above the limit is refused on create and update, and nothing changes', () => {
  const store = SqliteStore.open(':memory:', { maxObjectBytes: 1000 });
  try {
    assert.throws(
      () => store.create(KEY, { metadata: { name: 'c' }, data: { x: 'a'.repeat(1000) } }),
      (err: unknown) => err instanceof StoreTooLargeError && err.limit === 1000 && err.bytes > 1000,
    );
    assert.equal(store.get(KEY), undefined);
    const created = store.create(KEY, { metadata: { name: 'c' }, data: { x: 'small' } });
    // 400 three-byte characters: 400 UTF-16 units, 1,200 bytes.
    assert.throws(
      () => store.update(KEY, created.revision, { metadata: { name: 'c' }, data: { x: '€'.repeat(400) } }),
      StoreTooLargeError,
    );
    assert.equal(store.get(KEY)?.object.data.x, 'small');
    assert.equal(store.currentRevision(), created.revision);
  } finally {
    store.close();
  }
});

test('the default limit is etcd’s 1.5 MiB', () => {
  assert.equal(MAX_OBJECT_BYTES, 1.5 * 1024 * 1024);
  const store = SqliteStore.open(':memory:');
  try {
    store.create(KEY, { metadata: { name: 'c' }, data: { x: 'a'.repeat(MAX_OBJECT_BYTES - 100) } });
    assert.throws(
      () => store.create(`${KEY}2`, { metadata: { name: 'c2' }, data: { x: 'a'.repeat(MAX_OBJECT_BYTES) } }),
      StoreTooLargeError,
    );
  } finally {
    store.close();
  }
});
