import assert from 'node:assert/strict';
import { test } from 'node:test';
import { canonicalJson, documentHash } from '../../../src/apiserver/discovery/document-hash.ts';
import {
  openApiV3Document,
  openApiV3Hash,
  openApiV3Root,
  parseOpenApiV3Key,
} from '../../../src/apiserver/discovery/openapi-v3.ts';
import { builtinResources } from '../../../src/apiserver/kinds/registration.ts';
import type { ResourceDefinition } from '../../../src/apiserver/registry/resource-definition.ts';
import { ResourceRegistry } from '../../../src/apiserver/registry/resource-registry.ts';
import { widgetCrd } from '../registry/crd-fixture.ts';

type Doc = Record<string, any>;
const doc = (registry: ResourceRegistry, key: string): Doc => {
  const d = openApiV3Document(registry, key);
  assert.ok(d, `${key} is served`);
  return JSON.parse(canonicalJson(d));
};
const keyOf = (def: ResourceDefinition) =>
  def.group ? `apis/${def.group}/${def.version}` : `api/${def.version}`;
const sameGVK = (a: Doc | undefined, def: { group: string; version: string; kind: string }) =>
  a?.group === def.group && a?.version === def.version && a?.kind === def.kind;

/**
 * kubectl 1.32's decision (cli-runtime queryParamVerifierV3): the first PATCH operation tagged with
 * the kind decides, by whether it lists the query parameter. Paths are visited in map order, so
 * every PATCH operation of the kind must agree.
 */
function patchOperationsOf(d: Doc, def: ResourceDefinition): Doc[] {
  return Object.values<Doc>(d.paths)
    .map((item) => item.patch)
    .filter((op) => op && sameGVK(op['x-kubernetes-group-version-kind'], def));
}

test('the root points at every served group-version, by the hash of its exact body', () => {
  const registry = new ResourceRegistry(builtinResources());
  registry.applyCustomResourceDefinition(widgetCrd());
  const root = openApiV3Root(registry);
  assert.deepEqual(Object.keys(root.paths).sort(), [
    'api/v1',
    'apis/admissionregistration.k8s.io/v1',
    'apis/apiextensions.k8s.io/v1',
    'apis/apps/v1',
    'apis/authentication.k8s.io/v1',
    'apis/authentication.k8s.io/v1beta1',
    'apis/authorization.k8s.io/v1',
    'apis/coordination.k8s.io/v1',
    'apis/events.k8s.io/v1',
    'apis/example.com/v1',
    'apis/example.com/v1alpha1',
    'apis/networking.k8s.io/v1',
    'apis/policy/v1',
    'apis/rbac.authorization.k8s.io/v1',
  ]);
  for (const [key, { serverRelativeURL }] of Object.entries(root.paths)) {
    const body = canonicalJson(openApiV3Document(registry, key));
    assert.equal(serverRelativeURL, `/openapi/v3/${key}?hash=${documentHash(body)}`);
    assert.match(serverRelativeURL, /\?hash=[0-9A-F]{128}$/);
  }
  assert.equal(openApiV3Document(registry, 'apis/example.com/v2beta1'), undefined);
  assert.equal(openApiV3Document(registry, 'apis/nothing'), undefined);
  assert.deepEqual(parseOpenApiV3Key('api/v1'), { group: '', version: 'v1' });
  assert.deepEqual(parseOpenApiV3Key('apis/apps/v1'), { group: 'apps', version: 'v1' });
  assert.equal(parseOpenApiV3Key('apis/apps'), undefined);
});

test('every kind has PATCH operations that declare fieldValidation, so kubectl validates server-side', () => {
  const registry = new ResourceRegistry(builtinResources());
  registry.applyCustomResourceDefinition(widgetCrd());
  // The review kinds (SelfSubjectAccessReview, ...) are create-only, as in kube.
  for (const def of registry.definitions().filter((d) => d.verbs.includes('patch'))) {
    const ops = patchOperationsOf(doc(registry, keyOf(def)), def);
    const expected = 1 + (def.subresources.status ? 1 : 0);
    assert.equal(ops.length, expected, `${def.resource}.${def.group}/${def.version}: item and status PATCH`);
    for (const op of ops) {
      const params = op.parameters.map((p: Doc) => p.name);
      assert.ok(params.includes('fieldValidation'), `${op.operationId} declares fieldValidation`);
      assert.equal(op['x-kubernetes-action'], 'patch');
      // Strategic merge patch is accepted but not advertised: kubectl must use its compiled-in merge keys.
      assert.deepEqual(Object.keys(op.requestBody.content).sort(), [
        'application/json-patch+json',
        'application/merge-patch+json',
      ]);
    }
  }
});

test('operations follow kube naming and carry the kind they act on', () => {
  const registry = new ResourceRegistry(builtinResources());
  const core = doc(registry, 'api/v1');
  const item = core.paths['/api/v1/namespaces/{namespace}/pods/{name}'];
  assert.equal(item.get.operationId, 'readCoreV1NamespacedPod');
  assert.equal(item.patch.operationId, 'patchCoreV1NamespacedPod');
  assert.equal(item.put.operationId, 'replaceCoreV1NamespacedPod');
  assert.equal(item.delete.operationId, 'deleteCoreV1NamespacedPod');
  assert.deepEqual(
    item.parameters.map((p: Doc) => [p.name, p.in]),
    [
      ['name', 'path'],
      ['namespace', 'path'],
    ],
  );
  assert.equal(core.paths['/api/v1/pods'].get.operationId, 'listCoreV1PodForAllNamespaces');
  assert.equal(core.paths['/api/v1/nodes'].get.operationId, 'listCoreV1Node');
  assert.ok(!core.paths['/api/v1/namespaces'].delete, 'namespaces have no deletecollection');

  const eviction = core.paths['/api/v1/namespaces/{namespace}/pods/{name}/eviction'].post;
  assert.equal(eviction.operationId, 'createCoreV1NamespacedPodEviction');
  assert.deepEqual(eviction['x-kubernetes-group-version-kind'], {
    group: 'policy',
    version: 'v1',
    kind: 'Eviction',
  });
  assert.deepEqual(
    core.components.schemas['io.k8s.api.policy.v1.Eviction']['x-kubernetes-group-version-kind'],
    [{ group: 'policy', version: 'v1', kind: 'Eviction' }],
  );

  registry.applyCustomResourceDefinition(widgetCrd());
  const widgets = doc(registry, 'apis/example.com/v1');
  assert.equal(
    widgets.paths['/apis/example.com/v1/namespaces/{namespace}/widgets/{name}/status'].patch.operationId,
    'patchExampleComV1NamespacedWidgetStatus',
  );
});

test('components carry each kind and list with x-kubernetes-group-version-kind, metadata as ObjectMeta', () => {
  const registry = new ResourceRegistry(builtinResources());
  const apps = doc(registry, 'apis/apps/v1');
  const ds = apps.components.schemas['io.k8s.api.apps.v1.DaemonSet'];
  assert.deepEqual(ds['x-kubernetes-group-version-kind'], [
    { group: 'apps', version: 'v1', kind: 'DaemonSet' },
  ]);
  assert.deepEqual(ds.properties.metadata.allOf, [
    { $ref: '#/components/schemas/io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta' },
  ]);
  assert.deepEqual(Object.keys(ds.properties).sort(), ['apiVersion', 'kind', 'metadata', 'spec', 'status']);
  const list = apps.components.schemas['io.k8s.api.apps.v1.DaemonSetList'];
  assert.deepEqual(list['x-kubernetes-group-version-kind'], [
    { group: 'apps', version: 'v1', kind: 'DaemonSetList' },
  ]);
  assert.deepEqual(list.properties.items.items, {
    $ref: '#/components/schemas/io.k8s.api.apps.v1.DaemonSet',
  });
  const meta = apps.components.schemas['io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta'];
  assert.equal(meta.properties.ownerReferences['x-kubernetes-patch-merge-key'], 'uid');
  assert.ok(apps.components.schemas['io.k8s.apimachinery.pkg.apis.meta.v1.OwnerReference']);

  // Every $ref resolves inside its own document.
  for (const key of Object.keys(openApiV3Root(registry).paths)) {
    const d = doc(registry, key);
    const refs = [...canonicalJson(d).matchAll(/"\$ref":"#\/components\/schemas\/([^"]+)"/g)].map(
      (m) => m[1]!,
    );
    for (const name of refs) assert.ok(d.components.schemas[name], `${key}: ${name} is defined`);
  }
  assert.ok(
    doc(registry, 'apis/apiextensions.k8s.io/v1').components.schemas[
      'io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1.CustomResourceDefinition'
    ],
  );
});

test("a custom resource's schema comes from its CRD version", () => {
  const registry = new ResourceRegistry(builtinResources());
  registry.applyCustomResourceDefinition(widgetCrd());
  const v1 = doc(registry, 'apis/example.com/v1').components.schemas['com.example.v1.Widget'];
  assert.equal(v1.description, 'A widget.');
  assert.equal(v1.properties.spec.properties.size.description, 'How big.');
  assert.equal(v1.properties.apiVersion.type, 'string');
  assert.deepEqual(v1['x-kubernetes-group-version-kind'], [
    { group: 'example.com', version: 'v1', kind: 'Widget' },
  ]);
  const alpha = doc(registry, 'apis/example.com/v1alpha1').components.schemas['com.example.v1alpha1.Widget'];
  assert.equal(alpha.properties.spec.properties.size.type, 'integer');
  assert.ok(!('color' in alpha.properties.spec.properties), 'each version keeps its own schema');
  // The CRD object handed to the registry is not mutated by building documents.
  assert.ok(!('metadata' in (registry.get('example.com', 'v1', 'widgets')!.schema!.properties ?? {})));
});

test('hashes are stable and change exactly for the documents a CRD change touches', () => {
  const a = new ResourceRegistry(builtinResources());
  const b = new ResourceRegistry(builtinResources());
  assert.deepEqual(openApiV3Root(a), openApiV3Root(b));
  const before = openApiV3Root(a).paths;

  a.applyCustomResourceDefinition(widgetCrd());
  const withCrd = openApiV3Root(a).paths;
  for (const key of Object.keys(before))
    assert.deepEqual(withCrd[key], before[key], `${key} is untouched by the new group`);

  a.applyCustomResourceDefinition(widgetCrd({ sizeDescription: 'Size in units.' }));
  assert.notEqual(
    openApiV3Hash(a, 'apis/example.com/v1'),
    withCrd['apis/example.com/v1']!.serverRelativeURL.split('hash=')[1],
  );
  assert.deepEqual(
    openApiV3Root(a).paths['apis/example.com/v1alpha1'],
    withCrd['apis/example.com/v1alpha1'],
    'v1alpha1 schema did not change',
  );

  a.removeCustomResourceDefinition('widgets.example.com');
  assert.deepEqual(openApiV3Root(a).paths, before);
});

test('canonical JSON sorts keys at every level and keeps array order', () => {
  assert.equal(
    canonicalJson({ b: 1, a: { d: [3, { f: 1, e: 2 }], c: undefined } }),
    '{"a":{"d":[3,{"e":2,"f":1}]},"b":1}',
  );
  assert.equal(documentHash('x'), documentHash('x'));
  assert.notEqual(documentHash('x'), documentHash('y'));
  assert.match(documentHash('x'), /^[0-9A-F]{128}$/);
});
