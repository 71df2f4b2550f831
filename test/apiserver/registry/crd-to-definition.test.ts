import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  crdStorageVersion,
  crdToDefinitions,
  isEstablished,
} from '../../../src/apiserver/registry/crd-to-definition.ts';
import { widgetCrd } from './crd-fixture.ts';

test('a CRD that is not Established serves nothing', () => {
  assert.equal(isEstablished(widgetCrd({ established: false })), false);
  assert.deepEqual(crdToDefinitions(widgetCrd({ established: false })), []);
  const noStatus = widgetCrd();
  delete noStatus.status;
  assert.deepEqual(crdToDefinitions(noStatus), []);
});

test('one definition per served version, carrying names, scope, schema and subresources', () => {
  const defs = crdToDefinitions(widgetCrd());
  assert.deepEqual(
    defs.map((d) => d.version),
    ['v1alpha1', 'v1'],
  );
  const v1 = defs[1]!;
  assert.equal(v1.group, 'example.com');
  assert.equal(v1.resource, 'widgets');
  assert.equal(v1.singular, 'widget');
  assert.equal(v1.kind, 'Widget');
  assert.equal(v1.listKind, 'WidgetList');
  assert.equal(v1.namespaced, true);
  assert.deepEqual(v1.shortNames, ['wd']);
  assert.deepEqual(v1.categories, ['all']);
  assert.deepEqual(v1.verbs, [
    'delete',
    'deletecollection',
    'get',
    'list',
    'patch',
    'create',
    'update',
    'watch',
  ]);
  assert.deepEqual(v1.subresources, { status: true });
  assert.deepEqual(defs[0]!.subresources, {});
  assert.equal(v1.builtin, false);
  assert.equal(v1.tracksGeneration, true);
  assert.equal(v1.schema?.description, 'A widget.');
  assert.equal(crdStorageVersion(widgetCrd()), 'v1');
});

test('printer columns: declared ones as given, Age when a version declares none', () => {
  const [v1alpha1, v1] = crdToDefinitions(widgetCrd());
  assert.deepEqual(v1!.printerColumns, [
    { name: 'Size', type: 'integer', jsonPath: '.spec.size', priority: 0 },
  ]);
  assert.deepEqual(
    v1alpha1!.printerColumns.map((c) => [c.name, c.type, c.jsonPath]),
    [['Age', 'date', '.metadata.creationTimestamp']],
  );
});

test('selectableFields become field selectors on the value at their path', () => {
  const v1 = crdToDefinitions(widgetCrd())[1]!;
  const color = v1.selectableFields['spec.color']!;
  assert.equal(color({ spec: { color: 'red' } }), 'red');
  assert.equal(color({ spec: {} }), '');
  assert.equal(color({}), '');
  assert.deepEqual(Object.keys(crdToDefinitions(widgetCrd())[0]!.selectableFields), []);
});

test('accepted names win over spec.names; defaults fill singular and listKind', () => {
  const crd = widgetCrd();
  crd.spec.names = { plural: 'widgets', kind: 'Widget' };
  crd.status.acceptedNames = { plural: 'widgets', kind: 'Widget' };
  const [def] = crdToDefinitions(crd);
  assert.equal(def!.singular, 'widget');
  assert.equal(def!.listKind, 'WidgetList');
  assert.deepEqual(def!.shortNames, []);

  const renamed = widgetCrd();
  renamed.spec.names.shortNames = ['wd', 'wdg'];
  // Until the naming controller accepts the new short name, discovery keeps serving the old ones.
  assert.deepEqual(crdToDefinitions(renamed)[0]!.shortNames, ['wd']);
  delete renamed.status.acceptedNames;
  assert.deepEqual(crdToDefinitions(renamed)[0]!.shortNames, ['wd', 'wdg']);
});

test('cluster-scoped CRDs and malformed ones', () => {
  const cluster = widgetCrd();
  cluster.spec.scope = 'Cluster';
  assert.equal(crdToDefinitions(cluster)[0]!.namespaced, false);
  const noGroup = widgetCrd();
  delete noGroup.spec.group;
  assert.deepEqual(crdToDefinitions(noGroup), []);
});
