// The informer against the embedded API server: a cache that follows every change, resumes after a
// server restart from its last resourceVersion (bookmarks keep it current) without re-listing, and
// re-lists after 410 Expired, reporting what vanished meanwhile as deletes.

import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import {
  Informer,
  type InformerEventType,
  MIRROR_POD_ANNOTATION,
  trimNode,
  trimPod,
  withoutManagedFields,
} from '../../src/kube/informer.ts';
import type { KubeClient } from '../../src/kube/kube-client.ts';
import type { KubeObject, Node, Pod } from '../../src/kube/types.ts';
import { adminKubeClient, type LocalApiServer, startLocalApiServer } from '../support/local-apiserver.ts';

interface ConfigMap extends KubeObject {
  data?: Record<string, string>;
}

const PATH = '/api/v1/namespaces/default/configmaps';

async function eventually<T>(what: string, check: () => T | undefined | false, ms = 10_000): Promise<T> {
  const deadline = performance.now() + ms;
  for (;;) {
    const value = check();
    if (value !== undefined && value !== false) return value;
    if (performance.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

describe('informer', () => {
  let local: LocalApiServer;
  let client: KubeClient;

  before(async () => {
    local = await startLocalApiServer({ bookmarkIntervalMs: 200, retainRevisions: 5, compactIntervalMs: 50 });
    client = adminKubeClient(local);
  });
  after(async () => {
    client?.close();
    await local?.stop();
  });

  test('lists, then follows adds, updates and deletes in order', async () => {
    await client.create(PATH, { metadata: { name: 'before' }, data: { a: '1' } });
    const informer = new Informer<ConfigMap>(client, { path: PATH, labelSelector: 'team!=other' });
    const seen: [InformerEventType, string, string | undefined][] = [];
    informer.on((type, object, old) => seen.push([type, object.metadata.name, old?.data?.a]));
    informer.start();
    await informer.waitForSync();
    assert.equal(informer.get('before', 'default')?.data?.a, '1');

    await client.create(PATH, { metadata: { name: 'after' }, data: { a: '2' } });
    await client.patch(`${PATH}/after`, { data: { a: '3' } });
    await client.create(PATH, { metadata: { name: 'ignored', labels: { team: 'other' } } });
    await client.delete(`${PATH}/before`);
    await eventually('all events', () => seen.length >= 4);
    assert.deepEqual(seen, [
      ['add', 'before', undefined],
      ['add', 'after', undefined],
      ['update', 'after', '2'],
      ['delete', 'before', '1'],
    ]);
    assert.deepEqual(
      informer.list().map((c) => c.metadata.name),
      ['after'],
    );
    assert.equal(informer.stats.lists, 1);
    await informer.stop();
    await client.delete(`${PATH}/after`);
    await client.delete(`${PATH}/ignored`);
  });

  test('a server restart is survived without a re-list; changes made meanwhile arrive', async () => {
    const informer = new Informer<ConfigMap>(client, { path: PATH, inactivityMs: 2_000 });
    informer.start();
    await informer.waitForSync();
    await client.create(PATH, { metadata: { name: 'one' } });
    await eventually('one', () => informer.get('one', 'default'));
    await local.restart();
    await client.create(PATH, { metadata: { name: 'two' } });
    await eventually('two after the restart', () => informer.get('two', 'default'), 15_000);
    assert.equal(informer.stats.lists, 1, 'resumed from its resourceVersion');
    assert.ok(informer.stats.watches >= 2);
    await informer.stop();
    await client.delete(`${PATH}/one`);
    await client.delete(`${PATH}/two`);
  });

  test('410 Expired: re-lists, and what vanished meanwhile is delivered as a delete', async () => {
    await client.create(PATH, { metadata: { name: 'doomed' } });
    const informer = new Informer<ConfigMap>(client, { path: PATH });
    const deleted: string[] = [];
    informer.on((type, object) => {
      if (type === 'delete') deleted.push(object.metadata.name);
    });
    informer.start();
    await informer.waitForSync();
    await informer.stop();
    // While it is stopped, history moves far past what the server keeps (5 revisions).
    await client.delete(`${PATH}/doomed`);
    for (let i = 0; i < 12; i++) await client.create(PATH, { metadata: { name: `filler-${i}` } });
    await new Promise((r) => setTimeout(r, 300));
    informer.start();
    await eventually('re-listed', () => informer.get('filler-11', 'default'));
    assert.equal(informer.stats.lists, 2);
    assert.deepEqual(deleted, ['doomed']);
    await informer.stop();
  });

  test('write-through: the copy our own write returned is never replaced by an older one', () => {
    const informer = new Informer<ConfigMap>(client, { path: PATH });
    informer.upsert({
      metadata: { name: 'x', namespace: 'default', resourceVersion: '120' },
      data: { v: 'new' },
    });
    informer.upsert({
      metadata: { name: 'x', namespace: 'default', resourceVersion: '99' },
      data: { v: 'old' },
    });
    assert.equal(informer.get('x', 'default')?.data?.v, 'new');
    informer.upsert({
      metadata: { name: 'x', namespace: 'default', resourceVersion: '121' },
      data: { v: 'newer' },
    });
    assert.equal(informer.get('x', 'default')?.data?.v, 'newer');
  });

  test('a transform trims what is cached and handed out: a Node keeps metadata, spec, conditions and its kubelet version', async () => {
    await client.create('/api/v1/nodes', {
      metadata: { name: 'trimmed', labels: { zone: 'a' }, annotations: { note: 'kept' } },
      spec: { unschedulable: true },
    });
    await client.patch(
      '/api/v1/nodes/trimmed/status',
      {
        status: {
          conditions: [{ type: 'Ready', status: 'True' }],
          images: [{ names: ['registry/big:1'], sizeBytes: 1 }],
          nodeInfo: { kubeletVersion: 'v1.33.0' },
        },
      },
      'merge',
    );
    const informer = new Informer<Node>(client, { path: '/api/v1/nodes', transform: trimNode });
    const handed: Node[] = [];
    informer.on((_type, node) => handed.push(node));
    informer.start();
    await informer.waitForSync();
    const cached = informer.get('trimmed') as Node & { status?: Record<string, unknown> };
    assert.equal(cached.metadata.annotations?.note, 'kept');
    assert.equal(cached.metadata.labels?.zone, 'a');
    assert.ok(cached.metadata.resourceVersion);
    assert.equal(cached.metadata.managedFields, undefined);
    assert.equal(cached.spec?.unschedulable, true);
    assert.deepEqual(Object.keys(cached.status ?? {}), ['conditions', 'nodeInfo']);
    assert.deepEqual(
      cached.status?.nodeInfo,
      { kubeletVersion: 'v1.33.0' },
      'of nodeInfo only the kubelet version',
    );
    assert.equal(cached.status?.conditions?.[0]?.status, 'True');
    assert.equal(handed.at(-1), cached);
    await client.patch('/api/v1/nodes/trimmed', { metadata: { annotations: { note: 'changed' } } });
    await eventually('the update', () => informer.get('trimmed')?.metadata.annotations?.note === 'changed');
    assert.equal(informer.get('trimmed')?.metadata.managedFields, undefined);
    await informer.stop();
    await client.delete('/api/v1/nodes/trimmed');
  });

  test('lists page by page, each page transformed once as it arrives, then watches from the list', async () => {
    const names = ['p1', 'p2', 'p3', 'p4', 'p5'];
    for (const name of names)
      await client.create(PATH, { metadata: { name, labels: { paged: 'yes' } }, data: { a: name } });
    const reader = adminKubeClient(local);
    let transformed = 0;
    const informer = new Informer<ConfigMap>(reader, {
      path: PATH,
      labelSelector: 'paged=yes',
      listPageSize: 2,
      transform: (object) => {
        transformed++;
        return withoutManagedFields(object);
      },
    });
    informer.start();
    await informer.waitForSync();
    assert.deepEqual(
      informer
        .list()
        .map((c) => c.metadata.name)
        .sort(),
      names,
    );
    assert.equal(reader.stats().byVerb.list, 3, 'three pages of at most two');
    assert.equal(transformed, names.length, 'each listed object transformed once');
    await client.patch(`${PATH}/p5`, { data: { a: 'changed' } });
    await eventually('the change after the list', () => informer.get('p5', 'default')?.data?.a === 'changed');
    await informer.stop();
    reader.close();
    for (const name of names) await client.delete(`${PATH}/${name}`);
  });

  test("trimPod keeps what drains read (of the annotations, the mirror pod's); withoutManagedFields drops only managedFields", () => {
    const pod = trimPod({
      metadata: {
        name: 'p',
        namespace: 'ns',
        managedFields: [{}],
        ownerReferences: [],
        annotations: { 'sidecar.example/status': '{"big":"json"}' },
      },
      spec: { nodeName: 'n1', containers: [{ name: 'c' }] },
      status: { phase: 'Running', conditions: [{ type: 'Ready', status: 'True' }], podIP: '10.0.0.1' },
    } as Pod);
    assert.deepEqual(pod, {
      metadata: { name: 'p', namespace: 'ns', ownerReferences: [] },
      spec: { nodeName: 'n1' },
      status: { phase: 'Running', conditions: [{ type: 'Ready', status: 'True' }] },
    });
    const mirror = trimPod({
      metadata: { name: 'm', annotations: { [MIRROR_POD_ANNOTATION]: 'abc', other: 'x' } },
    } as Pod);
    assert.deepEqual(
      mirror.metadata.annotations,
      { [MIRROR_POD_ANNOTATION]: 'abc' },
      'a mirror pod stays one',
    );
    const config = withoutManagedFields<ConfigMap>({
      metadata: { name: 'c', managedFields: [{}] },
      data: { a: '1' },
    });
    assert.deepEqual(config, { metadata: { name: 'c' }, data: { a: '1' } });
  });
});
