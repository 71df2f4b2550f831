import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  AGGREGATED_DISCOVERY_CONTENT_TYPE,
  acceptsAggregatedDiscovery,
  aggregatedDiscovery,
} from '../../../src/apiserver/discovery/aggregated-discovery.ts';
import { builtinResources } from '../../../src/apiserver/kinds/registration.ts';
import { ResourceRegistry } from '../../../src/apiserver/registry/resource-registry.ts';
import { widgetCrd } from '../registry/crd-fixture.ts';

test('the Accept header kubectl 1.32 sends selects aggregated discovery; plain JSON does not', () => {
  const kubectl =
    'application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList,application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList,application/json';
  assert.equal(acceptsAggregatedDiscovery(kubectl), true);
  assert.equal(acceptsAggregatedDiscovery('application/json, */*'), false);
  assert.equal(acceptsAggregatedDiscovery(undefined), false);
  // Only v2beta1 offered: we serve v2 only, so answer with the legacy document.
  assert.equal(
    acceptsAggregatedDiscovery('application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList'),
    false,
  );
  assert.equal(acceptsAggregatedDiscovery(AGGREGATED_DISCOVERY_CONTENT_TYPE), true);
});

test('/api aggregated: the core group only, resources with scope, responseKind and subresources', () => {
  const doc = aggregatedDiscovery(new ResourceRegistry(builtinResources()), 'api');
  assert.equal(doc.kind, 'APIGroupDiscoveryList');
  assert.equal(doc.apiVersion, 'apidiscovery.k8s.io/v2');
  assert.equal(doc.items.length, 1);
  const core = doc.items[0]!;
  assert.deepEqual(core.metadata, { creationTimestamp: null });
  assert.equal(core.versions[0]!.version, 'v1');
  assert.equal(core.versions[0]!.freshness, 'Current');
  const pods = core.versions[0]!.resources.find((r) => r.resource === 'pods');
  assert.deepEqual(pods, {
    resource: 'pods',
    responseKind: { group: '', version: 'v1', kind: 'Pod' },
    scope: 'Namespaced',
    singularResource: 'pod',
    verbs: ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'],
    shortNames: ['po'],
    categories: ['all'],
    subresources: [
      {
        subresource: 'eviction',
        responseKind: { group: 'policy', version: 'v1', kind: 'Eviction' },
        verbs: ['create'],
      },
      {
        subresource: 'status',
        responseKind: { group: '', version: 'v1', kind: 'Pod' },
        verbs: ['get', 'patch', 'update'],
      },
    ],
  });
  const nodes = core.versions[0]!.resources.find((r) => r.resource === 'nodes');
  assert.equal(nodes?.scope, 'Cluster');
});

test('/apis aggregated: named groups, versions by priority, CRDs included', () => {
  const registry = new ResourceRegistry(builtinResources());
  registry.applyCustomResourceDefinition(widgetCrd());
  const doc = aggregatedDiscovery(registry, 'apis');
  assert.ok(!doc.items.some((g) => g.metadata.name === undefined));
  const widgets = doc.items.find((g) => g.metadata.name === 'example.com');
  assert.deepEqual(
    widgets?.versions.map((v) => v.version),
    ['v1', 'v1alpha1'],
  );
  const v1 = widgets!.versions[0]!.resources[0]!;
  assert.equal(v1.resource, 'widgets');
  assert.deepEqual(v1.subresources, [
    {
      subresource: 'status',
      responseKind: { group: 'example.com', version: 'v1', kind: 'Widget' },
      verbs: ['get', 'patch', 'update'],
    },
  ]);
  assert.ok(!('subresources' in widgets!.versions[1]!.resources[0]!));
});
