// Conformance: get and list with label and field selectors, across namespaces, and paging with
// limit/continue — through kubectl, @kubernetes/client-node and raw requests.

import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { CoreV1Api } from '@kubernetes/client-node';
import { type LocalApiServer, startLocalApiServer } from '../../support/local-apiserver.ts';
import { assertStatus, json, kubectlApply, kubectlOk, raw } from './support.ts';

const names = (list: { items: { metadata?: { name?: string } }[] }): string[] =>
  list.items.map((i) => i.metadata!.name!).sort();

describe('lists and selectors', () => {
  let local: LocalApiServer;
  let core: CoreV1Api;

  before(async () => {
    // Small retention so a continue token can outlive its revision.
    local = await startLocalApiServer({ retainRevisions: 5 });
    core = local.kubeConfig().makeApiClient(CoreV1Api);
    const items: unknown[] = [{ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'other' } }];
    const labels = [
      { app: 'web', tier: 'front' },
      { app: 'web', tier: 'back' },
      { app: 'db', tier: 'back' },
      { app: 'db' },
      {},
    ];
    labels.forEach((l, i) => {
      items.push({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: `cm-${i}`, labels: l }, data: {} });
    });
    items.push({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'cm-other', namespace: 'other', labels: { app: 'web' } },
    });
    for (const [pod, node, phase] of [
      ['p1', 'node-a', 'Running'],
      ['p2', 'node-a', 'Pending'],
      ['p3', 'node-b', 'Running'],
    ] as const) {
      items.push({
        apiVersion: 'v1',
        kind: 'Pod',
        metadata: { name: pod, namespace: 'default' },
        spec: { nodeName: node, containers: [{ name: 'c', image: 'busybox' }] },
        status: { phase },
      });
    }
    await kubectlApply(local, items);
  });
  after(() => local.stop());

  test('label selectors: equality, inequality, set-based, existence', async () => {
    const cases: [string, string[]][] = [
      ['app=web', ['cm-0', 'cm-1']],
      ['app==db', ['cm-2', 'cm-3']],
      ['app!=web', ['cm-2', 'cm-3', 'cm-4']],
      ['tier in (front,back)', ['cm-0', 'cm-1', 'cm-2']],
      ['tier notin (back)', ['cm-0', 'cm-3', 'cm-4']],
      ['tier', ['cm-0', 'cm-1', 'cm-2']],
      ['!tier', ['cm-3', 'cm-4']],
      ['app=web,tier=back', ['cm-1']],
    ];
    for (const [selector, expected] of cases) {
      const list = await core.listNamespacedConfigMap({ namespace: 'default', labelSelector: selector });
      assert.deepEqual(names(list), expected, `client-node -l '${selector}'`);
      const out = await kubectlOk(local, ['get', 'configmaps', '-l', selector, '-o', 'name']);
      assert.deepEqual(
        out.trim().split('\n').filter(Boolean).sort(),
        expected.map((n) => `configmap/${n}`),
        `kubectl -l '${selector}'`,
      );
    }
  });

  test('across namespaces, and a list carries kind, apiVersion and a numeric resourceVersion', async () => {
    const all = await core.listConfigMapForAllNamespaces({ labelSelector: 'app=web' });
    assert.deepEqual(all.items.map((i) => `${i.metadata!.namespace}/${i.metadata!.name}`).sort(), [
      'default/cm-0',
      'default/cm-1',
      'other/cm-other',
    ]);
    const res = await raw(local, { path: '/api/v1/configmaps?labelSelector=app%3Dweb' });
    assert.equal(res.json.kind, 'ConfigMapList');
    assert.equal(res.json.apiVersion, 'v1');
    assert.match(res.json.metadata.resourceVersion, /^\d+$/);
    const out = await kubectlOk(local, ['get', 'configmaps', '-A', '-l', 'app=web', '-o', 'name']);
    assert.equal(out.trim().split('\n').length, 3);
  });

  test('field selectors: metadata.name, metadata.namespace, spec.nodeName, status.phase', async () => {
    assert.deepEqual(
      names(
        await core.listNamespacedConfigMap({ namespace: 'default', fieldSelector: 'metadata.name=cm-2' }),
      ),
      ['cm-2'],
    );
    assert.deepEqual(
      names(await core.listConfigMapForAllNamespaces({ fieldSelector: 'metadata.namespace=other' })),
      ['cm-other'],
    );
    assert.deepEqual(
      names(await core.listNamespacedPod({ namespace: 'default', fieldSelector: 'spec.nodeName=node-a' })),
      ['p1', 'p2'],
    );
    assert.deepEqual(
      names(
        await core.listNamespacedPod({
          namespace: 'default',
          fieldSelector: 'spec.nodeName=node-a,status.phase!=Pending',
        }),
      ),
      ['p1'],
    );
    const out = await kubectlOk(local, [
      'get',
      'pods',
      '-A',
      '--field-selector',
      'spec.nodeName=node-b',
      '-o',
      'name',
    ]);
    assert.equal(out.trim(), 'pod/p3');
    // Mixed with labels.
    assert.deepEqual(
      names(
        await core.listNamespacedConfigMap({
          namespace: 'default',
          labelSelector: 'app=web',
          fieldSelector: 'metadata.name!=cm-0',
        }),
      ),
      ['cm-1'],
    );
  });

  test('an unsupported field or a malformed selector is 400', async () => {
    const field = await raw(local, {
      path: '/api/v1/namespaces/default/configmaps?fieldSelector=spec.foo%3Dx',
    });
    assertStatus(field, 400, 'BadRequest');
    const label = await raw(local, {
      path: '/api/v1/namespaces/default/configmaps?labelSelector=a%20in%20b',
    });
    assertStatus(label, 400, 'BadRequest');
    const result = await local.kubectl(['get', 'configmaps', '--field-selector', 'data.x=y']);
    assert.notEqual(result.code, 0);
    assert.match(result.stderr, /field label not supported|not a known field selector|BadRequest/i);
  });

  test('limit and continue page through a consistent snapshot', async () => {
    const first = await core.listNamespacedConfigMap({ namespace: 'default', limit: 2 });
    assert.deepEqual(names(first), ['cm-0', 'cm-1']);
    assert.ok(first.metadata?._continue, 'a continue token');
    const snapshot = first.metadata!.resourceVersion;
    // A write between pages is not seen by the rest of the paged list.
    await kubectlOk(
      local,
      ['apply', '-f', '-'],
      json({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'cm-00' }, data: {} }),
    );
    const second = await core.listNamespacedConfigMap({
      namespace: 'default',
      limit: 2,
      _continue: first.metadata!._continue!,
    });
    assert.deepEqual(names(second), ['cm-2', 'cm-3']);
    assert.equal(second.metadata!.resourceVersion, snapshot);
    const third = await core.listNamespacedConfigMap({
      namespace: 'default',
      limit: 2,
      _continue: second.metadata!._continue!,
    });
    assert.deepEqual(names(third), ['cm-4'], 'cm-00, written after the snapshot, is not in it');
    assert.equal(third.metadata?._continue, undefined, 'last page has no continue token');
    // With a selector, pages fill up with matching items only.
    const selected = await core.listNamespacedConfigMap({
      namespace: 'default',
      limit: 1,
      labelSelector: 'app=db',
    });
    assert.deepEqual(names(selected), ['cm-2']);
    const rest = await core.listNamespacedConfigMap({
      namespace: 'default',
      limit: 1,
      labelSelector: 'app=db',
      _continue: selected.metadata!._continue!,
    });
    assert.deepEqual(names(rest), ['cm-3']);
    // kubectl pages with --chunk-size and shows everything.
    const chunked = await local.kubectl(['get', 'configmaps', '--chunk-size=2', '-o', 'name', '-v=6']);
    assert.equal(chunked.code, 0, chunked.stderr);
    assert.equal(chunked.stdout.trim().split('\n').length, 6);
    const pages = chunked.stderr.split('\n').filter((l) => /GET https:\S+\/configmaps\?\S*limit=2/.test(l));
    assert.equal(pages.length, 3, chunked.stderr);
    assert.equal(pages.filter((l) => l.includes('continue=')).length, 2);
  });

  test('a continue token older than compaction is 410 Expired', async () => {
    const first = await core.listNamespacedConfigMap({ namespace: 'default', limit: 1 });
    for (let i = 0; i < 10; i++) {
      await raw(local, {
        method: 'PATCH',
        path: '/api/v1/namespaces/default/configmaps/cm-4',
        contentType: 'application/merge-patch+json',
        body: json({ data: { n: String(i) } }),
      });
    }
    local.server.store.compact();
    const res = await raw(local, {
      path: `/api/v1/namespaces/default/configmaps?limit=1&continue=${encodeURIComponent(first.metadata!._continue!)}`,
    });
    assertStatus(res, 410, 'Expired');
    const malformed = await raw(local, {
      path: '/api/v1/namespaces/default/configmaps?limit=1&continue=garbage',
    });
    assertStatus(malformed, 400, 'BadRequest');
  });
});
