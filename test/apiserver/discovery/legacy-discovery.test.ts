import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  apiGroup,
  apiGroupList,
  apiResourceList,
  apiVersions,
} from '../../../src/apiserver/discovery/legacy-discovery.ts';
import { builtinResources } from '../../../src/apiserver/kinds/registration.ts';
import { ResourceRegistry } from '../../../src/apiserver/registry/resource-registry.ts';
import { widgetCrd } from '../registry/crd-fixture.ts';

test('/api lists the core version and where to reach the server', () => {
  const registry = new ResourceRegistry(builtinResources());
  assert.deepEqual(apiVersions(registry, '10.0.0.1:6443'), {
    kind: 'APIVersions',
    versions: ['v1'],
    serverAddressByClientCIDRs: [{ clientCIDR: '0.0.0.0/0', serverAddress: '10.0.0.1:6443' }],
  });
  assert.deepEqual(apiVersions(registry).serverAddressByClientCIDRs, []);
});

test('/apis lists named groups with their preferred version, never the core group', () => {
  const registry = new ResourceRegistry(builtinResources());
  const list = apiGroupList(registry);
  assert.equal(list.kind, 'APIGroupList');
  assert.equal(list.apiVersion, 'v1');
  assert.ok(!list.groups.some((g) => g.name === ''));
  assert.deepEqual(list.groups[0], {
    name: 'apps',
    versions: [{ groupVersion: 'apps/v1', version: 'v1' }],
    preferredVersion: { groupVersion: 'apps/v1', version: 'v1' },
  });
});

test('a CRD group appears in /apis and /apis/<group> once Established, preferring its highest-priority version', () => {
  const registry = new ResourceRegistry(builtinResources());
  assert.equal(apiGroup(registry, 'example.com'), undefined);
  registry.applyCustomResourceDefinition(widgetCrd());
  assert.deepEqual(apiGroup(registry, 'example.com'), {
    kind: 'APIGroup',
    apiVersion: 'v1',
    name: 'example.com',
    versions: [
      { groupVersion: 'example.com/v1', version: 'v1' },
      { groupVersion: 'example.com/v1alpha1', version: 'v1alpha1' },
    ],
    preferredVersion: { groupVersion: 'example.com/v1', version: 'v1' },
  });
  assert.equal(apiGroupList(registry).groups.at(-1)?.name, 'example.com');
  assert.equal(apiGroup(registry, ''), undefined, 'the core group is not a named group');
  registry.removeCustomResourceDefinition('widgets.example.com');
  assert.ok(!apiGroupList(registry).groups.some((g) => g.name === 'example.com'));
});

test('/api/v1 lists resources with subresources; pods/eviction names policy/v1 Eviction', () => {
  const registry = new ResourceRegistry(builtinResources());
  const list = apiResourceList(registry, '', 'v1');
  assert.ok(list);
  assert.equal(list.kind, 'APIResourceList');
  assert.equal(list.groupVersion, 'v1');
  const byName = new Map(list.resources.map((r) => [r.name, r]));
  assert.deepEqual(byName.get('pods'), {
    name: 'pods',
    singularName: 'pod',
    namespaced: true,
    kind: 'Pod',
    verbs: ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'],
    shortNames: ['po'],
    categories: ['all'],
  });
  assert.deepEqual(byName.get('pods/eviction'), {
    name: 'pods/eviction',
    singularName: '',
    namespaced: true,
    group: 'policy',
    version: 'v1',
    kind: 'Eviction',
    verbs: ['create'],
  });
  assert.deepEqual(byName.get('nodes/status'), {
    name: 'nodes/status',
    singularName: '',
    namespaced: false,
    kind: 'Node',
    verbs: ['get', 'patch', 'update'],
  });
  // Empty shortNames and categories are omitted, as kube does.
  assert.ok(!('shortNames' in byName.get('secrets')!));
  assert.ok(!('categories' in byName.get('secrets')!));
  assert.equal(apiResourceList(registry, '', 'v2'), undefined);
});

test('/apis/<group>/<version> for a CRD lists the resource and its status subresource', () => {
  const registry = new ResourceRegistry(builtinResources());
  registry.applyCustomResourceDefinition(widgetCrd());
  const v1 = apiResourceList(registry, 'example.com', 'v1');
  assert.deepEqual(
    v1?.resources.map((r) => [r.name, r.kind, r.namespaced]),
    [
      ['widgets', 'Widget', true],
      ['widgets/status', 'Widget', true],
    ],
  );
  assert.deepEqual(v1?.resources[0]?.shortNames, ['wd']);
  // v1alpha1 declares no status subresource.
  assert.deepEqual(
    apiResourceList(registry, 'example.com', 'v1alpha1')?.resources.map((r) => r.name),
    ['widgets'],
  );
  assert.equal(
    apiResourceList(registry, 'example.com', 'v2beta1'),
    undefined,
    'unserved versions are absent',
  );
});
