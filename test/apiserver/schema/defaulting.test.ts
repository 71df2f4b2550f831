import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { JSONSchemaProps } from '../../../src/apiserver/registry/resource-definition.ts';
import { applyDefaults } from '../../../src/apiserver/schema/defaulting.ts';
import { nodeConfigSchema } from './node-config-fixture.ts';

test('defaults fill list items, nested objects that exist, and objects defaulted themselves', () => {
  const obj = {
    apiVersion: 'nodeherd.io/v1alpha1',
    kind: 'NodeConfig',
    metadata: { name: 'x' },
    spec: {
      files: [
        { path: '/etc/motd', content: { inline: { data: 'hi' } } },
        { path: '/etc/b', mode: 384 },
      ],
      units: [{ name: 'a.service' }, { name: 'b.service', enabled: false, state: 'stopped' }],
    },
  };
  applyDefaults(obj, nodeConfigSchema);
  assert.deepEqual(obj.spec, {
    files: [
      { path: '/etc/motd', mode: 420, owner: 'root', content: { inline: { data: 'hi', encoding: 'plain' } } },
      // content is absent, so nothing below it is defaulted
      { path: '/etc/b', mode: 384, owner: 'root' },
    ],
    units: [
      { name: 'a.service', enabled: true, state: 'running' },
      { name: 'b.service', enabled: false, state: 'stopped' },
    ],
    // rollout defaults to {} and its own properties are then defaulted inside it
    rollout: { maxUnavailable: 1 },
  });
  assert.equal('status' in obj, false, 'no default, no parent: nothing is created');
});

test('table: when a default applies', () => {
  const schema: JSONSchemaProps = {
    type: 'object',
    properties: {
      a: { type: 'string', default: 'A' },
      nullableWithDefault: { type: 'string', nullable: true, default: 'N' },
      nullDefault: { type: 'string', default: null },
      map: {
        type: 'object',
        additionalProperties: { type: 'object', properties: { x: { type: 'integer', default: 7 } } },
      },
      list: { type: 'array', items: { type: 'string', default: 'item' } },
      obj: {
        type: 'object',
        default: { x: 1 },
        properties: { x: { type: 'integer' }, y: { type: 'integer', default: 2 } },
      },
    },
  };
  const base = { a: 'A', nullableWithDefault: 'N', obj: { x: 1, y: 2 } };
  const cases: [string, Record<string, unknown>, Record<string, unknown>][] = [
    ['absent fields', {}, base],
    ['explicit value kept', { a: 'mine' }, { ...base, a: 'mine' }],
    ['null on a non-nullable field is replaced', { a: null }, base],
    ['null on a nullable field stays', { nullableWithDefault: null }, { ...base, nullableWithDefault: null }],
    ['a null default is no default', { nullDefault: null }, { ...base, nullDefault: null }],
    ['map values are defaulted', { map: { k: {} } }, { ...base, map: { k: { x: 7 } } }],
    ['null list items take the item default', { list: ['x', null] }, { ...base, list: ['x', 'item'] }],
    ['an explicit object is not replaced by its default', { obj: {} }, { ...base, obj: { y: 2 } }],
  ];
  for (const [name, input, want] of cases)
    assert.deepEqual(applyDefaults(structuredClone(input), schema), want, name);
});

test('defaults are deep copies', () => {
  const schema: JSONSchemaProps = {
    type: 'object',
    properties: { tags: { type: 'array', items: { type: 'string' }, default: ['a'] } },
  };
  const first = applyDefaults({} as Record<string, any>, schema);
  first.tags.push('b');
  assert.deepEqual(applyDefaults({}, schema), { tags: ['a'] });
  assert.deepEqual(schema.properties!.tags!.default, ['a']);
});
