import assert from 'node:assert/strict';
import { test } from 'node:test';
import { applyMergePatch } from '../../../src/apiserver/patch/json-merge-patch.ts';
import type { JsonValue } from '../../../src/apiserver/patch/json-value.ts';

// RFC 7386 appendix A, verbatim, plus the bodies kubectl label / annotate send.
const cases: { name: string; target: JsonValue; patch: JsonValue; result: JsonValue }[] = [
  { name: 'replace a member', target: { a: 'b' }, patch: { a: 'c' }, result: { a: 'c' } },
  { name: 'add a member', target: { a: 'b' }, patch: { b: 'c' }, result: { a: 'b', b: 'c' } },
  { name: 'null removes a member', target: { a: 'b' }, patch: { a: null }, result: {} },
  {
    name: 'null removes only that member',
    target: { a: 'b', b: 'c' },
    patch: { a: null },
    result: { b: 'c' },
  },
  { name: 'scalar replaces an array', target: { a: ['b'] }, patch: { a: 'c' }, result: { a: 'c' } },
  { name: 'array replaces a scalar', target: { a: 'c' }, patch: { a: ['b'] }, result: { a: ['b'] } },
  {
    name: 'nested objects merge, nested null deletes',
    target: { a: { b: 'c' } },
    patch: { a: { b: 'd', c: null } },
    result: { a: { b: 'd' } },
  },
  {
    name: 'arrays are replaced, not merged',
    target: { a: [{ b: 'c' }] },
    patch: { a: [1] },
    result: { a: [1] },
  },
  { name: 'array document replaced', target: ['a', 'b'], patch: ['c', 'd'], result: ['c', 'd'] },
  { name: 'array patch replaces an object', target: { a: 'b' }, patch: ['c'], result: ['c'] },
  { name: 'null patch', target: { a: 'foo' }, patch: null, result: null },
  { name: 'string patch', target: { a: 'foo' }, patch: 'bar', result: 'bar' },
  { name: 'stored nulls are left alone', target: { e: null }, patch: { a: 1 }, result: { e: null, a: 1 } },
  { name: 'object patch onto an array', target: [1, 2], patch: { a: 'b', c: null }, result: { a: 'b' } },
  {
    name: 'nulls in new objects vanish',
    target: {},
    patch: { a: { bb: { ccc: null } } },
    result: { a: { bb: {} } },
  },
  {
    name: 'kubectl label',
    target: { metadata: { name: 'n1', labels: { a: '1' } } },
    patch: { metadata: { labels: { env: 'prod' } } },
    result: { metadata: { name: 'n1', labels: { a: '1', env: 'prod' } } },
  },
  {
    name: 'kubectl annotate note- (null removes the annotation)',
    target: { metadata: { name: 'n1', annotations: { note: 'x', keep: 'y' } } },
    patch: { metadata: { annotations: { note: null } } },
    result: { metadata: { name: 'n1', annotations: { keep: 'y' } } },
  },
  {
    name: 'kubectl label --resource-version pins the version in the body',
    target: { metadata: { name: 'n1', resourceVersion: '12' } },
    patch: { metadata: { labels: { a: 'b' }, resourceVersion: '12' } },
    result: { metadata: { name: 'n1', resourceVersion: '12', labels: { a: 'b' } } },
  },
  {
    name: 'nulls inside objects held in a new array are pruned like the API server does',
    target: {},
    patch: { items: [{ a: 1, b: null }, null] },
    result: { items: [{ a: 1 }, null] },
  },
];

for (const c of cases) {
  test(`merge patch: ${c.name}`, () => {
    assert.deepEqual(applyMergePatch(c.target, c.patch), c.result);
  });
}

test('merge patch leaves both inputs untouched', () => {
  const target = { a: { b: 1, c: [1] } };
  const patch = { a: { b: null, d: 2 } };
  const targetCopy = structuredClone(target);
  const patchCopy = structuredClone(patch);
  const result = applyMergePatch(target, patch);
  assert.deepEqual(result, { a: { c: [1], d: 2 } });
  assert.deepEqual(target, targetCopy);
  assert.deepEqual(patch, patchCopy);
});

test('a "__proto__" member is stored as a plain key, never as the prototype', () => {
  const patch = JSON.parse('{"__proto__": {"polluted": true}, "a": 1}');
  const result = applyMergePatch({}, patch) as Record<string, unknown>;
  assert.equal(Object.getPrototypeOf(result), Object.prototype);
  assert.equal(({} as Record<string, unknown>).polluted, undefined);
  assert.deepEqual(Object.keys(result).sort(), ['__proto__', 'a']);
});
