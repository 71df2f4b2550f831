// Conformance: writes. kubectl label, annotate, apply and the three patch types on built-in kinds,
// optimistic concurrency (409), and resourceVersion as one strictly increasing counter across kinds
// and across a restart.

import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { ApiException, AppsV1Api, CoordinationV1Api, CoreV1Api } from '@kubernetes/client-node';
import { type LocalApiServer, startLocalApiServer } from '../../support/local-apiserver.ts';
import { assertStatus, json, kubectlApply, kubectlOk, raw } from './support.ts';

const getJson = async (local: LocalApiServer, args: string[]) =>
  JSON.parse(await kubectlOk(local, ['get', ...args, '-o', 'json']));

describe('writes', () => {
  let local: LocalApiServer;
  let core: CoreV1Api;

  before(async () => {
    local = await startLocalApiServer();
    core = local.kubeConfig().makeApiClient(CoreV1Api);
    await kubectlApply(local, [
      {
        apiVersion: 'v1',
        kind: 'Pod',
        metadata: { name: 'web', labels: { app: 'web' } },
        spec: {
          containers: [
            { name: 'main', image: 'nginx:1', env: [{ name: 'A', value: '1' }] },
            { name: 'side', image: 'busybox:1' },
          ],
        },
      },
      { apiVersion: 'v1', kind: 'Node', metadata: { name: 'node-1' } },
    ]);
  });
  after(() => local.stop());

  test('kubectl label and annotate: add, overwrite, remove', async () => {
    await kubectlOk(local, ['label', 'pod', 'web', 'tier=front', 'zone=a']);
    let pod = await getJson(local, ['pod', 'web']);
    assert.deepEqual(pod.metadata.labels, { app: 'web', tier: 'front', zone: 'a' });
    const refused = await local.kubectl(['label', 'pod', 'web', 'tier=back']);
    assert.notEqual(refused.code, 0, 'relabel without --overwrite fails client-side');
    await kubectlOk(local, ['label', 'pod', 'web', 'tier=back', '--overwrite']);
    await kubectlOk(local, ['label', 'pod', 'web', 'zone-']);
    await kubectlOk(local, ['annotate', 'pod', 'web', 'owner=team-a', 'note=hello world']);
    await kubectlOk(local, ['annotate', 'pod', 'web', 'note-']);
    pod = await getJson(local, ['pod', 'web']);
    assert.deepEqual(pod.metadata.labels, { app: 'web', tier: 'back' });
    assert.equal(pod.metadata.annotations.owner, 'team-a');
    assert.equal(pod.metadata.annotations.note, undefined);
    // Label selectors see the new labels at once.
    assert.equal(
      (await kubectlOk(local, ['get', 'pods', '-l', 'tier=back', '-o', 'name'])).trim(),
      'pod/web',
    );
  });

  test('kubectl patch --type merge, json and strategic on a built-in kind', async () => {
    await kubectlOk(local, [
      'patch',
      'pod',
      'web',
      '--type=merge',
      '-p',
      json({ metadata: { labels: { m: '1' } } }),
    ]);
    await kubectlOk(local, [
      'patch',
      'pod',
      'web',
      '--type=json',
      '-p',
      json([
        { op: 'replace', path: '/spec/containers/1/image', value: 'busybox:2' },
        { op: 'add', path: '/metadata/labels/j', value: '2' },
      ]),
    ]);
    // Strategic: containers merge by name, env merges by name; the other container is untouched.
    await kubectlOk(local, [
      'patch',
      'pod',
      'web',
      '--type=strategic',
      '-p',
      json({ spec: { containers: [{ name: 'main', image: 'nginx:2', env: [{ name: 'B', value: '2' }] }] } }),
    ]);
    const pod = await getJson(local, ['pod', 'web']);
    assert.equal(pod.metadata.labels.m, '1');
    assert.equal(pod.metadata.labels.j, '2');
    assert.deepEqual(
      pod.spec.containers.map((c: any) => [c.name, c.image]),
      [
        ['main', 'nginx:2'],
        ['side', 'busybox:2'],
      ],
    );
    assert.deepEqual(pod.spec.containers[0].env, [
      { name: 'B', value: '2' },
      { name: 'A', value: '1' },
    ]);
    // A JSON patch test failing is 422; a patch that cannot apply changes nothing.
    const failed = await raw(local, {
      method: 'PATCH',
      path: '/api/v1/namespaces/default/pods/web',
      contentType: 'application/json-patch+json',
      body: json([{ op: 'test', path: '/metadata/labels/m', value: 'nope' }]),
    });
    assert.equal(failed.json.kind, 'Status');
    assert.ok(failed.status === 422 || failed.status === 500, failed.text);
  });

  test('node status conditions merge by type through a strategic patch on /status', async () => {
    const patch = (conditions: unknown[]) =>
      kubectlOk(local, [
        'patch',
        'node',
        'node-1',
        '--subresource=status',
        '--type=strategic',
        '-p',
        json({ status: { conditions } }),
      ]);
    await patch([
      { type: 'Ready', status: 'True', reason: 'KubeletReady' },
      { type: 'NodeConfigReady', status: 'False', reason: 'Applying' },
    ]);
    await patch([{ type: 'NodeConfigReady', status: 'True', reason: 'Applied' }]);
    const node = await getJson(local, ['node', 'node-1']);
    const byType = Object.fromEntries(node.status.conditions.map((c: any) => [c.type, [c.status, c.reason]]));
    assert.deepEqual(byType.NodeConfigReady, ['True', 'Applied']);
    assert.equal(node.status.conditions.length, 2);
  });

  test('kubectl apply: create, then a three-way update that keeps fields others set', async () => {
    const manifest = (data: Record<string, string>) =>
      json({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'applied' }, data });
    assert.match(await kubectlOk(local, ['apply', '-f', '-'], manifest({ a: '1', b: '2' })), /created/);
    await kubectlOk(local, ['label', 'configmap', 'applied', 'extra=kept']);
    assert.match(await kubectlOk(local, ['apply', '-f', '-'], manifest({ a: '1' })), /configured/);
    assert.match(await kubectlOk(local, ['apply', '-f', '-'], manifest({ a: '1' })), /unchanged/);
    const cm = await getJson(local, ['configmap', 'applied']);
    assert.deepEqual(cm.data, { a: '1' }, 'b removed because the last applied configuration had it');
    assert.equal(cm.metadata.labels.extra, 'kept');
    assert.ok(cm.metadata.annotations['kubectl.kubernetes.io/last-applied-configuration']);
  });

  test('a stale update gets 409 Conflict; a create of an existing name 409 AlreadyExists', async () => {
    const current = await core.readNamespacedConfigMap({ name: 'applied', namespace: 'default' });
    await core.replaceNamespacedConfigMap({
      name: 'applied',
      namespace: 'default',
      body: { ...current, data: { a: 'first' } },
    });
    await assert.rejects(
      core.replaceNamespacedConfigMap({
        name: 'applied',
        namespace: 'default',
        body: { ...current, data: { a: 'stale' } },
      }),
      (err: unknown) => {
        assert.ok(err instanceof ApiException);
        assert.equal(err.code, 409);
        const body = typeof err.body === 'string' ? JSON.parse(err.body) : err.body;
        assert.equal(body.reason, 'Conflict');
        assert.equal(
          body.message,
          'Operation cannot be fulfilled on configmaps "applied": the object has been modified; please apply your changes to the latest version and try again',
        );
        assert.deepEqual(body.details, { name: 'applied', group: '', kind: 'configmaps' });
        return true;
      },
    );
    assert.equal(
      (await core.readNamespacedConfigMap({ name: 'applied', namespace: 'default' })).data?.a,
      'first',
    );

    // kubectl replace with a stale file.
    const stale = json({ ...current, data: { a: 'kubectl-stale' } });
    const replaced = await local.kubectl(['replace', '-f', '-'], { input: stale });
    assert.notEqual(replaced.code, 0);
    assert.match(replaced.stderr, /Conflict|the object has been modified/);

    // A merge patch pinning an old resourceVersion conflicts too.
    const pinned = await raw(local, {
      method: 'PATCH',
      path: '/api/v1/namespaces/default/configmaps/applied',
      contentType: 'application/merge-patch+json',
      body: json({ metadata: { resourceVersion: current.metadata!.resourceVersion }, data: { a: 'x' } }),
    });
    assertStatus(pinned, 409, 'Conflict');

    const exists = await raw(local, {
      method: 'POST',
      path: '/api/v1/namespaces/default/configmaps',
      body: json({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'applied' } }),
    });
    assertStatus(exists, 409, 'AlreadyExists');
    assert.deepEqual(exists.json.details, { name: 'applied', group: '', kind: 'configmaps' });
  });

  test('resourceVersion is one strictly increasing counter across kinds, status writes and restarts', async () => {
    const apps = local.kubeConfig().makeApiClient(AppsV1Api);
    const leases = local.kubeConfig().makeApiClient(CoordinationV1Api);
    const rvs: number[] = [];
    const cm = await core.createNamespacedConfigMap({
      namespace: 'default',
      body: { metadata: { name: 'rv-cm' }, data: { a: '1' } },
    });
    rvs.push(Number(cm.metadata!.resourceVersion));
    const lease = await leases.createNamespacedLease({
      namespace: 'default',
      body: { metadata: { name: 'rv-lease' }, spec: { holderIdentity: 'a' } },
    });
    rvs.push(Number(lease.metadata!.resourceVersion));
    const ds = await apps.createNamespacedDaemonSet({
      namespace: 'default',
      body: {
        metadata: { name: 'rv-ds' },
        spec: {
          selector: { matchLabels: { app: 'x' } },
          template: { metadata: { labels: { app: 'x' } }, spec: { containers: [{ name: 'c', image: 'i' }] } },
        },
      },
    });
    rvs.push(Number(ds.metadata!.resourceVersion));
    assert.equal(ds.metadata!.generation, 1);
    const status = await apps.replaceNamespacedDaemonSetStatus({
      name: 'rv-ds',
      namespace: 'default',
      body: {
        ...ds,
        status: {
          currentNumberScheduled: 1,
          desiredNumberScheduled: 1,
          numberMisscheduled: 0,
          numberReady: 0,
        },
      },
    });
    rvs.push(Number(status.metadata!.resourceVersion));
    assert.equal(status.metadata!.generation, 1, 'a status write never bumps generation');
    const node = await core.readNode({ name: 'node-1' });
    const nodeStatus = await core.replaceNodeStatus({
      name: 'node-1',
      body: { ...node, status: { ...node.status, capacity: { cpu: '2' } } },
    });
    rvs.push(Number(nodeStatus.metadata!.resourceVersion));
    const deleted = await core.deleteNamespacedConfigMap({ name: 'rv-cm', namespace: 'default' });
    assert.ok(deleted);

    for (let i = 1; i < rvs.length; i++) assert.ok(rvs[i]! > rvs[i - 1]!, `strictly increasing: ${rvs}`);
    const before = Number((await core.listNamespace()).metadata!.resourceVersion);
    assert.ok(before > rvs.at(-1)!, 'the delete took a revision too');

    await local.restart();
    const afterList = await core.listNamespace();
    assert.equal(Number(afterList.metadata!.resourceVersion), before, 'restart keeps the revision');
    const again = await leases.readNamespacedLease({ name: 'rv-lease', namespace: 'default' });
    assert.equal(again.metadata!.resourceVersion, lease.metadata!.resourceVersion, 'objects keep their rv');
    const next = await core.createNamespacedConfigMap({
      namespace: 'default',
      body: { metadata: { name: 'rv-after' } },
    });
    assert.ok(Number(next.metadata!.resourceVersion) > before, 'writes after a restart continue the counter');
  });

  test('a no-op update keeps the resourceVersion and generation', async () => {
    const cm = await core.readNamespacedConfigMap({ name: 'rv-after', namespace: 'default' });
    const same = await core.replaceNamespacedConfigMap({ name: 'rv-after', namespace: 'default', body: cm });
    assert.equal(same.metadata!.resourceVersion, cm.metadata!.resourceVersion);
  });

  test("kubectl's generator commands (protobuf bodies) create what they say", async () => {
    await kubectlOk(local, ['create', 'namespace', 'gen']);
    await kubectlOk(local, [
      'create',
      'configmap',
      'gen-cm',
      '-n',
      'gen',
      '--from-literal=a=b',
      '--from-literal=c=d',
    ]);
    await kubectlOk(local, ['create', 'secret', 'generic', 'gen-secret', '-n', 'gen', '--from-literal=k=v']);
    await kubectlOk(local, ['create', 'serviceaccount', 'gen-sa', '-n', 'gen']);
    await kubectlOk(local, [
      'create',
      'poddisruptionbudget',
      'gen-pdb',
      '-n',
      'gen',
      '--selector=app=x',
      '--min-available=1',
    ]);
    const cm = await core.readNamespacedConfigMap({ name: 'gen-cm', namespace: 'gen' });
    assert.deepEqual(cm.data, { a: 'b', c: 'd' });
    const secret = await core.readNamespacedSecret({ name: 'gen-secret', namespace: 'gen' });
    assert.equal(Buffer.from(secret.data!.k!, 'base64').toString(), 'v');
    assert.equal(secret.type, 'Opaque');
    const pdb = (await raw(local, { path: '/apis/policy/v1/namespaces/gen/poddisruptionbudgets/gen-pdb' }))
      .json;
    assert.deepEqual(pdb.spec, { minAvailable: 1, selector: { matchLabels: { app: 'x' } } });
    assert.equal((await core.readNamespace({ name: 'gen' })).status!.phase, 'Active');
  });

  test('dry run validates and answers without writing', async () => {
    const res = await raw(local, {
      method: 'POST',
      path: '/api/v1/namespaces/default/configmaps?dryRun=All',
      body: json({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'dry' } }),
    });
    assert.equal(res.status, 201);
    assert.equal(res.json.metadata.name, 'dry');
    assert.equal((await raw(local, { path: '/api/v1/namespaces/default/configmaps/dry' })).status, 404);
    await kubectlOk(local, ['delete', 'configmap', 'rv-after', '--dry-run=server']);
    assert.equal((await raw(local, { path: '/api/v1/namespaces/default/configmaps/rv-after' })).status, 200);
  });
});
