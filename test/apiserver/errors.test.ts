import assert from 'node:assert/strict';
import { test } from 'node:test';
import { conflict, invalid, notFound } from '../../src/apiserver/errors.ts';

const widget = { group: 'example.com', resource: 'widgets', kind: 'Widget', name: 'w1' };

test('NotFound renders the Status body a real API server sends', () => {
  assert.deepEqual(notFound(widget).toStatus(), {
    kind: 'Status',
    apiVersion: 'v1',
    metadata: {},
    status: 'Failure',
    message: 'widgets.example.com "w1" not found',
    reason: 'NotFound',
    details: { name: 'w1', group: 'example.com', kind: 'widgets' },
    code: 404,
  });
});

test('Conflict carries the message clients match on', () => {
  const err = conflict({ ...widget, group: '', resource: 'nodes', kind: 'Node' });
  assert.equal(err.code, 409);
  assert.match(err.message, /^Operation cannot be fulfilled on nodes "w1": the object has been modified/);
});

test('Invalid lists every cause with its field path', () => {
  const err = invalid(widget, [
    { field: 'spec.size', message: 'must be positive', type: 'FieldValueInvalid' },
  ]);
  assert.equal(err.code, 422);
  assert.equal(err.message, 'Widget.example.com "w1" is invalid: spec.size: must be positive');
  assert.deepEqual((err.toStatus().details as { causes: unknown }).causes, [
    { reason: 'FieldValueInvalid', message: 'must be positive', field: 'spec.size' },
  ]);
});

test('Invalid brackets several causes and drops duplicates, as kube aggregates them', () => {
  const err = invalid({ group: '', resource: 'pods', kind: 'Pod', name: 'p' }, [
    { field: 'spec.a', message: 'Required value' },
    { field: 'spec.b', message: 'Required value' },
    { field: 'spec.a', message: 'Required value' },
  ]);
  assert.equal(err.message, 'Pod "p" is invalid: [spec.a: Required value, spec.b: Required value]');
});
