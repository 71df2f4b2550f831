import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { StatusCause } from '../../../src/apiserver/errors.ts';
import type { JSONSchemaProps } from '../../../src/apiserver/registry/resource-definition.ts';
import { validateListSetsAndMaps } from '../../../src/apiserver/schema/list-type-validation.ts';
import {
  validateAgainstSchema,
  validateCustomResource,
} from '../../../src/apiserver/schema/structural-validation.ts';
import { nodeConfigSchema, validNodeConfig } from './node-config-fixture.ts';

type Mutation = (obj: Record<string, any>) => void;

function causesAfter(mutate: Mutation): StatusCause[] {
  const obj = validNodeConfig();
  mutate(obj);
  return validateCustomResource(obj, nodeConfigSchema);
}

test('a valid NodeConfig has no causes', () => {
  assert.deepEqual(validateCustomResource(validNodeConfig(), nodeConfigSchema), []);
});

test('single-cause violations carry kube field paths, types and messages', () => {
  const cases: [string, Mutation, StatusCause][] = [
    [
      'wrong type',
      (o) => {
        o.spec.files[1].mode = 'rw';
      },
      {
        type: 'FieldValueTypeInvalid',
        field: 'spec.files[1].mode',
        message: 'Invalid value: "string": spec.files[1].mode in body must be of type integer: "string"',
      },
    ],
    [
      'float for integer',
      (o) => {
        o.spec.files[0].mode = 1.5;
      },
      {
        type: 'FieldValueTypeInvalid',
        field: 'spec.files[0].mode',
        message: 'Invalid value: "number": spec.files[0].mode in body must be of type integer: "number"',
      },
    ],
    [
      'required field missing',
      (o) => {
        delete o.spec.files[1].path;
      },
      { type: 'FieldValueRequired', field: 'spec.files[1].path', message: 'Required value' },
    ],
    [
      'enum',
      (o) => {
        o.spec.units[0].state = 'paused';
      },
      {
        type: 'FieldValueNotSupported',
        field: 'spec.units[0].state',
        message: 'Unsupported value: "paused": supported values: "running", "stopped"',
      },
    ],
    [
      'pattern',
      (o) => {
        o.spec.files[0].path = 'etc/motd';
      },
      {
        type: 'FieldValueInvalid',
        field: 'spec.files[0].path',
        message: 'Invalid value: "etc/motd": spec.files[0].path in body should match \'^/\'',
      },
    ],
    [
      'maxLength counts characters',
      (o) => {
        o.spec.labels.tier = 'édgeédgeé';
      },
      {
        type: 'FieldValueTooLong',
        field: 'spec.labels.tier',
        message: 'Too long: may not be more than 8 bytes',
      },
    ],
    [
      'maximum',
      (o) => {
        o.spec.files[0].mode = 4096;
      },
      {
        type: 'FieldValueInvalid',
        field: 'spec.files[0].mode',
        message: 'Invalid value: 4096: spec.files[0].mode in body should be less than or equal to 4095',
      },
    ],
    [
      'exclusive maximum',
      (o) => {
        o.spec.rollout.batches = 100;
      },
      {
        type: 'FieldValueInvalid',
        field: 'spec.rollout.batches',
        message: 'Invalid value: 100: spec.rollout.batches in body should be less than 100',
      },
    ],
    [
      'exclusive minimum on a number',
      (o) => {
        o.spec.rollout.weight = 0;
      },
      {
        type: 'FieldValueInvalid',
        field: 'spec.rollout.weight',
        message: 'Invalid value: 0: spec.rollout.weight in body should be greater than 0',
      },
    ],
    [
      'multipleOf',
      (o) => {
        o.spec.rollout.weight = 1.25;
      },
      {
        type: 'FieldValueInvalid',
        field: 'spec.rollout.weight',
        message: 'Invalid value: 1.25: spec.rollout.weight in body should be a multiple of 0.5',
      },
    ],
    [
      'maxItems',
      (o) => {
        o.spec.files = ['/a', '/b', '/c', '/d', '/e'].map((path) => ({ path, content: { inline: {} } }));
      },
      { type: 'FieldValueTooMany', field: 'spec.files', message: 'Too many: 5: must have at most 4 items' },
    ],
    [
      'maxProperties',
      (o) => {
        o.spec.labels = { a: '1', b: '2', c: '3', d: '4' };
      },
      { type: 'FieldValueTooMany', field: 'spec.labels', message: 'Too many: 4: must have at most 3 items' },
    ],
    [
      'format',
      (o) => {
        o.spec.id = 'not-a-uuid';
      },
      {
        type: 'FieldValueTypeInvalid',
        field: 'spec.id',
        message: 'Invalid value: "not-a-uuid": spec.id in body must be of type uuid: "not-a-uuid"',
      },
    ],
    [
      'null where not nullable',
      (o) => {
        o.spec.paused = null;
      },
      {
        type: 'FieldValueTypeInvalid',
        field: 'spec.paused',
        message: 'Invalid value: "null": spec.paused in body must be of type boolean: "null"',
      },
    ],
    [
      'duplicate list-map key',
      (o) => {
        o.spec.files.push({ path: '/etc/motd', content: { inline: {} } });
      },
      {
        type: 'FieldValueDuplicate',
        field: 'spec.files[2]',
        message: 'Duplicate value: {"path":"/etc/motd"}',
      },
    ],
    [
      'duplicate set item',
      (o) => {
        o.spec.units[0].filePaths = ['/a', '/b', '/a'];
      },
      { type: 'FieldValueDuplicate', field: 'spec.units[0].filePaths[2]', message: 'Duplicate value: "/a"' },
    ],
  ];
  for (const [name, mutate, want] of cases) assert.deepEqual(causesAfter(mutate), [want], name);
});

test('nullable fields accept null; int-or-string accepts both and nothing else', () => {
  assert.deepEqual(
    causesAfter((o) => {
      o.spec.notBefore = null;
      o.spec.rollout.maxUnavailable = 2;
    }),
    [],
  );
  assert.deepEqual(
    causesAfter((o) => {
      o.spec.rollout.maxUnavailable = true;
    }),
    [
      {
        type: 'FieldValueTypeInvalid',
        field: 'spec.rollout.maxUnavailable',
        message:
          'Invalid value: "boolean": spec.rollout.maxUnavailable in body must be of type integer,string: "boolean"',
      },
      {
        type: 'FieldValueInvalid',
        field: '<nil>',
        message: 'Invalid value: "": "spec.rollout.maxUnavailable" must validate at least one schema (anyOf)',
      },
      {
        type: 'FieldValueTypeInvalid',
        field: 'spec.rollout.maxUnavailable',
        message:
          'Invalid value: "boolean": spec.rollout.maxUnavailable in body must be of type integer: "boolean"',
      },
    ],
  );
});

test('oneOf reports the composite on the root and the closest alternative', () => {
  const causes = causesAfter((o) => {
    o.spec.files[0].content = { inline: { data: 'x' }, secretRef: { name: 'n', key: 'k' } };
  });
  assert.deepEqual(causes, [
    {
      type: 'FieldValueInvalid',
      field: '<nil>',
      message:
        'Invalid value: "": "spec.files[0].content" must validate one and only one schema (oneOf). Found 2 valid alternatives',
    },
  ]);
  const none = causesAfter((o) => {
    o.spec.files[0].content = {};
  });
  assert.deepEqual(
    none.map((c) => [c.field, c.message]),
    [
      [
        '<nil>',
        'Invalid value: "": "spec.files[0].content" must validate one and only one schema (oneOf). Found none valid',
      ],
      ['spec.files[0].content.inline', 'Required value'],
    ],
  );
});

test('several violations are all reported', () => {
  const causes = causesAfter((o) => {
    o.spec.files[0].mode = -1;
    delete o.spec.units[0].name;
    o.status = {
      conditions: [
        { type: 'Ready', status: 'Maybe' },
        { type: 'Ready', status: 'True' },
      ],
    };
  });
  assert.deepEqual(
    causes.map((c) => c.field),
    ['spec.files[0].mode', 'spec.units[0].name', 'status.conditions[0].status', 'status.conditions[1]'],
  );
});

test('embedded resources need apiVersion and kind, and valid metadata', () => {
  const causes = causesAfter((o) => {
    o.spec.template = { metadata: { name: 'a/b', labels: { '-x': 'y' } }, spec: { anything: true } };
  });
  assert.deepEqual(
    causes.map((c) => [c.field, c.message]),
    [
      ['spec.template.apiVersion', 'Required value: must not be empty'],
      ['spec.template.kind', 'Required value: must not be empty'],
      ['spec.template.metadata.name', 'Invalid value: "a/b": may not contain \'/\''],
      [
        'spec.template.metadata.labels',
        "Invalid value: \"-x\": name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')",
      ],
    ],
  );
  assert.deepEqual(
    causesAfter((o) => {
      o.spec.template = { apiVersion: 'v1', kind: 'Pod', spec: {} };
    }),
    [],
  );
  assert.deepEqual(
    causesAfter((o) => {
      o.spec.template = { apiVersion: 'a/b/c', kind: 'Bad_Kind' };
    }).map((c) => c.message),
    [
      'Invalid value: "a/b/c": unexpected GroupVersion string: a/b/c',
      "Invalid value: \"Bad_Kind\": may have mixed case, but should otherwise match: a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')",
    ],
  );
});

test('list-map keys: missing keys collide with each other, multi-key maps compare all keys', () => {
  const schema: JSONSchemaProps = {
    type: 'object',
    properties: {
      ports: {
        type: 'array',
        'x-kubernetes-list-type': 'map',
        'x-kubernetes-list-map-keys': ['port', 'protocol'],
        items: { type: 'object', properties: { port: { type: 'integer' }, protocol: { type: 'string' } } },
      },
      names: {
        type: 'array',
        'x-kubernetes-list-type': 'map',
        'x-kubernetes-list-map-keys': ['name'],
        items: { type: 'object', properties: { name: { type: 'string' } } },
      },
      groups: {
        type: 'object',
        additionalProperties: { type: 'array', 'x-kubernetes-list-type': 'set', items: { type: 'string' } },
      },
    },
  };
  const obj = {
    ports: [
      { port: 80, protocol: 'TCP' },
      { port: 80, protocol: 'UDP' },
      { port: 80, protocol: 'TCP' },
      { port: 80, protocol: 'TCP' },
    ],
    names: [{}, {}, 'x'],
    groups: { admins: ['a', 'a'] },
  };
  assert.deepEqual(validateListSetsAndMaps(obj, schema), [
    {
      type: 'FieldValueDuplicate',
      field: 'ports[2]',
      message: 'Duplicate value: {"port":80,"protocol":"TCP"}',
    },
    {
      type: 'FieldValueInvalid',
      field: 'names[2]',
      message: 'Invalid value: "x": must be an object for an array of list-type map',
    },
    { type: 'FieldValueDuplicate', field: 'groups[admins][1]', message: 'Duplicate value: "a"' },
  ]);
  assert.deepEqual(validateListSetsAndMaps({ names: [{}, { name: 'a' }, {}] }, schema), [
    { type: 'FieldValueDuplicate', field: 'names[2]', message: 'Duplicate value: {}' },
  ]);
});

test('schema-only corner cases: additionalProperties false, minProperties, uniqueItems, allOf, not', () => {
  const cases: [JSONSchemaProps, unknown, [string | undefined, string][]][] = [
    [
      { type: 'object', properties: { a: { type: 'string' } }, additionalProperties: false },
      { a: 'x', b: 1 },
      [['<nil>', 'Invalid value: "b": .b in body is a forbidden property']],
    ],
    [
      { type: 'object', minProperties: 2 },
      { a: 1 },
      [['<nil>', 'Invalid value: 1:  in body should have at least 2 properties']],
    ],
    [
      {
        type: 'object',
        properties: { l: { type: 'array', items: { type: 'integer' }, minItems: 2, uniqueItems: true } },
      },
      { l: [1] },
      [['l', 'Invalid value: 1: l in body should have at least 2 items']],
    ],
    [
      { type: 'object', properties: { l: { type: 'array', items: { type: 'integer' }, uniqueItems: true } } },
      { l: [1, 1] },
      [['l', 'Invalid value: "": l in body shouldn\'t contain duplicates']],
    ],
    [
      { type: 'object', properties: { s: { type: 'string', allOf: [{ minLength: 2 }, { pattern: '^a' }] } } },
      { s: 'b' },
      [
        ['s', 'Invalid value: "b": s in body should be at least 2 chars long'],
        ['s', 'Invalid value: "b": s in body should match \'^a\''],
        ['<nil>', 'Invalid value: "": "s" must validate all the schemas (allOf). None validated'],
      ],
    ],
    [
      { type: 'object', properties: { s: { type: 'string', not: { enum: ['root'] } } } },
      { s: 'root' },
      [['<nil>', 'Invalid value: "": "s" must not validate the schema (not)']],
    ],
    [
      { type: 'object', properties: { n: { type: 'number', maximum: 1000000 } } },
      { n: 2000000.5 },
      [['n', 'Invalid value: 2.0000005e+06: n in body should be less than or equal to 1e+06']],
    ],
    [
      { type: 'object', properties: { e: { type: 'integer', enum: [1, 2], nullable: true } } },
      { e: null },
      [['e', 'Unsupported value: "null": supported values: "1", "2"']],
    ],
    [
      { type: 'object' },
      'text',
      [['<nil>', 'Invalid value: "string":  in body must be of type object: "string"']],
    ],
  ];
  for (const [schema, value, want] of cases) {
    assert.deepEqual(
      validateAgainstSchema(value, schema).map((c) => [c.field, c.message]),
      want,
      JSON.stringify(value),
    );
  }
});

test('default validation prefixes: causes land under the default path', () => {
  const schema: JSONSchemaProps = { type: 'object', properties: { port: { type: 'integer' } } };
  assert.deepEqual(validateAgainstSchema({ port: 'x' }, schema, 'spec.validation.openAPIV3Schema.default'), [
    {
      type: 'FieldValueTypeInvalid',
      field: 'spec.validation.openAPIV3Schema.default.port',
      message: 'Invalid value: "string": port in body must be of type integer: "string"',
    },
  ]);
});

test('CEL rules are evaluated at every schema location, after the schema allows the object', () => {
  const schema: JSONSchemaProps = {
    type: 'object',
    'x-kubernetes-validations': [{ rule: 'has(self.spec)' }],
    properties: {
      spec: {
        type: 'object',
        properties: {
          items: {
            type: 'array',
            items: {
              type: 'object',
              properties: { a: { type: 'integer' } },
              'x-kubernetes-validations': [{ rule: 'self.a < 3', message: 'a too big' }],
            },
          },
        },
      },
    },
  };
  assert.deepEqual(validateCustomResource({ spec: { items: [{ a: 1 }, { a: 5 }] } }, schema), [
    { type: 'FieldValueInvalid', field: 'spec.items[1]', message: 'Invalid value: "object": a too big' },
  ]);
  assert.deepEqual(validateCustomResource({}, schema), [
    {
      type: 'FieldValueInvalid',
      field: '<nil>',
      message: 'Invalid value: "object": failed rule: has(self.spec)',
    },
  ]);
  // A value of the wrong type blocks the rules, as kube's hasBlockingErr does.
  assert.deepEqual(
    validateCustomResource({ spec: { items: [{ a: 'five' }] } }, schema).map((c) => c.field),
    ['spec.items[0].a', '<nil>'],
  );
});
