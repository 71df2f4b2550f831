// Unit tests of server-side apply's pure parts: FieldsV1 sets, field sets of values, comparison,
// merging by schema, and removal of fields a manager stopped applying.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { FieldSet, pathString } from '../../../src/apiserver/managedfields/field-set.ts';
import {
  objectFieldType,
  patchMetaFieldType,
  schemaFieldType,
} from '../../../src/apiserver/managedfields/field-types.ts';
import {
  appliedFieldSet,
  compareValues,
  fullFieldSet,
  mergeApplied,
  removeFields,
} from '../../../src/apiserver/managedfields/structured-merge.ts';
import { builtinPatchMeta } from '../../../src/apiserver/patch/builtin-patch-meta.ts';
import type { JSONSchemaProps } from '../../../src/apiserver/registry/resource-definition.ts';

const deployment = patchMetaFieldType(builtinPatchMeta('Deployment'));

const widgetSchema: JSONSchemaProps = {
  type: 'object',
  properties: {
    spec: {
      type: 'object',
      properties: {
        files: {
          type: 'array',
          'x-kubernetes-list-type': 'map',
          'x-kubernetes-list-map-keys': ['path'],
          items: { type: 'object', properties: { path: { type: 'string' }, content: { type: 'string' } } },
        },
        tags: { type: 'array', 'x-kubernetes-list-type': 'set', items: { type: 'string' } },
        args: { type: 'array', items: { type: 'string' } },
        selector: {
          type: 'object',
          'x-kubernetes-map-type': 'atomic',
          additionalProperties: { type: 'string' },
        },
      },
    },
  },
};
const widget = objectFieldType(builtinPatchMeta('Widget').fields!.metadata!, schemaFieldType(widgetSchema));

test('FieldsV1 round-trips: "." marks a node that is itself a member and has children', () => {
  const doc = {
    'f:metadata': { 'f:labels': { '.': {}, 'f:app': {} } },
    'f:spec': { 'f:containers': { 'k:{"name":"app"}': { '.': {}, 'f:image': {}, 'f:name': {} } } },
  };
  const set = FieldSet.fromFieldsV1(doc);
  assert.deepEqual(set.toFieldsV1(), doc);
  assert.equal(set.has(['f:metadata', 'f:labels']), true);
  assert.equal(set.has(['f:metadata']), false);
  assert.deepEqual(set.paths().map(pathString), [
    '.metadata.labels',
    '.metadata.labels.app',
    '.spec.containers[name="app"]',
    '.spec.containers[name="app"].image',
    '.spec.containers[name="app"].name',
  ]);
  assert.throws(() => FieldSet.fromFieldsV1({ 'x:y': {} }), /unknown path element prefix/);
  assert.throws(() => FieldSet.fromFieldsV1({ 'k:{bad': {} }), /the key is not JSON/);
  assert.throws(() => FieldSet.fromFieldsV1([]), /expected an object/);
});

test('set operations work member by member', () => {
  const a = FieldSet.fromFieldsV1({ 'f:data': { '.': {}, 'f:a': {}, 'f:b': {} } });
  const b = FieldSet.fromFieldsV1({ 'f:data': { 'f:b': {}, 'f:c': {} } });
  assert.deepEqual(a.union(b).toFieldsV1(), { 'f:data': { '.': {}, 'f:a': {}, 'f:b': {}, 'f:c': {} } });
  assert.deepEqual(a.difference(b).toFieldsV1(), { 'f:data': { '.': {}, 'f:a': {} } });
  assert.deepEqual(a.intersection(b).toFieldsV1(), { 'f:data': { 'f:b': {} } });
  assert.equal(a.difference(a).isEmpty(), true);
  assert.equal(pathString(['f:metadata', 'f:finalizers', 'v:"x"']), '.metadata.finalizers[="x"]');
});

test('the applied set owns leaves and list items, not the objects around them (kube ToFieldSet)', () => {
  const config = {
    metadata: { labels: { app: 'web' }, annotations: {} },
    spec: {
      replicas: 2,
      template: { spec: { containers: [{ name: 'app', image: 'nginx', args: ['a', 'b'] }] } },
    },
  };
  assert.deepEqual(appliedFieldSet(config, deployment).toFieldsV1(), {
    'f:metadata': { 'f:annotations': {}, 'f:labels': { 'f:app': {} } },
    'f:spec': {
      'f:replicas': {},
      'f:template': {
        'f:spec': {
          'f:containers': { 'k:{"name":"app"}': { '.': {}, 'f:args': {}, 'f:image': {}, 'f:name': {} } },
        },
      },
    },
  });
  // Sets own each value; atomic lists and maps are one field.
  const spec = { spec: { tags: ['a', 'b'], args: ['x'], selector: { k: 'v' }, files: [] } };
  assert.deepEqual(appliedFieldSet(spec, widget).toFieldsV1(), {
    'f:spec': { 'f:args': {}, 'f:selector': {}, 'f:tags': { 'v:"a"': {}, 'v:"b"': {} } },
  });
});

test('a whole subtree (what an Update that adds it owns) includes its containers', () => {
  assert.deepEqual(
    fullFieldSet({ data: { a: '1' }, metadata: { labels: { x: 'y' } } }, widget).toFieldsV1(),
    {
      'f:data': { '.': {}, 'f:a': {} },
      'f:metadata': { '.': {}, 'f:labels': { '.': {}, 'f:x': {} } },
    },
  );
});

test('compare reports added subtrees, modified leaves and removed subtrees by key', () => {
  const before = {
    spec: {
      files: [
        { path: '/a', content: '1' },
        { path: '/b', content: '2' },
      ],
      args: ['x'],
    },
  };
  const after = {
    spec: {
      files: [
        { path: '/b', content: '3' },
        { path: '/c', content: '4' },
      ],
      args: ['x'],
    },
  };
  const diff = compareValues(before, after, widget);
  assert.deepEqual(diff.added.paths().map(pathString), [
    '.spec.files[path="/c"]',
    '.spec.files[path="/c"].content',
    '.spec.files[path="/c"].path',
  ]);
  assert.deepEqual(diff.modified.paths().map(pathString), ['.spec.files[path="/b"].content']);
  assert.deepEqual(diff.removed.paths().map(pathString), [
    '.spec.files[path="/a"]',
    '.spec.files[path="/a"].content',
    '.spec.files[path="/a"].path',
  ]);
  // An atomic list is one value: a changed item modifies the list.
  const atomic = compareValues({ spec: { args: ['x'] } }, { spec: { args: ['y'] } }, widget);
  assert.deepEqual(atomic.modified.paths().map(pathString), ['.spec.args']);
});

test('merge: map lists by key, sets by value, atomic values replaced, objects field by field', () => {
  const live = {
    metadata: { labels: { a: '1', b: '2' } },
    spec: {
      files: [
        { path: '/a', content: 'A' },
        { path: '/b', content: 'B' },
      ],
      tags: ['x', 'y'],
      args: ['1', '2'],
      selector: { k: 'v', l: 'w' },
    },
  };
  const config = {
    metadata: { labels: { b: '3' } },
    spec: {
      files: [
        { path: '/c', content: 'C' },
        { path: '/b', content: 'B2' },
      ],
      tags: ['z'],
      args: ['3'],
      selector: { k: 'v' },
    },
  };
  assert.deepEqual(mergeApplied(live, config, widget), {
    metadata: { labels: { a: '1', b: '3' } },
    spec: {
      files: [
        { path: '/a', content: 'A' },
        { path: '/c', content: 'C' },
        { path: '/b', content: 'B2' },
      ],
      tags: ['x', 'y', 'z'],
      args: ['3'],
      selector: { k: 'v' },
    },
  });
  // Built-in containers merge by name, their env by name.
  const pod = patchMetaFieldType(builtinPatchMeta('Pod'));
  const merged = mergeApplied(
    {
      spec: {
        containers: [
          { name: 'a', image: 'i1', env: [{ name: 'X', value: '1' }] },
          { name: 'b', image: 'i2' },
        ],
      },
    },
    { spec: { containers: [{ name: 'a', env: [{ name: 'Y', value: '2' }] }] } },
    pod,
  );
  assert.deepEqual(merged, {
    spec: {
      containers: [
        {
          name: 'a',
          image: 'i1',
          env: [
            { name: 'X', value: '1' },
            { name: 'Y', value: '2' },
          ],
        },
        { name: 'b', image: 'i2' },
      ],
    },
  });
});

test('removal drops what nobody keeps, keeps what others own, and emptied containers go too', () => {
  const value = {
    metadata: { labels: { a: '1', b: '2' } },
    spec: {
      files: [
        { path: '/a', content: 'A', mode: 1 },
        { path: '/b', content: 'B' },
      ],
      tags: ['x', 'y'],
    },
  };
  const remove = FieldSet.fromFieldsV1({
    'f:metadata': { 'f:labels': { 'f:a': {}, 'f:b': {} } },
    'f:spec': {
      'f:files': {
        'k:{"path":"/a"}': { '.': {}, 'f:content': {}, 'f:path': {} },
        'k:{"path":"/b"}': { '.': {} },
      },
      'f:tags': { 'v:"y"': {} },
    },
  });
  // Someone else owns /a's mode: the item stays with the fields they own.
  const keep = FieldSet.fromFieldsV1({
    'f:spec': { 'f:files': { 'k:{"path":"/a"}': { 'f:mode': {} } }, 'f:tags': { 'v:"x"': {} } },
  });
  assert.deepEqual(removeFields(value, remove, keep, widget), {
    spec: { files: [{ path: '/a', mode: 1 }], tags: ['x'] },
  });
});

test('a field nobody keeps anything of goes whole, defaults below it included; metadata never does', () => {
  // The applier once applied content.inline.data; the server defaulted content.inline.encoding.
  const value = {
    metadata: { name: 'n', labels: { a: '1' } },
    spec: {
      files: [
        { path: '/a', content: { inline: { data: 'x', encoding: 'plain' }, secretRef: { name: 's' } } },
      ],
    },
  };
  const remove = FieldSet.fromFieldsV1({
    'f:metadata': { 'f:labels': { 'f:a': {} } },
    'f:spec': { 'f:files': { 'k:{"path":"/a"}': { 'f:content': { 'f:inline': { 'f:data': {} } } } } },
  });
  const keep = FieldSet.fromFieldsV1({
    'f:spec': {
      'f:files': {
        'k:{"path":"/a"}': { '.': {}, 'f:path': {}, 'f:content': { 'f:secretRef': { 'f:name': {} } } },
      },
    },
  });
  assert.deepEqual(removeFields(value, remove, keep, widget), {
    metadata: { name: 'n' },
    spec: { files: [{ path: '/a', content: { secretRef: { name: 's' } } }] },
  });
});
