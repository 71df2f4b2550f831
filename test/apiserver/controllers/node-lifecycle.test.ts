import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { CoordinationV1Api, CoreV1Api, type V1Node } from '@kubernetes/client-node';
import { kubeMicroTime } from '../../../src/sim/node-object.ts';
import { type LocalApiServer, startLocalApiServer } from '../../support/local-apiserver.ts';

let local: LocalApiServer;
let core: CoreV1Api;
let coordination: CoordinationV1Api;

before(async () => {
  local = await startLocalApiServer({ nodeMonitorGracePeriodMs: 800 });
  const kc = local.kubeConfig();
  core = kc.makeApiClient(CoreV1Api);
  coordination = kc.makeApiClient(CoordinationV1Api);
});
after(() => local.stop());

async function until<T>(what: string, probe: () => Promise<T | undefined>, timeoutMs = 10_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(100);
  }
}

const ready = (node: V1Node) => node.status?.conditions?.find((c) => c.type === 'Ready')?.status;
const unreachable = (node: V1Node) =>
  (node.spec?.taints ?? []).some((t) => t.key === 'node.kubernetes.io/unreachable');

test('a node whose lease stops is marked Ready=Unknown and tainted; reporting Ready again clears the taint', async () => {
  const now = new Date().toISOString();
  await core.createNode({
    body: {
      metadata: { name: 'quiet' },
      status: { conditions: [{ type: 'Ready', status: 'True', lastHeartbeatTime: now as never }] },
    },
  });
  await coordination.createNamespacedLease({
    namespace: 'kube-node-lease',
    body: {
      metadata: { name: 'quiet' },
      spec: {
        holderIdentity: 'quiet',
        leaseDurationSeconds: 1,
        renewTime: kubeMicroTime(Date.now()) as never,
      },
    },
  });
  // A node that keeps renewing stays Ready meanwhile.
  await core.createNode({
    body: { metadata: { name: 'chatty' }, status: { conditions: [{ type: 'Ready', status: 'True' }] } },
  });
  await coordination.createNamespacedLease({
    namespace: 'kube-node-lease',
    body: {
      metadata: { name: 'chatty' },
      spec: { holderIdentity: 'chatty', renewTime: kubeMicroTime(Date.now()) as never },
    },
  });
  // Renew like kubelet: read the Lease, write it back with a new renewTime.
  const renew = setInterval(async () => {
    try {
      const lease = await coordination.readNamespacedLease({ namespace: 'kube-node-lease', name: 'chatty' });
      lease.spec = { ...lease.spec, renewTime: kubeMicroTime(Date.now()) as never };
      await coordination.replaceNamespacedLease({
        namespace: 'kube-node-lease',
        name: 'chatty',
        body: lease,
      });
    } catch {
      // a conflict with the previous tick: the next one renews
    }
  }, 200);
  try {
    const gone = await until('quiet to turn Unknown', async () => {
      const node = await core.readNode({ name: 'quiet' });
      return ready(node) === 'Unknown' && unreachable(node) ? node : undefined;
    });
    assert.equal(gone.status?.conditions?.find((c) => c.type === 'Ready')?.reason, 'NodeStatusUnknown');
    const chatty = await core.readNode({ name: 'chatty' });
    assert.equal(ready(chatty), 'True');
    assert.equal(unreachable(chatty), false);
  } finally {
    clearInterval(renew);
  }

  const node = await core.readNodeStatus({ name: 'quiet' });
  await core.replaceNodeStatus({
    name: 'quiet',
    body: {
      ...node,
      status: {
        conditions: [{ type: 'Ready', status: 'True', lastHeartbeatTime: new Date().toISOString() as never }],
      },
    },
  });
  await until('the taint to go', async () => {
    const fresh = await core.readNode({ name: 'quiet' });
    return unreachable(fresh) ? undefined : fresh;
  });
});

test('a node whose clock runs an hour behind stays Ready while it renews: the grace runs on the server’s clock', async () => {
  const skewMs = 3_600_000;
  const behind = () => kubeMicroTime(Date.now() - skewMs) as never;
  await core.createNode({
    body: {
      metadata: { name: 'behind' },
      status: { conditions: [{ type: 'Ready', status: 'True', lastHeartbeatTime: behind() }] },
    },
  });
  await coordination.createNamespacedLease({
    namespace: 'kube-node-lease',
    body: { metadata: { name: 'behind' }, spec: { holderIdentity: 'behind', renewTime: behind() } },
  });
  let renewals = 0;
  const renew = setInterval(async () => {
    try {
      const lease = await coordination.readNamespacedLease({ namespace: 'kube-node-lease', name: 'behind' });
      lease.spec = { ...lease.spec, renewTime: behind() };
      await coordination.replaceNamespacedLease({
        namespace: 'kube-node-lease',
        name: 'behind',
        body: lease,
      });
      renewals++;
    } catch {
      // a conflict with the previous tick: the next one renews
    }
  }, 200);
  try {
    // Four grace periods (800 ms each) with renewTimes an hour old.
    await sleep(3_200);
    assert.ok(renewals >= 5, `the lease was renewed (${renewals} times)`);
    const node = await core.readNode({ name: 'behind' });
    assert.equal(ready(node), 'True');
    assert.equal(unreachable(node), false);
  } finally {
    clearInterval(renew);
  }
  // Once it stops renewing it turns Unknown like any other node.
  const gone = await until('behind to turn Unknown', async () => {
    const node = await core.readNode({ name: 'behind' });
    return ready(node) === 'Unknown' ? node : undefined;
  });
  assert.equal(gone.status?.conditions?.find((c) => c.type === 'Ready')?.reason, 'NodeStatusUnknown');
});
