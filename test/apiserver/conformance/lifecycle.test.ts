// Conformance: deletion. Finalizers and deletionTimestamp, ownerReference cascading deletion
// (background, foreground, orphan) and namespace deletion, through kubectl and client-node.

import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { CoreV1Api, type V1ConfigMap, type V1OwnerReference } from '@kubernetes/client-node';
import { type LocalApiServer, startLocalApiServer } from '../../support/local-apiserver.ts';
import { assertStatus, json, kubectlApply, kubectlOk, raw, rawWatch, waitFor } from './support.ts';

const HOLD = 'example.com/hold';

describe('deletion lifecycle', () => {
  let local: LocalApiServer;
  let core: CoreV1Api;

  const exists = async (path: string) => (await raw(local, { path })).status === 200;
  const cmPath = (name: string, ns = 'default') => `/api/v1/namespaces/${ns}/configmaps/${name}`;

  async function owner(name: string): Promise<V1OwnerReference> {
    const cm = await core.createNamespacedConfigMap({ namespace: 'default', body: { metadata: { name } } });
    return { apiVersion: 'v1', kind: 'ConfigMap', name, uid: cm.metadata!.uid! };
  }

  async function dependent(
    name: string,
    owners: V1OwnerReference[],
    extra: Partial<V1ConfigMap['metadata']> = {},
  ): Promise<void> {
    await core.createNamespacedConfigMap({
      namespace: 'default',
      body: { metadata: { name, ownerReferences: owners, ...extra } },
    });
  }

  before(async () => {
    local = await startLocalApiServer();
    core = local.kubeConfig().makeApiClient(CoreV1Api);
  });
  after(() => local.stop());

  test('delete with a finalizer sets deletionTimestamp; removing the finalizer deletes the object', async () => {
    await kubectlOk(
      local,
      ['apply', '-f', '-'],
      json({
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: { name: 'held', finalizers: [HOLD] },
        data: { a: '1' },
      }),
    );
    const rv = (await raw(local, { path: cmPath('held') })).json.metadata.resourceVersion;
    const w = await rawWatch(local, `/api/v1/namespaces/default/configmaps?watch=true&resourceVersion=${rv}`);
    try {
      const deleted = await raw(local, { method: 'DELETE', path: cmPath('held') });
      assert.equal(deleted.status, 200);
      assert.equal(deleted.json.kind, 'ConfigMap', 'the object itself, still there');
      assert.match(deleted.json.metadata.deletionTimestamp, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
      assert.deepEqual(deleted.json.metadata.finalizers, [HOLD]);

      const held = await core.readNamespacedConfigMap({ name: 'held', namespace: 'default' });
      assert.ok(held.metadata!.deletionTimestamp, 'still readable, with a deletionTimestamp');
      assert.equal(held.data!.a, '1');

      // Deleting again changes nothing; kubectl delete --wait=false just reports it.
      await kubectlOk(local, ['delete', 'configmap', 'held', '--wait=false']);
      const again = await core.readNamespacedConfigMap({ name: 'held', namespace: 'default' });
      assert.equal(again.metadata!.resourceVersion, held.metadata!.resourceVersion);

      // Adding a finalizer while deleting is 422.
      const add = await raw(local, {
        method: 'PATCH',
        path: cmPath('held'),
        contentType: 'application/merge-patch+json',
        body: json({ metadata: { finalizers: [HOLD, 'example.com/another'] } }),
      });
      assertStatus(add, 422, 'Invalid');
      assert.equal(add.json.details.causes[0].field, 'metadata.finalizers');

      // Other changes are still allowed, and deletionTimestamp cannot be changed.
      const edited = await raw(local, {
        method: 'PATCH',
        path: cmPath('held'),
        contentType: 'application/merge-patch+json',
        body: json({ metadata: { deletionTimestamp: '2000-01-01T00:00:00Z' }, data: { a: '2' } }),
      });
      assert.equal(edited.status, 200, edited.text);
      assert.equal(
        edited.json.metadata.deletionTimestamp,
        held.metadata!.deletionTimestamp!.toISOString().replace('.000Z', 'Z'),
      );
      assert.equal(edited.json.data.a, '2');

      await kubectlOk(local, [
        'patch',
        'configmap',
        'held',
        '--type=json',
        '-p',
        json([{ op: 'remove', path: '/metadata/finalizers' }]),
      ]);
      assert.equal((await raw(local, { path: cmPath('held') })).status, 404);
      await waitFor(
        'the watch to see the deletion',
        () => w.events.some((e) => e.type === 'DELETED') || undefined,
      );
      assert.deepEqual(
        w.events.map((e) => e.type),
        ['MODIFIED', 'MODIFIED', 'DELETED'],
      );
    } finally {
      w.close();
    }
  });

  test('background cascade: deleting the owner deletes its dependents', async () => {
    const ref = await owner('bg-owner');
    await dependent('bg-dep-1', [ref]);
    await dependent('bg-dep-2', [ref]);
    const other = await owner('bg-other');
    await dependent('bg-shared', [ref, other]);
    await kubectlOk(local, ['delete', 'configmap', 'bg-owner']);
    await waitFor(
      'dependents to go',
      async () => !(await exists(cmPath('bg-dep-1'))) && !(await exists(cmPath('bg-dep-2'))),
    );
    // A dependent with another live owner stays, without the dead reference.
    const shared = await waitFor('the dead owner reference to be dropped', async () => {
      const cm = await core.readNamespacedConfigMap({ name: 'bg-shared', namespace: 'default' });
      return cm.metadata!.ownerReferences!.length === 1 ? cm : undefined;
    });
    assert.equal(shared.metadata!.ownerReferences![0]!.uid, other.uid);
  });

  test('foreground cascade: the owner waits, with foregroundDeletion, until blocking dependents are gone', async () => {
    const ref = await owner('fg-owner');
    await dependent('fg-dep', [{ ...ref, blockOwnerDeletion: true }], { finalizers: [HOLD] });
    await dependent('fg-free', [ref]);
    await kubectlOk(local, ['delete', 'configmap', 'fg-owner', '--cascade=foreground', '--wait=false']);
    const waiting = await core.readNamespacedConfigMap({ name: 'fg-owner', namespace: 'default' });
    assert.ok(waiting.metadata!.deletionTimestamp);
    assert.ok(waiting.metadata!.finalizers!.includes('foregroundDeletion'));
    // Its dependents are being deleted; the held one stays because of its own finalizer.
    const dep = await waitFor('the dependent to be deleting', async () => {
      const cm = await core.readNamespacedConfigMap({ name: 'fg-dep', namespace: 'default' });
      return cm.metadata!.deletionTimestamp ? cm : undefined;
    });
    assert.ok(dep.metadata!.deletionTimestamp);
    await new Promise((r) => setTimeout(r, 700));
    assert.ok(await exists(cmPath('fg-owner')), 'owner stays while a blocking dependent exists');
    await kubectlOk(local, [
      'patch',
      'configmap',
      'fg-dep',
      '--type=merge',
      '-p',
      json({ metadata: { finalizers: null } }),
    ]);
    await waitFor('the owner to go', async () => !(await exists(cmPath('fg-owner'))));
    assert.equal(await exists(cmPath('fg-dep')), false);
    assert.equal(await exists(cmPath('fg-free')), false);
  });

  test('orphan: the owner goes, dependents stay without the reference', async () => {
    const ref = await owner('or-owner');
    await dependent('or-dep', [ref]);
    await kubectlOk(local, ['delete', 'configmap', 'or-owner', '--cascade=orphan']);
    await waitFor('the owner to go', async () => !(await exists(cmPath('or-owner'))));
    const dep = await core.readNamespacedConfigMap({ name: 'or-dep', namespace: 'default' });
    assert.equal(dep.metadata!.deletionTimestamp, undefined);
    assert.ok(!dep.metadata!.ownerReferences || dep.metadata!.ownerReferences.length === 0);
    // Still there a moment later: the collector does not come back for it.
    await new Promise((r) => setTimeout(r, 300));
    assert.ok(await exists(cmPath('or-dep')));
  });

  test('propagationPolicy in DeleteOptions is honoured, and an unknown one is 400', async () => {
    const ref = await owner('opt-owner');
    await dependent('opt-dep', [ref]);
    const res = await raw(local, {
      method: 'DELETE',
      path: cmPath('opt-owner'),
      body: json({ apiVersion: 'v1', kind: 'DeleteOptions', propagationPolicy: 'Orphan' }),
    });
    assert.equal(res.status, 200, res.text);
    await waitFor('the owner to go', async () => !(await exists(cmPath('opt-owner'))));
    assert.ok(await exists(cmPath('opt-dep')));
    const bad = await raw(local, {
      method: 'DELETE',
      path: cmPath('opt-dep'),
      body: json({ kind: 'DeleteOptions', apiVersion: 'v1', propagationPolicy: 'Sideways' }),
    });
    assertStatus(bad, 400, 'BadRequest');
    const pre = await raw(local, {
      method: 'DELETE',
      path: cmPath('opt-dep'),
      body: json({ kind: 'DeleteOptions', apiVersion: 'v1', preconditions: { uid: 'not-the-uid' } }),
    });
    assertStatus(pre, 409, 'Conflict');
    assert.ok(await exists(cmPath('opt-dep')));
  });

  test('namespace deletion: Terminating, refuses new content, removes its content, then itself', async () => {
    await kubectlApply(local, [
      { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'doomed' } },
      { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'a', namespace: 'doomed' } },
      {
        apiVersion: 'v1',
        kind: 'Secret',
        metadata: { name: 's', namespace: 'doomed' },
        stringData: { k: 'v' },
      },
      {
        apiVersion: 'coordination.k8s.io/v1',
        kind: 'Lease',
        metadata: { name: 'l', namespace: 'doomed' },
        spec: { holderIdentity: 'x' },
      },
      {
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: { name: 'held', namespace: 'doomed', finalizers: [HOLD] },
      },
    ]);
    const ns = await core.readNamespace({ name: 'doomed' });
    assert.equal(ns.status!.phase, 'Active');
    assert.deepEqual(ns.spec!.finalizers, ['kubernetes']);

    await kubectlOk(local, ['delete', 'namespace', 'doomed', '--wait=false']);
    const terminating = await core.readNamespace({ name: 'doomed' });
    assert.equal(terminating.status!.phase, 'Terminating');
    assert.ok(terminating.metadata!.deletionTimestamp);

    const refused = await raw(local, {
      method: 'POST',
      path: '/api/v1/namespaces/doomed/configmaps',
      body: json({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'late' } }),
    });
    assertStatus(refused, 403, 'Forbidden');
    assert.match(refused.json.message, /being terminated/);

    await waitFor('content without finalizers to go', async () => {
      const list = await raw(local, { path: '/api/v1/namespaces/doomed/configmaps' });
      const secrets = await raw(local, { path: '/api/v1/namespaces/doomed/secrets' });
      const leases = await raw(local, { path: '/apis/coordination.k8s.io/v1/namespaces/doomed/leases' });
      return (
        list.json.items.length === 1 && secrets.json.items.length === 0 && leases.json.items.length === 0
      );
    });
    assert.ok(await exists('/api/v1/namespaces/doomed'), 'the namespace waits for the held object');
    await kubectlOk(local, [
      'patch',
      'configmap',
      'held',
      '-n',
      'doomed',
      '--type=merge',
      '-p',
      json({ metadata: { finalizers: null } }),
    ]);
    await waitFor('the namespace to go', async () => !(await exists('/api/v1/namespaces/doomed')));
    const created = await raw(local, {
      method: 'POST',
      path: '/api/v1/namespaces/doomed/configmaps',
      body: json({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'late' } }),
    });
    assertStatus(created, 404, 'NotFound');
  });
});
