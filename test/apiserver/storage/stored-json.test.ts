import assert from 'node:assert/strict';
import { test } from 'node:test';
import { SqliteStore } from '../../../src/apiserver/storage/sqlite-store.ts';
import { jsonText, listJsonText, markStored } from '../../../src/apiserver/storage/stored-json.ts';

test("the text of a store object is JSON.stringify's, made once", () => {
  const store = SqliteStore.open(':memory:');
  const created = store.create('/core/configmaps/default/a', {
    metadata: { name: 'a', namespace: 'default' },
    data: { x: 'ü', n: '1' },
  });
  const text = jsonText(created.object);
  assert.equal(text, JSON.stringify(created.object));
  assert.equal(jsonText(created.object), text, 'answered again');
  // What the store hands out next is another object with its own text.
  const updated = store.update(created.key, created.revision, { metadata: { name: 'a' }, data: { n: '2' } });
  assert.equal(jsonText(updated.object), JSON.stringify(updated.object));
  const deleted = store.delete(created.key);
  assert.equal(jsonText(deleted.object), JSON.stringify(deleted.object));
  assert.match(jsonText(deleted.object), new RegExp(`"resourceVersion":"${deleted.revision}"`));
  store.close();
});

test('objects not of the store are serialised every time', () => {
  const object = { a: 1 };
  assert.equal(jsonText(object), '{"a":1}');
  object.a = 2;
  assert.equal(jsonText(object), '{"a":2}');
  assert.equal(jsonText(undefined), undefined);
  assert.equal(jsonText('x'), '"x"');
});

test('a list text is the text of the list object', () => {
  const items = [
    markStored(Object.freeze({ metadata: Object.freeze({ name: 'a' }) })),
    { metadata: { name: 'b' } },
  ];
  for (const metadata of [{ resourceVersion: '7' }, { resourceVersion: '7', continue: 'x' }]) {
    const list = { kind: 'ConfigMapList', apiVersion: 'v1', metadata, items };
    assert.equal(listJsonText(list), JSON.stringify(list));
    assert.equal(listJsonText({ ...list, items: [] }), JSON.stringify({ ...list, items: [] }));
  }
});

test('texts past the kept amount are made again, the same', () => {
  const big = (n: number) =>
    markStored(Object.freeze({ n, data: Object.freeze({ text: 'x'.repeat(500_000) }) }));
  const objects = Array.from({ length: 24 }, (_, n) => big(n));
  const first = objects.map((object) => jsonText(object));
  for (const [n, object] of objects.entries()) {
    assert.equal(jsonText(object), first[n]);
    assert.equal(first[n], JSON.stringify(object));
  }
});
