import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  aggregateMessage,
  duplicate,
  forbidden,
  invalid,
  notSupported,
  required,
  tooLong,
  tooMany,
  typeInvalid,
} from '../../../src/apiserver/schema/field-errors.ts';

test('each constructor produces the type, ErrorBody and field kube would', () => {
  const cases = [
    [required('spec.files[0].path'), 'FieldValueRequired', 'Required value', 'spec.files[0].path'],
    [
      required('metadata.name', 'name or generateName is required'),
      'FieldValueRequired',
      'Required value: name or generateName is required',
      'metadata.name',
    ],
    [
      invalid('spec.mode', 5000, 'must be at most 4095'),
      'FieldValueInvalid',
      'Invalid value: 5000: must be at most 4095',
      'spec.mode',
    ],
    [
      typeInvalid('spec.x', 'string', 'spec.x in body must be of type integer: "string"'),
      'FieldValueTypeInvalid',
      'Invalid value: "string": spec.x in body must be of type integer: "string"',
      'spec.x',
    ],
    [
      forbidden('metadata.namespace', 'not allowed on this type'),
      'FieldValueForbidden',
      'Forbidden: not allowed on this type',
      'metadata.namespace',
    ],
    [
      duplicate('spec.units[1]', { name: 'a.service' }),
      'FieldValueDuplicate',
      'Duplicate value: {"name":"a.service"}',
      'spec.units[1]',
    ],
    [
      notSupported('spec.state', 'paused', ['running', 'stopped']),
      'FieldValueNotSupported',
      'Unsupported value: "paused": supported values: "running", "stopped"',
      'spec.state',
    ],
    [tooLong('spec.path', 64), 'FieldValueTooLong', 'Too long: may not be more than 64 bytes', 'spec.path'],
    [tooLong('spec.c', 1), 'FieldValueTooLong', 'Too long: may not be more than 1 byte', 'spec.c'],
    [
      tooMany('spec.files', 5, 4),
      'FieldValueTooMany',
      'Too many: 5: must have at most 4 items',
      'spec.files',
    ],
    [
      invalid('', '', '"spec" must validate at least one schema (anyOf)'),
      'FieldValueInvalid',
      'Invalid value: "": "spec" must validate at least one schema (anyOf)',
      '<nil>',
    ],
  ] as const;
  for (const [cause, type, message, field] of cases) assert.deepEqual(cause, { type, message, field });
});

test('aggregateMessage lists one cause bare and several in brackets, without duplicates', () => {
  const a = required('spec.a');
  const b = invalid('spec.b', 1, 'bad');
  assert.equal(aggregateMessage([a]), 'spec.a: Required value');
  assert.equal(aggregateMessage([a, b, a]), '[spec.a: Required value, spec.b: Invalid value: 1: bad]');
});
