import assert from 'node:assert/strict';
import { test } from 'node:test';
import { isConfigMapKey } from '../../../src/apiserver/schema/config-data-validation.ts';

const tooLong = 'must be no more than 253 characters';

test('config keys: kube’s pattern, dots and a length of 253 counted in bytes as Go does', () => {
  assert.deepEqual(isConfigMapKey('app.properties'), []);
  assert.deepEqual(isConfigMapKey('a'.repeat(253)), []);
  assert.deepEqual(isConfigMapKey('a'.repeat(254)), [tooLong]);
  assert.deepEqual(isConfigMapKey('.'), ["must not be '.'"]);
  assert.deepEqual(isConfigMapKey('..'), ["must not be '..'"]);
  assert.deepEqual(isConfigMapKey('..data'), ["must not start with '..'"]);
  // 127 two-byte characters: 254 bytes, 127 UTF-16 units. kube says both: too long, and not the pattern.
  const wide = isConfigMapKey('é'.repeat(127));
  assert.equal(wide.length, 2);
  assert.equal(wide[0], tooLong);
  assert.match(wide[1]!, /^a valid config key must consist of alphanumeric characters/);
});
