// The agent's state records are read back through hasFields (json-record-file.ts): a record with a
// field missing or of another type is not taken for one.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { hasFields } from '../../../src/agent/apply/json-record-file.ts';

const FIELDS = { request: 'string', seenAt: 'number', asked: 'boolean' } as const;

test('hasFields: every named field present with its type', () => {
  assert.equal(hasFields({ request: 'r', seenAt: 1, asked: false, extra: null }, FIELDS), true);
  assert.equal(hasFields({ request: 'r', seenAt: 1 }, FIELDS), false, 'a field missing');
  assert.equal(hasFields({ request: 'r', seenAt: '1', asked: false }, FIELDS), false, 'a number as text');
  assert.equal(hasFields({ request: null, seenAt: 1, asked: false }, FIELDS), false, 'null');
  assert.equal(hasFields(['r', 1, false], FIELDS), false, 'an array');
  assert.equal(hasFields(null, FIELDS), false);
  assert.equal(hasFields('r', FIELDS), false);
});

test('hasFields: a field given as a list of strings must be one of them', () => {
  const KIND = { kind: ['reboot', 'self'], at: 'number' } as const;
  assert.equal(hasFields({ kind: 'self', at: 1 }, KIND), true);
  assert.equal(hasFields({ kind: 'halt', at: 1 }, KIND), false, 'another string');
  assert.equal(hasFields({ at: 1 }, KIND), false, 'missing');
  assert.equal(hasFields({ kind: ['self'], at: 1 }, KIND), false, 'a list holding one');
});
