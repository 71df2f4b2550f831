import assert from 'node:assert/strict';
import { test } from 'node:test';
import { nameIsDNSLabel } from '../../../src/apiserver/schema/names.ts';
import { validateObjectMeta } from '../../../src/apiserver/schema/object-meta-validation.ts';

test('a valid cluster-scoped object has no causes', () => {
  const meta = { name: 'workers', labels: { tier: 'edge' }, finalizers: ['nodeherd.io/cleanup'] };
  assert.deepEqual(validateObjectMeta(meta, { namespaced: false }), []);
});

test('name or generateName is required, namespace follows the scope', () => {
  assert.deepEqual(validateObjectMeta({}, { namespaced: true }), [
    {
      type: 'FieldValueRequired',
      message: 'Required value: name or generateName is required',
      field: 'metadata.name',
    },
    { type: 'FieldValueRequired', message: 'Required value', field: 'metadata.namespace' },
  ]);
  assert.deepEqual(validateObjectMeta({ name: 'a', namespace: 'default' }, { namespaced: false }), [
    {
      type: 'FieldValueForbidden',
      message: 'Forbidden: not allowed on this type',
      field: 'metadata.namespace',
    },
  ]);
  const [bad] = validateObjectMeta({ name: 'a', namespace: 'Default' }, { namespaced: true });
  assert.equal(bad!.field, 'metadata.namespace');
  assert.match(bad!.message, /^Invalid value: "Default": a lowercase RFC 1123 label/);
});

test('the kind name rule applies to name and generateName', () => {
  const causes = validateObjectMeta(
    { name: 'a.b', generateName: 'x.y-' },
    { namespaced: false, nameValidator: nameIsDNSLabel },
  );
  assert.deepEqual(
    causes.map((c) => [c.field, c.message]),
    [
      ['metadata.generateName', 'Invalid value: "x.y-": must not contain dots'],
      ['metadata.name', 'Invalid value: "a.b": must not contain dots'],
    ],
  );
});

test('ownerReferences: each missing field on the list path, one controller only', () => {
  const refs = [
    { apiVersion: 'nodeherd.io/v1alpha1', kind: 'NodeConfigPool', name: 'p', uid: 'u1', controller: true },
    { apiVersion: 'nodeherd.io/', kind: '', name: '', uid: '', controller: true },
  ];
  const causes = validateObjectMeta({ name: 'r', ownerReferences: refs }, { namespaced: false });
  assert.deepEqual(
    causes.map((c) => [c.field, c.message.split(':')[0]]),
    [
      ['metadata.ownerReferences.apiVersion', 'Invalid value'],
      ['metadata.ownerReferences.kind', 'Invalid value'],
      ['metadata.ownerReferences.name', 'Invalid value'],
      ['metadata.ownerReferences.uid', 'Invalid value'],
      ['metadata.ownerReferences', 'Invalid value'],
    ],
  );
  assert.match(causes[0]!.message, /version must not be empty$/);
  assert.match(
    causes[4]!.message,
    /Only one reference can have Controller set to true\. Found "true" in references for NodeConfigPool\/p and \/$/,
  );
});

test('finalizers are qualified names and orphan excludes foregroundDeletion', () => {
  const causes = validateObjectMeta(
    { name: 'a', finalizers: ['orphan', 'foregroundDeletion', 'bad name'] },
    { namespaced: false },
  );
  assert.equal(causes.length, 2);
  assert.match(causes[0]!.message, /^Invalid value: "bad name": name part must consist/);
  assert.equal(
    causes[1]!.message,
    'Invalid value: ["orphan","foregroundDeletion","bad name"]: finalizer orphan and foregroundDeletion cannot be both set',
  );
});

test('generation may not be negative; custom paths are honoured', () => {
  const causes = validateObjectMeta(
    { name: 'a', generation: -1 },
    { namespaced: false, path: 'spec.template.metadata' },
  );
  assert.deepEqual(causes, [
    {
      type: 'FieldValueInvalid',
      message: 'Invalid value: -1: must be greater than or equal to 0',
      field: 'spec.template.metadata.generation',
    },
  ]);
});
