import assert from 'node:assert/strict';
import { test } from 'node:test';
import { definedFields } from '../../src/util/defined-fields.ts';

test('only the fields that are set are kept, in their order; null, 0, false and "" are set', () => {
  const kept = definedFields({ a: undefined, b: null, c: 0, d: false, e: '', f: undefined, g: 'x' });
  assert.deepEqual(Object.keys(kept), ['b', 'c', 'd', 'e', 'g']);
  assert.deepEqual(kept, { b: null, c: 0, d: false, e: '', g: 'x' });
});
