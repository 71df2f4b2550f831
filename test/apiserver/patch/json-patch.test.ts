import assert from 'node:assert/strict';
import { test } from 'node:test';
import { applyJsonPatch } from '../../../src/apiserver/patch/json-patch.ts';
import type { JsonValue } from '../../../src/apiserver/patch/json-value.ts';
import { assertApiError } from './assert-api-error.ts';

// RFC 6902 appendix A (the successful examples), plus what controllers send through client-node.
const applies: { name: string; doc: JsonValue; patch: JsonValue; result: JsonValue }[] = [
  {
    name: 'A.1 add an object member',
    doc: { foo: 'bar' },
    patch: [{ op: 'add', path: '/baz', value: 'qux' }],
    result: { baz: 'qux', foo: 'bar' },
  },
  {
    name: 'A.2 add an array element',
    doc: { foo: ['bar', 'baz'] },
    patch: [{ op: 'add', path: '/foo/1', value: 'qux' }],
    result: { foo: ['bar', 'qux', 'baz'] },
  },
  {
    name: 'A.3 remove an object member',
    doc: { baz: 'qux', foo: 'bar' },
    patch: [{ op: 'remove', path: '/baz' }],
    result: { foo: 'bar' },
  },
  {
    name: 'A.4 remove an array element',
    doc: { foo: ['bar', 'qux', 'baz'] },
    patch: [{ op: 'remove', path: '/foo/1' }],
    result: { foo: ['bar', 'baz'] },
  },
  {
    name: 'A.5 replace a value',
    doc: { baz: 'qux', foo: 'bar' },
    patch: [{ op: 'replace', path: '/baz', value: 'boo' }],
    result: { baz: 'boo', foo: 'bar' },
  },
  {
    name: 'A.6 move a value',
    doc: { foo: { bar: 'baz', waldo: 'fred' }, qux: { corge: 'grault' } },
    patch: [{ op: 'move', from: '/foo/waldo', path: '/qux/thud' }],
    result: { foo: { bar: 'baz' }, qux: { corge: 'grault', thud: 'fred' } },
  },
  {
    name: 'A.7 move an array element',
    doc: { foo: ['all', 'grass', 'cows', 'eat'] },
    patch: [{ op: 'move', from: '/foo/1', path: '/foo/3' }],
    result: { foo: ['all', 'cows', 'eat', 'grass'] },
  },
  {
    name: 'A.8 test succeeds',
    doc: { baz: 'qux', foo: ['a', 2, 'c'] },
    patch: [
      { op: 'test', path: '/baz', value: 'qux' },
      { op: 'test', path: '/foo/1', value: 2 },
    ],
    result: { baz: 'qux', foo: ['a', 2, 'c'] },
  },
  {
    name: 'A.10 add a nested member object',
    doc: { foo: 'bar' },
    patch: [{ op: 'add', path: '/child', value: { grandchild: {} } }],
    result: { foo: 'bar', child: { grandchild: {} } },
  },
  {
    name: 'A.11 unrecognized members of an operation are ignored',
    doc: { foo: 'bar' },
    patch: [{ op: 'add', path: '/baz', value: 'qux', xyz: 123 }],
    result: { foo: 'bar', baz: 'qux' },
  },
  {
    name: 'A.14 ~0 and ~1 are unescaped in the right order',
    doc: { '/': 9, '~1': 10 },
    patch: [{ op: 'test', path: '/~01', value: 10 }],
    result: { '/': 9, '~1': 10 },
  },
  {
    name: 'A.16 "-" appends, an array value is added as one element',
    doc: { foo: ['bar'] },
    patch: [{ op: 'add', path: '/foo/-', value: ['abc', 'def'] }],
    result: { foo: ['bar', ['abc', 'def']] },
  },
  {
    name: 'copy deep-copies the value',
    doc: { a: { b: [1] } },
    patch: [
      { op: 'copy', from: '/a', path: '/c' },
      { op: 'add', path: '/c/b/-', value: 2 },
    ],
    result: { a: { b: [1] }, c: { b: [1, 2] } },
  },
  {
    name: 'add on an existing member replaces it',
    doc: { a: 1 },
    patch: [{ op: 'add', path: '/a', value: 2 }],
    result: { a: 2 },
  },
  {
    name: 'add at the end index of an array',
    doc: { a: [1] },
    patch: [{ op: 'add', path: '/a/1', value: 2 }],
    result: { a: [1, 2] },
  },
  {
    name: 'an annotation key with a slash, escaped as ~1',
    doc: { metadata: { name: 'n1', annotations: {} } },
    patch: [{ op: 'add', path: '/metadata/annotations/nodeherd.io~1desired-revision', value: 'pool-abc' }],
    result: { metadata: { name: 'n1', annotations: { 'nodeherd.io/desired-revision': 'pool-abc' } } },
  },
  {
    name: 'optimistic concurrency: test resourceVersion, then replace',
    doc: { metadata: { resourceVersion: '7' }, spec: { paused: false } },
    patch: [
      { op: 'test', path: '/metadata/resourceVersion', value: '7' },
      { op: 'replace', path: '/spec/paused', value: true },
    ],
    result: { metadata: { resourceVersion: '7' }, spec: { paused: true } },
  },
  {
    name: 'replace of a missing object member adds it (as the API server does)',
    doc: { metadata: {} },
    patch: [{ op: 'replace', path: '/metadata/labels', value: { a: 'b' } }],
    result: { metadata: { labels: { a: 'b' } } },
  },
  {
    name: 'test of a missing member against null passes (as the API server does)',
    doc: { a: 1 },
    patch: [{ op: 'test', path: '/b', value: null }],
    result: { a: 1 },
  },
  {
    name: 'replace the whole document',
    doc: { a: 1 },
    patch: [{ op: 'replace', path: '', value: { b: 2 } }],
    result: { b: 2 },
  },
  { name: 'an empty patch changes nothing', doc: { a: 1 }, patch: [], result: { a: 1 } },
];

for (const c of applies) {
  test(`json patch: ${c.name}`, () => {
    assert.deepEqual(applyJsonPatch(c.doc, c.patch), c.result);
  });
}

// Operations that do not apply: 422 Invalid with the generic message, the reason kept as a cause.
const fails: { name: string; doc: JsonValue; patch: JsonValue; cause: string }[] = [
  {
    name: 'A.9 a failing test',
    doc: { baz: 'qux' },
    patch: [{ op: 'test', path: '/baz', value: 'bar' }],
    cause: 'testing value /baz failed: test failed',
  },
  {
    name: 'A.12 add to a nonexistent target',
    doc: { foo: 'bar' },
    patch: [{ op: 'add', path: '/baz/bat', value: 'qux' }],
    cause: 'add operation does not apply: doc is missing path: "/baz/bat"',
  },
  {
    name: 'A.15 strings and numbers differ',
    doc: { '/': 9, '~1': 10 },
    patch: [{ op: 'test', path: '/~01', value: '10' }],
    cause: 'testing value /~01 failed: test failed',
  },
  {
    name: 'remove a missing member',
    doc: { a: 1 },
    patch: [{ op: 'remove', path: '/b' }],
    cause: 'remove operation does not apply: Unable to remove nonexistent key: b',
  },
  {
    name: 'array index past the end',
    doc: { a: [1] },
    patch: [{ op: 'add', path: '/a/5', value: 2 }],
    cause: 'add operation does not apply: invalid index referenced: 5',
  },
  {
    name: 'array index with a leading zero',
    doc: { a: [1, 2] },
    patch: [{ op: 'remove', path: '/a/01' }],
    cause: 'remove operation does not apply: invalid index referenced: 01',
  },
  {
    name: 'replace an array element that does not exist',
    doc: { a: [] },
    patch: [{ op: 'replace', path: '/a/0', value: 1 }],
    cause: 'replace operation does not apply: invalid index referenced: 0',
  },
  {
    name: 'move into its own child',
    doc: { a: { b: 1 } },
    patch: [{ op: 'move', from: '/a', path: '/a/b/c' }],
    cause: 'move operation does not apply: "/a/b/c" is a child of "/a"',
  },
  {
    name: 'copy from a missing member',
    doc: { a: 1 },
    patch: [{ op: 'copy', from: '/x', path: '/y' }],
    cause: 'copy operation does not apply: doc is missing from path: /x',
  },
  {
    name: 'an unknown op',
    doc: {},
    patch: [{ op: 'frobnicate', path: '/a' }],
    cause: 'Unexpected kind: frobnicate',
  },
  { name: 'an op without "op"', doc: {}, patch: [{ path: '/a' }], cause: 'Unexpected kind: unknown' },
  {
    name: 'an op without "path"',
    doc: {},
    patch: [{ op: 'remove' }],
    cause: 'remove operation missing path field',
  },
  {
    name: 'add without "value"',
    doc: {},
    patch: [{ op: 'add', path: '/a' }],
    cause: 'add operation missing value field',
  },
  {
    name: 'a pointer that does not start with "/"',
    doc: { a: 1 },
    patch: [{ op: 'remove', path: 'a' }],
    cause: 'remove operation does not apply: JSON pointer "a" must be empty or start with "/"',
  },
  {
    name: 'a pointer with a bad escape',
    doc: { a: 1 },
    patch: [{ op: 'remove', path: '/~2' }],
    cause: 'remove operation does not apply: JSON pointer "/~2" has an invalid escape sequence',
  },
];

for (const c of fails) {
  test(`json patch fails with 422: ${c.name}`, () => {
    const err = assertApiError(
      () => applyJsonPatch(c.doc, c.patch),
      422,
      'Invalid',
      'the server rejected our request due to an error in our request',
    );
    assert.deepEqual(err.details?.causes, [{ message: c.cause }]);
  });
}

test('json patch is all or nothing and never modifies its input', () => {
  const doc = { a: 1, list: [1, 2] };
  assertApiError(
    () =>
      applyJsonPatch(doc, [
        { op: 'replace', path: '/a', value: 2 },
        { op: 'remove', path: '/list/0' },
        { op: 'test', path: '/a', value: 3 },
      ]),
    422,
    'Invalid',
  );
  assert.deepEqual(doc, { a: 1, list: [1, 2] });
});

const malformed: { name: string; patch: JsonValue; message: string }[] = [
  {
    name: 'an object instead of an array',
    patch: { op: 'add' },
    message: 'json: cannot unmarshal object into Go value of type jsonpatch.Patch',
  },
  { name: 'null', patch: null, message: 'json: cannot unmarshal null into Go value of type jsonpatch.Patch' },
  {
    name: 'an operation that is not an object (even after a failing one)',
    patch: [{ op: 'test', path: '/a', value: 9 }, 'remove'],
    message: 'json: cannot unmarshal string into Go value of type jsonpatch.Operation',
  },
];

for (const c of malformed) {
  test(`json patch document that is malformed is 400: ${c.name}`, () => {
    assertApiError(() => applyJsonPatch({ a: 1 }, c.patch), 400, 'BadRequest', c.message);
  });
}

test('more than 10000 operations is 413 RequestEntityTooLarge', () => {
  const ops = Array.from({ length: 10001 }, () => ({ op: 'test', path: '/a', value: 1 }));
  assertApiError(
    () => applyJsonPatch({ a: 1 }, ops),
    413,
    'RequestEntityTooLarge',
    'Request entity too large: The allowed maximum operations in a JSON patch is 10000, got 10001',
  );
  assert.deepEqual(applyJsonPatch({ a: 1 }, ops.slice(1)), { a: 1 });
});
