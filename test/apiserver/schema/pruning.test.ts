import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { JSONSchemaProps } from '../../../src/apiserver/registry/resource-definition.ts';
import {
  pruneNonNullableNulls,
  pruneUnknownFields,
  strictDecodingError,
  unknownFieldWarnings,
} from '../../../src/apiserver/schema/pruning.ts';
import { nodeConfigSchema, validNodeConfig } from './node-config-fixture.ts';

test('unknown fields are removed and reported with their paths, sorted', () => {
  const obj = validNodeConfig();
  obj.spec.foo = 1;
  obj.spec.files[1].color = 'red';
  obj.spec.units[0].dropIns = [{ name: 'x.conf', content: 'a', extra: true }];
  obj.topLevel = { a: 1 };
  obj.spec.labels.anything = 'kept';
  const pruned = pruneUnknownFields(obj, nodeConfigSchema);
  assert.deepEqual(pruned, ['spec.files[1].color', 'spec.foo', 'spec.units[0].dropIns[0].extra', 'topLevel']);
  assert.equal(obj.spec.foo, undefined);
  assert.deepEqual(obj.spec.units[0].dropIns, [{ name: 'x.conf', content: 'a' }]);
  assert.equal(obj.spec.labels.anything, 'kept', 'additionalProperties keep any key');
  assert.deepEqual(pruneUnknownFields(validNodeConfig(), nodeConfigSchema), []);
});

test('apiVersion, kind and metadata survive at the root; unknown metadata fields do not', () => {
  const obj = {
    apiVersion: 'nodeherd.io/v1alpha1',
    kind: 'NodeConfig',
    metadata: {
      name: 'a',
      labels: { x: 'y' },
      bogus: true,
      ownerReferences: [{ apiVersion: 'v1', kind: 'Node', name: 'n', uid: 'u', weird: 1 }],
    },
  };
  assert.deepEqual(pruneUnknownFields(obj, nodeConfigSchema), [
    'metadata.bogus',
    'metadata.ownerReferences[0].weird',
  ]);
  assert.deepEqual(obj.metadata, {
    name: 'a',
    labels: { x: 'y' },
    ownerReferences: [{ apiVersion: 'v1', kind: 'Node', name: 'n', uid: 'u' }],
  });
});

test('x-kubernetes-preserve-unknown-fields keeps unknown fields but prunes declared subtrees', () => {
  const schema: JSONSchemaProps = {
    type: 'object',
    properties: {
      blob: {
        type: 'object',
        'x-kubernetes-preserve-unknown-fields': true,
        properties: { typed: { type: 'object', properties: { a: { type: 'string' } } } },
      },
    },
  };
  const obj = { blob: { free: { deep: [1, { x: 2 }] }, typed: { a: 'x', b: 'y' } } };
  assert.deepEqual(pruneUnknownFields(obj, schema), ['blob.typed.b']);
  assert.deepEqual(obj, { blob: { free: { deep: [1, { x: 2 }] }, typed: { a: 'x' } } });
});

test('embedded resources keep apiVersion/kind/metadata and lose unknown metadata fields', () => {
  const obj = validNodeConfig();
  obj.spec.template = {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name: 'p', junk: 1 },
    spec: { containers: [] },
  };
  assert.deepEqual(pruneUnknownFields(obj, nodeConfigSchema), ['spec.template.metadata.junk']);
  assert.deepEqual(obj.spec.template, {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name: 'p' },
    spec: { containers: [] },
  });

  const strict: JSONSchemaProps = {
    type: 'object',
    properties: {
      items: {
        type: 'array',
        items: {
          type: 'object',
          'x-kubernetes-embedded-resource': true,
          properties: { spec: { type: 'object' } },
        },
      },
    },
  };
  const list = {
    items: [{ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c' }, data: { a: 'b' }, spec: {} }],
  };
  assert.deepEqual(pruneUnknownFields(list, strict), ['items[0].data']);
  assert.deepEqual(list.items[0], { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c' }, spec: {} });
});

test('additionalProperties: true keeps keys but prunes what is below them; no schema prunes all but meta', () => {
  const schema: JSONSchemaProps = {
    type: 'object',
    properties: { m: { type: 'object', additionalProperties: true } },
  };
  const obj = { m: { k: { nested: 1 }, s: 'x' } };
  assert.deepEqual(pruneUnknownFields(obj, schema), ['m.k.nested']);
  assert.deepEqual(obj, { m: { k: {}, s: 'x' } });

  const bare = { apiVersion: 'x/v1', kind: 'X', metadata: { name: 'a' }, spec: { a: 1 } };
  assert.deepEqual(pruneUnknownFields(bare, undefined), ['spec']);
  assert.deepEqual(bare, { apiVersion: 'x/v1', kind: 'X', metadata: { name: 'a' } });
});

test('non-nullable nulls without a default are dropped; others are left for defaulting', () => {
  const obj = validNodeConfig();
  obj.spec.paused = null;
  obj.spec.notBefore = null;
  obj.spec.rollout.maxUnavailable = null;
  obj.spec.labels.gone = null;
  obj.spec.extra = { keep: null };
  pruneNonNullableNulls(obj, nodeConfigSchema);
  assert.equal('paused' in obj.spec, false);
  assert.equal(obj.spec.notBefore, null, 'nullable');
  assert.equal(obj.spec.rollout.maxUnavailable, null, 'has a default');
  assert.equal('gone' in obj.spec.labels, false, 'map values follow additionalProperties');
  assert.deepEqual(obj.spec.extra, { keep: null }, 'no schema below: untouched');
});

test('fieldValidation messages', () => {
  assert.deepEqual(unknownFieldWarnings(['spec.foo', 'metadata.bar']), [
    'unknown field "spec.foo"',
    'unknown field "metadata.bar"',
  ]);
  assert.equal(
    strictDecodingError(['spec.foo', 'spec.bar']),
    'strict decoding error: unknown field "spec.foo", unknown field "spec.bar"',
  );
});
