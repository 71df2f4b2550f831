import assert from 'node:assert/strict';
import { test } from 'node:test';
import { builtinResources } from '../../../src/apiserver/kinds/registration.ts';
import { ObjectService } from '../../../src/apiserver/objects/object-service.ts';
import { SqliteStore } from '../../../src/apiserver/storage/sqlite-store.ts';
import type { KubeObject, ListOptions, ListResult } from '../../../src/apiserver/storage/types.ts';

function service() {
  const store = SqliteStore.open(':memory:');
  const scans: string[] = [];
  const list = store.list.bind(store);
  store.list = (prefix: string, options?: ListOptions): ListResult => {
    scans.push(prefix);
    return list(prefix, options);
  };
  const objects = new ObjectService({
    store,
    strategies: () => [],
    applyPatch: () => {
      throw new Error('not used');
    },
    validateName: () => undefined,
  });
  const defs = builtinResources();
  const nodes = defs.find((d) => d.resource === 'nodes')!;
  const pods = defs.find((d) => d.resource === 'pods')!;
  return { store, objects, nodes, pods, scans };
}

test('a list pinned to one name reads that key without scanning the collection', () => {
  const { store, objects, nodes, scans } = service();
  for (const name of ['n1', 'n2', 'n3'])
    objects.create(nodes, undefined, { metadata: { name, labels: { zone: 'a' } } });
  const page = objects.list(nodes, undefined, { name: 'n2' });
  assert.deepEqual(
    page.items.map((o) => o.metadata.name),
    ['n2'],
  );
  assert.equal(page.resourceVersion, String(store.currentRevision()));
  assert.deepEqual(scans, [], 'no prefix scan');
  assert.deepEqual(objects.list(nodes, undefined, { name: 'missing' }).items, []);
  const labelled = (zone: string) => (o: KubeObject) => o.metadata.labels?.zone === zone;
  assert.equal(objects.list(nodes, undefined, { name: 'n2', filter: labelled('b') }).items.length, 0);
  assert.equal(objects.list(nodes, undefined, { name: 'n2', filter: labelled('a') }).items.length, 1);
  store.close();
});

test('a name pinned across all namespaces still scans, and finds it in every namespace', () => {
  const { store, objects, pods, scans } = service();
  for (const ns of ['a', 'b']) objects.create(pods, ns, { metadata: { name: 'same' } });
  const page = objects.list(pods, undefined, { name: 'same', filter: (o) => o.metadata.name === 'same' });
  assert.deepEqual(page.items.map((o) => o.metadata.namespace).sort(), ['a', 'b']);
  assert.ok(scans.length > 0);
  store.close();
});
