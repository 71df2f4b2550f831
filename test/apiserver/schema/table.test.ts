import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ApiError } from '../../../src/apiserver/errors.ts';
import type { PrinterColumn } from '../../../src/apiserver/registry/resource-definition.ts';
import {
  toPartialObjectMetadata,
  toPartialObjectMetadataList,
} from '../../../src/apiserver/schema/partial-object-metadata.ts';
import {
  buildTable,
  DEFAULT_PRINTER_COLUMNS,
  parseIncludeObject,
} from '../../../src/apiserver/schema/table.ts';

const now = Date.parse('2024-05-01T12:00:00Z');

function pool(name: string, created: string, status: Record<string, unknown>): Record<string, any> {
  return {
    apiVersion: 'nodeherd.io/v1alpha1',
    kind: 'NodeConfigPool',
    metadata: {
      name,
      uid: `uid-${name}`,
      resourceVersion: '7',
      creationTimestamp: created,
      labels: { tier: 'edge' },
    },
    spec: { paused: false },
    status,
  };
}

const columns: PrinterColumn[] = [
  {
    name: 'Target',
    type: 'string',
    jsonPath: '.status.targetRevision',
    description: 'Revision being rolled out',
  },
  { name: 'Updated', type: 'integer', jsonPath: '.status.updatedNodes' },
  { name: 'Ratio', type: 'number', jsonPath: '.status.ratio', priority: 1 },
  { name: 'Paused', type: 'boolean', jsonPath: '.spec.paused' },
  { name: 'Ready', type: 'string', jsonPath: '.status.conditions[?(@.type=="Ready")].status' },
  { name: 'Counts', type: 'string', jsonPath: '.status.counts' },
  { name: 'Age', type: 'date', jsonPath: '.metadata.creationTimestamp' },
];

test('rows hold the name, typed cells and PartialObjectMetadata', () => {
  const a = pool('edge', '2024-05-01T11:55:00Z', {
    targetRevision: 'edge-5d8f',
    updatedNodes: 3.9,
    ratio: 1,
    conditions: [{ type: 'Ready', status: 'True' }],
    counts: { Done: 3, Applying: 1 },
  });
  const b = pool('core', '2024-04-28T08:00:00Z', { updatedNodes: 'many', ratio: 'half' });
  const table = buildTable([a, b], { columns, now, listMeta: { resourceVersion: '42', continue: '' } });
  assert.equal(table.kind, 'Table');
  assert.equal(table.apiVersion, 'meta.k8s.io/v1');
  assert.deepEqual(table.metadata, { resourceVersion: '42' });
  assert.deepEqual(
    table.columnDefinitions!.map((c) => [c.name, c.type, c.format, c.priority]),
    [
      ['Name', 'string', 'name', 0],
      ['Target', 'string', '', 0],
      ['Updated', 'integer', '', 0],
      ['Ratio', 'number', '', 1],
      ['Paused', 'boolean', '', 0],
      ['Ready', 'string', '', 0],
      ['Counts', 'string', '', 0],
      ['Age', 'date', '', 0],
    ],
  );
  assert.equal(table.columnDefinitions![1]!.description, 'Revision being rolled out');
  assert.equal(
    table.columnDefinitions![2]!.description,
    'Custom resource definition column (in JSONPath format): .status.updatedNodes',
  );
  assert.deepEqual(table.rows[0]!.cells, [
    'edge',
    'edge-5d8f',
    3,
    1,
    false,
    'True',
    '{"Applying":1,"Done":3}',
    '5m',
  ]);
  // Missing values and values of the wrong type are null cells.
  assert.deepEqual(table.rows[1]!.cells, ['core', null, null, null, false, null, null, '3d4h']);
  assert.deepEqual(table.rows[0]!.object, {
    kind: 'PartialObjectMetadata',
    apiVersion: 'meta.k8s.io/v1',
    metadata: a.metadata,
  });
});

test('without printer columns kube serves Name and Age', () => {
  const table = buildTable([pool('edge', '2024-05-01T11:00:00Z', {})], {
    columns: [],
    now,
    noHeaders: false,
  });
  assert.deepEqual(
    table.columnDefinitions!.map((c) => c.name),
    ['Name', 'Age'],
  );
  assert.equal(table.columnDefinitions![1]!.description, DEFAULT_PRINTER_COLUMNS[0]!.description);
  assert.deepEqual(table.rows[0]!.cells, ['edge', '60m']);
});

test('includeObject, headers and meta version', () => {
  const obj = pool('edge', '2024-05-01T11:00:00Z', {});
  const full = buildTable([obj], { columns: [], includeObject: 'Object', now });
  assert.equal(full.rows[0]!.object, obj);
  const none = buildTable([obj], {
    columns: [],
    includeObject: 'None',
    now,
    noHeaders: true,
    apiVersion: 'meta.k8s.io/v1beta1',
  });
  assert.equal(none.rows[0]!.object, null);
  assert.equal(none.columnDefinitions, null);
  assert.equal(none.apiVersion, 'meta.k8s.io/v1beta1');
  assert.deepEqual(buildTable([], { columns: [], now }).rows, []);
});

test('computed columns of built-in kinds win over jsonPath', () => {
  const node = {
    metadata: { name: 'n1', creationTimestamp: '2024-05-01T11:58:00Z' },
    spec: { unschedulable: true },
  };
  const table = buildTable([node], {
    now,
    columns: [
      {
        name: 'Status',
        type: 'string',
        jsonPath: '.status',
        compute: (o) => (o.spec.unschedulable ? 'Ready,SchedulingDisabled' : 'Ready'),
      },
      {
        name: 'Age',
        type: 'date',
        jsonPath: '.metadata.creationTimestamp',
        compute: (o) => o.metadata.creationTimestamp,
      },
    ],
  });
  assert.deepEqual(table.rows[0]!.cells, ['n1', 'Ready,SchedulingDisabled', '2m']);
});

test('includeObject parameter values', () => {
  assert.equal(parseIncludeObject(null), 'Metadata');
  assert.equal(parseIncludeObject(''), 'Metadata');
  assert.equal(parseIncludeObject('None'), 'None');
  assert.equal(parseIncludeObject('Object'), 'Object');
  assert.throws(
    () => parseIncludeObject('all'),
    (err: unknown) =>
      err instanceof ApiError &&
      err.code === 400 &&
      err.message === 'unrecognized includeObject value: "all"',
  );
});

test('PartialObjectMetadata and its list keep only metadata', () => {
  const obj = pool('edge', '2024-05-01T11:00:00Z', {});
  const partial = toPartialObjectMetadata(obj);
  assert.deepEqual(partial, {
    kind: 'PartialObjectMetadata',
    apiVersion: 'meta.k8s.io/v1',
    metadata: obj.metadata,
  });
  partial.metadata.name = 'changed';
  assert.equal(obj.metadata.name, 'edge', 'a copy, not a view');
  assert.deepEqual(
    toPartialObjectMetadataList([obj], { resourceVersion: '9', continue: 'abc' }, 'meta.k8s.io/v1beta1'),
    {
      kind: 'PartialObjectMetadataList',
      apiVersion: 'meta.k8s.io/v1beta1',
      metadata: { resourceVersion: '9', continue: 'abc' },
      items: [{ kind: 'PartialObjectMetadata', apiVersion: 'meta.k8s.io/v1beta1', metadata: obj.metadata }],
    },
  );
});
