import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { parse } from 'yaml';
import { customResourceDefinitions } from '../../src/api/crds.ts';
import { generatedFiles, repositoryRoot } from '../../src/api/generate-crds.ts';
import { crdToDefinitions } from '../../src/apiserver/registry/crd-to-definition.ts';
import type { JSONSchemaProps } from '../../src/apiserver/registry/resource-definition.ts';

test('committed deploy/crds and docs/api.md equal the generated output (run node src/api/generate-crds.ts)', () => {
  const files = generatedFiles();
  assert.deepEqual(Object.keys(files).sort(), [
    'deploy/crds/nodeherd.io_nodeconfigrevisions.yaml',
    'deploy/crds/nodeherd.io_nodeconfigs.yaml',
    'deploy/crds/nodeherd.io_nodeconfigpools.yaml',
    'docs/api.md',
  ]);
  for (const [path, content] of Object.entries(files)) {
    assert.equal(readFileSync(join(repositoryRoot, path), 'utf8'), content, `${path} is stale`);
  }
});

test('the YAML manifests parse back to the CRD objects', () => {
  const files = generatedFiles();
  for (const crd of customResourceDefinitions()) {
    const plural = (crd as any).spec.names.plural;
    assert.deepEqual(parse(files[`deploy/crds/nodeherd.io_${plural}.yaml`]!), crd);
  }
});

function schemaAt(schema: JSONSchemaProps, jsonPath: string): JSONSchemaProps | undefined {
  let node: JSONSchemaProps | undefined = schema;
  // A filter (`conditions[?(@.type=="Progressing")].reason`) selects items of an array.
  const segments = jsonPath
    .slice(1)
    .replace(/\[\?\([^)]*\)\]/g, '[]')
    .split('.');
  for (const segment of segments) {
    node = node?.properties?.[segment.replace(/\[\]$/, '')];
    if (segment.endsWith('[]')) node = node?.items as JSONSchemaProps | undefined;
  }
  return node;
}

test('the embedded API server serves them: cluster-scoped, status subresource, columns that exist', () => {
  const served = customResourceDefinitions().flatMap((crd) =>
    crdToDefinitions({ ...crd, status: { conditions: [{ type: 'Established', status: 'True' }] } }),
  );
  const byKind = Object.fromEntries(served.map((d) => [d.kind, d]));
  assert.deepEqual(Object.keys(byKind).sort(), ['NodeConfig', 'NodeConfigRevision', 'NodeConfigPool']);
  for (const def of served) {
    assert.equal(def.group, 'nodeherd.io');
    assert.equal(def.version, 'v1alpha1');
    assert.equal(def.namespaced, false);
    assert.ok(def.categories.includes('nodeherd'));
    for (const column of def.printerColumns) {
      if (column.jsonPath.startsWith('.metadata.')) continue;
      assert.ok(
        schemaAt(def.schema!, column.jsonPath),
        `${def.kind} column ${column.name}: ${column.jsonPath} not in schema`,
      );
    }
  }
  assert.deepEqual(byKind.NodeConfigPool!.subresources, { status: true });
  assert.deepEqual(byKind.NodeConfigRevision!.subresources, {});
  assert.deepEqual(
    byKind.NodeConfigPool!.printerColumns.filter((c) => !c.priority).map((c) => c.name),
    ['Target', 'Nodes', 'Updated', 'Ready', 'Failed', 'Progress', 'Paused', 'Age'],
  );
  const pool = byKind.NodeConfigRevision!.selectableFields['spec.pool'];
  assert.equal(pool?.({ spec: { pool: 'workers' } }), 'workers');
});
