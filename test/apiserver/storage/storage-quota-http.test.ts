// A server at its storage quota (scaled down to 1 MiB above what a fresh server holds), through real
// HTTPS: writes are refused with 507 and etcd's words (kubectl shows them), a Lease renewal and deletes go
// through, the alarm shows in /metrics, /readyz?verbose and `nodeherd status`, and clears once the deletes
// have freed the space. Nothing written before the alarm is lost.

import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { KubeError } from '../../../src/kube/kube-error.ts';
import { runCli } from '../../cli/support/cli-cluster.ts';
import { adminKubeClient, type LocalApiServer, startLocalApiServer } from '../../support/local-apiserver.ts';

const MIB = 1024 * 1024;
const CONFIGMAPS = '/api/v1/namespaces/default/configmaps';
const LEASE = '/apis/coordination.k8s.io/v1/namespaces/kube-node-lease/leases/n1';

let local: LocalApiServer;

function gauge(metrics: string, name: string): number {
  const line = metrics.split('\n').find((l) => l.startsWith(`${name} `));
  assert.ok(line, `${name} in /metrics`);
  return Number(line.split(' ')[1]);
}

before(async () => {
  // What a fresh server holds (its CRDs, namespaces), then the same data dir with a quota just above it.
  const fresh = await startLocalApiServer();
  const client = adminKubeClient(fresh);
  let used: number;
  try {
    used = gauge(await client.getText('/metrics'), 'etcd_mvcc_db_total_size_in_use_in_bytes');
  } catch (error) {
    await fresh.stop();
    throw error;
  } finally {
    client.close();
  }
  await fresh.server.stop();
  local = await startLocalApiServer({ dataDir: fresh.dataDir, storageQuotaBytes: used + MIB });
});

after(async () => {
  await local?.stop();
});

test('at the quota writes are refused with 507, Lease renewals and deletes go on, and the alarm clears', async () => {
  const client = adminKubeClient(local);
  try {
    let lease = await client.create<Record<string, any>>(
      '/apis/coordination.k8s.io/v1/namespaces/kube-node-lease/leases',
      { metadata: { name: 'n1' }, spec: { holderIdentity: 'n1', renewTime: '2026-01-01T00:00:00.000000Z' } },
    );
    const written: string[] = [];
    let refusal: unknown;
    for (let i = 0; i < 40 && refusal === undefined; i++) {
      try {
        await client.create(CONFIGMAPS, {
          metadata: { name: `fill-${i}` },
          data: { blob: 'x'.repeat(200_000) },
        });
        written.push(`fill-${i}`);
      } catch (error) {
        refusal = error;
      }
    }
    assert.ok(refusal instanceof KubeError, String(refusal));
    assert.equal(refusal.status, 507);
    assert.equal(refusal.reason, 'InsufficientStorage');
    assert.match(refusal.message, /etcdserver: mvcc: database space exceeded/);
    assert.ok(written.length >= 3, `${written.length} written before the quota`);

    // The alarm shows: metrics, the verbose readiness answer (the server stays ready), nodeherd status.
    const metrics = await client.getText('/metrics');
    assert.equal(gauge(metrics, 'nodeherd_apiserver_storage_quota_exceeded'), 1);
    const readyz = await client.getText('/readyz?verbose');
    assert.match(readyz, /^\[-\]etcd-storage-quota alarm: database space exceeded/m);
    assert.match(readyz, /readyz check passed/);
    const status = await runCli(['status', '--kubeconfig', local.kubeconfigPath]);
    assert.equal(status.code, 0, status.stderr);
    assert.match(status.stdout, /the API server's storage is at its quota: alarm: database space exceeded/);

    // kubectl sees etcd's words too; nothing was created.
    const refused = await local.kubectl(['create', 'configmap', 'more', '--from-literal=a=b']);
    assert.notEqual(refused.code, 0);
    assert.match(refused.stderr, /database space exceeded/);
    await assert.rejects(
      client.get(`${CONFIGMAPS}/more`),
      (e: unknown) => e instanceof KubeError && e.status === 404,
    );

    // A controller whose write the store refuses (the ServiceAccount controller re-creating `default`)
    // does not take the server down.
    await client.delete('/api/v1/namespaces/default/serviceaccounts/default');
    await new Promise((resolve) => setTimeout(resolve, 200));
    assert.match(await client.getText('/readyz?verbose'), /readyz check passed/);

    // A Lease renewal goes through.
    lease = await client.update<Record<string, any>>(LEASE, {
      ...lease,
      spec: { ...lease.spec, renewTime: '2026-01-01T00:00:10.000000Z' },
    });
    assert.equal(lease.spec.renewTime, '2026-01-01T00:00:10.000000Z');

    // Deletes go through, and once compacted (right after) the alarm clears.
    for (const name of written.slice(0, 3)) await client.delete(`${CONFIGMAPS}/${name}`);
    let cleared = false;
    for (let attempt = 0; attempt < 50 && !cleared; attempt++) {
      cleared = gauge(await client.getText('/metrics'), 'nodeherd_apiserver_storage_quota_exceeded') === 0;
      if (!cleared) await new Promise((resolve) => setTimeout(resolve, 100));
    }
    assert.ok(cleared, 'the alarm cleared after the deletes');
    assert.match(await client.getText('/readyz?verbose'), /^\[\+\]etcd-storage-quota ok$/m);
    await client.create(CONFIGMAPS, { metadata: { name: 'after' }, data: { a: 'b' } });
    const after = await runCli(['status', '--kubeconfig', local.kubeconfigPath]);
    assert.doesNotMatch(after.stdout, /storage is at its quota/);

    // Every write acknowledged before the alarm is there.
    for (const name of written.slice(3)) {
      const cm = await client.get<Record<string, any>>(`${CONFIGMAPS}/${name}`);
      assert.equal(cm.data.blob.length, 200_000);
    }
  } finally {
    client.close();
  }
});

test('/metrics is for those allowed it: the admin reads it, a node agent gets 403', async () => {
  const agentKubeconfig = join(local.dataDir, 'agent-n1.kubeconfig');
  await local.server.issueCredential('node', 'n1', agentKubeconfig);
  const agent = await local.kubectl(['get', '--raw', '/metrics'], { kubeconfig: agentKubeconfig });
  assert.notEqual(agent.code, 0);
  assert.match(agent.stderr, /forbidden/i);
  const admin = await local.kubectl(['get', '--raw', '/metrics']);
  assert.equal(admin.code, 0, admin.stderr);
  assert.match(admin.stdout, /^etcd_server_quota_backend_bytes \d+$/m);
});
