// The JSON client over the official KubeConfig, against the embedded API server with a least-privilege
// identity: verbs, patch types, Status errors, watches.

import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { KubeClient } from '../../src/kube/kube-client.ts';
import { loadKubeConfig } from '../../src/kube/kube-config.ts';
import { isKubeError, type KubeError } from '../../src/kube/kube-error.ts';
import type { KubeObject, WatchEventType } from '../../src/kube/types.ts';
import { adminKubeClient, type LocalApiServer, startLocalApiServer } from '../support/local-apiserver.ts';

describe('kube client', () => {
  let local: LocalApiServer;
  let admin: KubeClient;
  let controller: KubeClient;

  before(async () => {
    local = await startLocalApiServer({ retainRevisions: 5, compactIntervalMs: 50 });
    admin = adminKubeClient(local);
    const path = join(local.dataDir, 'controller.kubeconfig');
    await local.server.issueCredential('controller', undefined, path);
    controller = new KubeClient(loadKubeConfig({ kubeconfig: path }));
  });
  after(async () => {
    admin?.close();
    controller?.close();
    await local?.stop();
  });

  test('create, get, merge and strategic patches, delete; errors carry the Status reason', async () => {
    await admin.create('/api/v1/nodes', {
      metadata: { name: 'k1', labels: { a: '1' } },
      status: { conditions: [{ type: 'Ready', status: 'True' }] },
    });
    const patched = await controller.patch<KubeObject>('/api/v1/nodes/k1', {
      metadata: { annotations: { x: 'y' } },
    });
    assert.equal(patched.metadata.annotations?.x, 'y');
    // Strategic merge keeps the other conditions (merged by type).
    await controller.patch(
      '/api/v1/nodes/k1/status',
      { status: { conditions: [{ type: 'Extra', status: 'False' }] } },
      'strategic',
    );
    const node = await controller.get<{ status: { conditions: { type: string }[] } }>('/api/v1/nodes/k1');
    assert.deepEqual(node.status.conditions.map((c) => c.type).sort(), ['Extra', 'Ready']);
    await assert.rejects(
      controller.get('/api/v1/nodes/missing'),
      (err: unknown) => isKubeError(err, 404) && (err as KubeError).reason === 'NotFound',
    );
    await assert.rejects(controller.delete('/api/v1/nodes/k1'), (err: unknown) => isKubeError(err, 403));
    await admin.delete('/api/v1/nodes/k1');
  });

  test('a watch delivers events from a resourceVersion, bookmarks included on request, until aborted', async () => {
    const list = await admin.list('/api/v1/namespaces/default/configmaps');
    const seen: WatchEventType[] = [];
    const handle = await admin.watch(
      '/api/v1/namespaces/default/configmaps',
      { resourceVersion: list.metadata.resourceVersion, allowWatchBookmarks: true },
      {
        onEvent: (event) => seen.push(event.type),
      },
    );
    await admin.create('/api/v1/namespaces/default/configmaps', { metadata: { name: 'w1' } });
    await admin.delete('/api/v1/namespaces/default/configmaps/w1');
    const deadline = performance.now() + 5_000;
    while (!seen.includes('DELETED') && performance.now() < deadline)
      await new Promise((r) => setTimeout(r, 10));
    handle.abort();
    const end = await handle.done;
    assert.equal(end.reason, 'aborted');
    assert.deepEqual(
      seen.filter((t) => t !== 'BOOKMARK'),
      ['ADDED', 'DELETED'],
    );
  });

  test('a watch from a resourceVersion the server no longer has ends as expired', async () => {
    const first = await admin.create<{ metadata: { resourceVersion: string } }>(
      '/api/v1/namespaces/default/configmaps',
      { metadata: { name: 'old' } },
    );
    for (let i = 0; i < 12; i++) {
      await admin.create('/api/v1/namespaces/default/configmaps', { metadata: { name: `new-${i}` } });
    }
    await new Promise((r) => setTimeout(r, 300));
    const handle = await admin.watch(
      '/api/v1/namespaces/default/configmaps',
      { resourceVersion: first.metadata.resourceVersion },
      { onEvent: () => undefined },
      { inactivityTimeoutMs: 5_000 },
    );
    const end = await handle.done;
    assert.equal(end.reason, 'expired');
  });
});
