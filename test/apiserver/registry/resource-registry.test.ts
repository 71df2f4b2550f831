import assert from 'node:assert/strict';
import { test } from 'node:test';
import { builtinResources } from '../../../src/apiserver/kinds/registration.ts';
import {
  compareVersionPriority,
  type RegistryChange,
  ResourceRegistry,
  sortByVersionPriority,
} from '../../../src/apiserver/registry/resource-registry.ts';
import { widgetCrd } from './crd-fixture.ts';

test('versions sort by kube priority: GA, then beta, then alpha, then non-kube names alphabetically', () => {
  // The example from the CRD versioning documentation.
  const shuffled = ['foo10', 'v11alpha2', 'v1', 'v10beta3', 'foo1', 'v3beta1', 'v2', 'v12alpha1', 'v11beta2'];
  assert.deepEqual(sortByVersionPriority(shuffled), [
    'v2',
    'v1',
    'v11beta2',
    'v10beta3',
    'v3beta1',
    'v12alpha1',
    'v11alpha2',
    'foo1',
    'foo10',
  ]);
  assert.ok(compareVersionPriority('v1', 'v2beta1') < 0, 'GA beats a higher-major beta');
  assert.equal(compareVersionPriority('v1', 'v1'), 0);
  assert.deepEqual(sortByVersionPriority(['v1', 'v1', 'v1beta1']), ['v1', 'v1beta1']);
});

test('built-ins are served and found by resource, kind and short name', () => {
  const registry = new ResourceRegistry(builtinResources());
  assert.equal(registry.get('', 'v1', 'pods')?.kind, 'Pod');
  assert.equal(registry.get('apps', 'v1', 'daemonsets')?.kind, 'DaemonSet');
  assert.equal(registry.get('apps', 'v2', 'daemonsets'), undefined);
  assert.equal(registry.getByKind('policy', 'v1', 'PodDisruptionBudget')?.resource, 'poddisruptionbudgets');
  assert.deepEqual(
    registry.findByShortName('po').map((d) => d.resource),
    ['pods'],
  );
  // "ev" names core events and events.k8s.io events; the core group ranks first, as in kubectl.
  assert.deepEqual(
    registry.findByShortName('ev').map((d) => d.group),
    ['', 'events.k8s.io'],
  );
  assert.deepEqual(
    registry.findByKind('Event').map((d) => d.group),
    ['', 'events.k8s.io'],
  );
  assert.deepEqual(
    registry.resolve('events.events.k8s.io').map((d) => d.group),
    ['events.k8s.io'],
  );
  assert.deepEqual(
    registry.resolve('CRD').map((d) => d.resource),
    ['customresourcedefinitions'],
  );
  assert.deepEqual(
    registry.resources('', 'v1').map((d) => d.resource),
    ['configmaps', 'events', 'namespaces', 'nodes', 'pods', 'secrets', 'serviceaccounts', 'services'],
  );
});

test('groups list the core group first, then built-in groups in kube order, then custom groups', () => {
  const registry = new ResourceRegistry(builtinResources());
  registry.applyCustomResourceDefinition(widgetCrd());
  assert.deepEqual(
    registry.groups().map((g) => g.group),
    [
      '',
      'apps',
      'events.k8s.io',
      'authentication.k8s.io',
      'authorization.k8s.io',
      'networking.k8s.io',
      'policy',
      'rbac.authorization.k8s.io',
      'admissionregistration.k8s.io',
      'apiextensions.k8s.io',
      'coordination.k8s.io',
      'example.com',
    ],
  );
  const widgets = registry.groups().find((g) => g.group === 'example.com');
  // v1 outranks v1alpha1 even though the CRD lists v1alpha1 first; v2beta1 is not served.
  assert.deepEqual(widgets, { group: 'example.com', versions: ['v1', 'v1alpha1'], preferredVersion: 'v1' });
});

test('an Established CRD is served in each served version, and withdrawn when deleted', () => {
  const registry = new ResourceRegistry(builtinResources());
  const changes: RegistryChange[] = [];
  const unsubscribe = registry.onChange((c) => changes.push(c));

  const served = registry.applyCustomResourceDefinition(widgetCrd());
  assert.deepEqual(
    served.map((d) => d.version),
    ['v1alpha1', 'v1'],
  );
  assert.equal(registry.generation, 1);
  assert.equal(registry.get('example.com', 'v1', 'widgets')?.kind, 'Widget');
  assert.deepEqual(
    registry.versionsOf('example.com', 'widgets').map((d) => d.version),
    ['v1', 'v1alpha1'],
  );
  assert.equal(registry.storageVersion('example.com', 'widgets'), 'v1');
  assert.equal(registry.storageVersion('', 'pods'), 'v1');
  assert.deepEqual(
    registry.resolve('wd').map((d) => d.version),
    ['v1', 'v1alpha1'],
  );
  assert.equal(changes.length, 1);
  assert.equal(changes[0]!.crdName, 'widgets.example.com');
  assert.equal(changes[0]!.added.length, 2);

  assert.equal(registry.removeCustomResourceDefinition('widgets.example.com'), true);
  assert.equal(registry.get('example.com', 'v1', 'widgets'), undefined);
  assert.equal(registry.removeCustomResourceDefinition('widgets.example.com'), false);
  assert.equal(changes.length, 2);
  assert.equal(changes[1]!.removed.length, 2);
  assert.equal(registry.generation, 2);

  unsubscribe();
  registry.applyCustomResourceDefinition(widgetCrd());
  assert.equal(changes.length, 2, 'no notification after unsubscribing');
});

test('re-applying an unchanged CRD changes nothing; a schema change or losing Established does', () => {
  const registry = new ResourceRegistry(builtinResources());
  let notified = 0;
  registry.onChange(() => notified++);
  registry.applyCustomResourceDefinition(widgetCrd());
  // A status-only write (e.g. new storedVersions) must not churn discovery.
  const sameSpec = widgetCrd();
  sameSpec.metadata.resourceVersion = '8';
  sameSpec.status.storedVersions = ['v1', 'v1alpha1'];
  registry.applyCustomResourceDefinition(sameSpec);
  assert.equal(notified, 1);

  registry.applyCustomResourceDefinition(widgetCrd({ sizeDescription: 'Size in units.' }));
  assert.equal(notified, 2);
  assert.equal(
    registry.get('example.com', 'v1', 'widgets')?.schema?.properties?.spec?.properties?.size?.description,
    'Size in units.',
  );

  assert.deepEqual(registry.applyCustomResourceDefinition(widgetCrd({ established: false })), []);
  assert.equal(notified, 3);
  assert.equal(registry.get('example.com', 'v1', 'widgets'), undefined);
});

test('a CRD cannot take over a built-in resource, and name clashes are reported', () => {
  const registry = new ResourceRegistry(builtinResources());
  const hijack = widgetCrd();
  hijack.metadata.name = 'daemonsets.apps';
  hijack.spec.group = 'apps';
  hijack.spec.names = { plural: 'daemonsets', singular: 'daemonset', kind: 'DaemonSet' };
  hijack.status.acceptedNames = hijack.spec.names;
  hijack.spec.versions = [
    { name: 'v1', served: true, storage: true },
    { name: 'v2', served: true, storage: false },
  ];
  // Only the version that does not collide with the built-in is served.
  assert.deepEqual(
    registry.applyCustomResourceDefinition(hijack).map((d) => d.version),
    ['v2'],
  );
  assert.equal(registry.get('apps', 'v1', 'daemonsets')?.builtin, true);
  assert.equal(registry.get('apps', 'v2', 'daemonsets')?.builtin, false);
  registry.removeCustomResourceDefinition('daemonsets.apps');

  registry.applyCustomResourceDefinition(widgetCrd());
  const gadget = widgetCrd();
  gadget.metadata.name = 'gadgets.example.com';
  gadget.spec.names = { plural: 'gadgets', singular: 'gadget', kind: 'Gadget', shortNames: ['wd'] };
  assert.equal(registry.namesConflict(gadget), '"wd" is already in use');
  gadget.spec.names.shortNames = [];
  assert.equal(registry.namesConflict(gadget), undefined);
  // A CRD never conflicts with itself.
  assert.equal(registry.namesConflict(widgetCrd()), undefined);
  const sameKind = widgetCrd();
  sameKind.metadata.name = 'widgetz.example.com';
  sameKind.spec.names = { plural: 'widgetz', singular: 'widgetz', kind: 'Widget' };
  assert.equal(registry.namesConflict(sameKind), '"Widget" is already in use');
});
