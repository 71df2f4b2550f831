import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { JSONSchemaProps } from '../../../src/apiserver/registry/resource-definition.ts';
import { validateStructuralSchema } from '../../../src/apiserver/schema/structural-schema-check.ts';
import { nodeConfigSchema } from './node-config-fixture.ts';

const at = 'spec.validation.openAPIV3Schema';

function texts(schema: JSONSchemaProps): string[] {
  return validateStructuralSchema(schema, at).map((c) => `${c.field}: ${c.message}`);
}

test('the NodeConfig schema is structural', () => {
  assert.deepEqual(texts(nodeConfigSchema), []);
});

test('non-structural schemas: one case per invariant', () => {
  const cases: [string, JSONSchemaProps, string[]][] = [
    [
      'untyped field',
      { type: 'object', properties: { spec: { properties: { a: { type: 'string' } } } } },
      [`${at}.properties[spec].type: Required value: must not be empty for specified object fields`],
    ],
    [
      'untyped items and array without items',
      { type: 'object', properties: { l: { type: 'array', items: {} }, m: { type: 'array' } } },
      [
        `${at}.properties[l].items.type: Required value: must not be empty for specified array items`,
        `${at}.properties[m].items: Required value: must be specified`,
      ],
    ],
    ['untyped root', { properties: {} }, [`${at}.type: Required value: must not be empty at the root`]],
    [
      'non-object root',
      { type: 'string' },
      [`${at}.type: Invalid value: "string": must be object at the root`],
    ],
    [
      'additionalProperties at the root',
      { type: 'object', additionalProperties: { type: 'string' } },
      [`${at}.additionalProperties: Forbidden: must not be used at the root`],
    ],
    [
      'types and defaults under junctors',
      {
        type: 'object',
        properties: {
          a: {
            type: 'string',
            anyOf: [
              { type: 'string', default: 'x' },
              { description: 'd', nullable: true },
            ],
          },
        },
      },
      [
        `${at}.properties[a].anyOf[0].default: Forbidden: must be undefined to be structural`,
        `${at}.properties[a].anyOf[0].type: Forbidden: must be empty to be structural`,
        `${at}.properties[a].anyOf[1].description: Forbidden: must be empty to be structural`,
        `${at}.properties[a].anyOf[1].nullable: Forbidden: must be false to be structural`,
      ],
    ],
    [
      'the int-or-string idioms may carry types',
      {
        type: 'object',
        properties: {
          a: { 'x-kubernetes-int-or-string': true, anyOf: [{ type: 'integer' }, { type: 'string' }] },
          b: {
            'x-kubernetes-int-or-string': true,
            allOf: [{ anyOf: [{ type: 'integer' }, { type: 'string' }] }, { pattern: '^\\d' }],
          },
        },
      },
      [],
    ],
    [
      'int-or-string excludes preserve-unknown-fields and embedded-resource',
      {
        type: 'object',
        properties: {
          a: { 'x-kubernetes-int-or-string': true, 'x-kubernetes-preserve-unknown-fields': true },
        },
      },
      [
        `${at}.properties[a].x-kubernetes-preserve-unknown-fields: Invalid value: true: must be false if x-kubernetes-int-or-string is true`,
      ],
    ],
    [
      'fields only defined in a root junctor',
      {
        type: 'object',
        properties: { a: { type: 'string' } },
        oneOf: [{ required: ['a'] }, { properties: { b: { minLength: 1 } } }],
      },
      [`${at}.properties[b]: Required value: because it is defined in ${at}.oneOf[1].properties[b]`],
    ],
    [
      'embedded resources must be objects with properties or preserve-unknown-fields',
      {
        type: 'object',
        properties: {
          t: { type: 'string', 'x-kubernetes-embedded-resource': true },
          u: { type: 'object', 'x-kubernetes-embedded-resource': true },
        },
      },
      [
        `${at}.properties[t].properties: Required value: must not be empty if x-kubernetes-embedded-resource is true without x-kubernetes-preserve-unknown-fields`,
        `${at}.properties[t].type: Invalid value: "string": must be object if x-kubernetes-embedded-resource is true`,
        `${at}.properties[u].properties: Required value: must not be empty if x-kubernetes-embedded-resource is true without x-kubernetes-preserve-unknown-fields`,
      ],
    ],
    [
      'root metadata may only restrict name and generateName',
      {
        type: 'object',
        properties: {
          metadata: {
            type: 'object',
            properties: { name: { type: 'string', maxLength: 20 }, labels: { type: 'object' } },
          },
        },
      },
      [
        `${at}.properties[metadata]: Forbidden: must not specify anything other than name and generateName, but metadata is implicitly specified`,
      ],
    ],
    [
      'kind and apiVersion must be strings at the root',
      { type: 'object', properties: { kind: { type: 'integer' } } },
      [`${at}.properties[kind].type: Invalid value: "integer": must be string`],
    ],
    [
      'metadata is not allowed in nested junctors',
      {
        type: 'object',
        properties: { metadata: { type: 'object' } },
        anyOf: [{ properties: { metadata: { required: ['name'] } } }],
      },
      [`${at}.anyOf[0].properties[metadata]: Forbidden: must not be specified in a nested context`],
    ],
    [
      'patterns must compile as RE2',
      { type: 'object', properties: { a: { type: 'string', pattern: '^(?!x)' } } },
      [
        `${at}.properties[a].pattern: Invalid value: "^(?!x)": must be a valid regular expression, but isn't: error parsing regexp: invalid or unsupported Perl syntax: \`(?!\``,
      ],
    ],
  ];
  for (const [name, schema, want] of cases) assert.deepEqual(texts(schema), want, name);
});

test('preserve-unknown-fields nodes need no type', () => {
  assert.deepEqual(
    texts({ type: 'object', properties: { any: { 'x-kubernetes-preserve-unknown-fields': true } } }),
    [],
  );
});
