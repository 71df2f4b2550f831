import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { LightKubeClient } from '../../src/kube/light/light-kube-client.ts';
import type { KubeObject } from '../../src/kube/light/types.ts';
import { KubeletSystemd } from '../../src/sim/kubelet-systemd.ts';
import { SimulatedKubelet } from '../../src/sim/simulated-kubelet.ts';
import { eventually } from '../support/eventually.ts';
import { readyStatus, type SimCluster, startSimCluster } from './sim-support.ts';

const RENEW_MS = 200;

describe('simulated kubelet against the embedded API server', () => {
  let cluster: SimCluster;
  const clients: LightKubeClient[] = [];
  const kubelets: SimulatedKubelet[] = [];

  before(async () => {
    cluster = await startSimCluster();
  });
  after(async () => {
    for (const kubelet of kubelets) kubelet.stop();
    for (const client of clients) client.close();
    await cluster.stop();
  });

  async function kubelet(
    name: string,
    extra: Partial<ConstructorParameters<typeof SimulatedKubelet>[0]> = {},
  ) {
    const client = await cluster.kubeletClients(name);
    clients.push(client);
    const created = new SimulatedKubelet({
      node: { name, zone: 'zone-b', roles: ['worker'], labels: { 'nodeherd.io/pool': 'workers' } },
      client,
      leaseDurationSeconds: 2,
      renewIntervalMs: RENEW_MS,
      startupNotReadyMs: 300,
      ...extra,
    });
    kubelets.push(created);
    return created;
  }

  test('registers a Ready Node with kubelet-like labels, nodeInfo and capacity, and an owned Lease', async () => {
    const k = await kubelet('reg-1');
    await k.start();
    const node = (await cluster.getNode('reg-1'))!;
    const labels = node.metadata!.labels!;
    assert.equal(labels['kubernetes.io/hostname'], 'reg-1');
    assert.equal(labels['topology.kubernetes.io/zone'], 'zone-b');
    assert.equal(labels['node-role.kubernetes.io/worker'], '');
    assert.equal(labels['nodeherd.io/pool'], 'workers');
    assert.equal(readyStatus(node), 'True');
    const status = node.status as {
      nodeInfo: Record<string, string>;
      capacity: Record<string, string>;
      allocatable: Record<string, string>;
      conditions: KubeObject[];
    };
    assert.match(status.nodeInfo.kubeletVersion!, /^v1\.\d+\.\d+$/);
    assert.equal(status.capacity.pods, '110');
    assert.ok(status.allocatable.cpu);
    const ready = status.conditions.find((c) => c.type === 'Ready')!;
    assert.equal(ready.reason, 'KubeletReady');
    assert.ok(Date.parse(ready.lastHeartbeatTime as string) > 0);

    const lease = (await cluster.getLease('reg-1'))!;
    const spec = lease.spec as { holderIdentity: string; renewTime: string; leaseDurationSeconds: number };
    assert.equal(spec.holderIdentity, 'reg-1');
    assert.equal(spec.leaseDurationSeconds, 2);
    assert.match(spec.renewTime, /\.\d{6}Z$/);
    const owner = lease.metadata!.ownerReferences![0]!;
    assert.equal(owner.kind, 'Node');
    assert.equal(owner.uid, node.metadata!.uid);
  });

  test('keeps itself alive through the Lease only: the Node is not rewritten while nothing changes', async () => {
    const k = await kubelet('hb-1');
    await k.start();
    const before = (await cluster.getNode('hb-1'))!;
    const firstRenew = ((await cluster.getLease('hb-1'))!.spec as { renewTime: string }).renewTime;
    // Several grace periods' worth of heartbeats.
    await new Promise((resolve) => setTimeout(resolve, 2_500));
    const lease = (await cluster.getLease('hb-1'))!;
    const renewTime = (lease.spec as { renewTime: string }).renewTime;
    assert.ok(Date.parse(renewTime) > Date.parse(firstRenew), 'lease renewed');
    const after = (await cluster.getNode('hb-1'))!;
    assert.equal(after.metadata!.resourceVersion, before.metadata!.resourceVersion, 'Node untouched');
    assert.equal(readyStatus(after), 'True', 'still Ready past the grace period');
    const counters = k.snapshot().counters;
    assert.ok(counters.leaseRenewals >= 8, `renewals: ${counters.leaseRenewals}`);
    assert.equal(counters.statusPosts, 0);
  });

  test('a stopped kubelet goes Unknown through the lifecycle controller; a restarted one is Ready again', async () => {
    const k = await kubelet('stop-1');
    await k.start();
    const uid = (await cluster.getNode('stop-1'))!.metadata!.uid;
    k.stop();
    const unknown = await eventually('Ready=Unknown', async () => {
      const node = await cluster.getNode('stop-1');
      return readyStatus(node) === 'Unknown' && node;
    });
    const taints = ((unknown.spec as { taints?: KubeObject[] }).taints ?? []).map((t) => t.key);
    assert.ok(taints.includes('node.kubernetes.io/unreachable'));

    await k.start();
    const back = await eventually('Ready=True without the unreachable taint', async () => {
      const node = await cluster.getNode('stop-1');
      const tainted = ((node?.spec as { taints?: KubeObject[] })?.taints ?? []).length > 0;
      return readyStatus(node) === 'True' && !tainted && node;
    });
    assert.equal(back.metadata!.uid, uid, 'the same Node was adopted, not recreated');
  });

  test('a kubelet restart through systemd flips Ready False, then True again', async () => {
    const k = await kubelet('restart-1');
    await k.start();
    const systemd = new KubeletSystemd({
      kubelet: k,
      targetDurations: { 'kubelet.service': { restart: 50 } },
    });
    const seen: string[] = [];
    const rv = (await cluster.getNode('restart-1'))!.metadata!.resourceVersion;
    const watch = cluster.admin.watch(
      '/api/v1/nodes',
      { fieldSelector: 'metadata.name=restart-1', resourceVersion: rv },
      { onEvent: (event) => seen.push(readyStatus(event.object)!) },
    );
    try {
      const restart = systemd.restart('kubelet.service');
      assert.equal(k.process, 'restarting');
      await restart;
      // The NotReady status reached the server before restart() returned.
      const during = (await cluster.getNode('restart-1'))!;
      const condition = (during.status as { conditions: KubeObject[] }).conditions.find(
        (c) => c.type === 'Ready',
      )!;
      assert.equal(condition.status, 'False');
      assert.equal(condition.reason, 'KubeletNotReady');
      await eventually('Ready=True after the startup window', () => seen.at(-1) === 'True');
    } finally {
      watch.abort();
    }
    assert.deepEqual(seen, ['False', 'True']);
    assert.equal(systemd.restarts('kubelet.service'), 1);
    assert.equal(k.snapshot().counters.statusPosts, 2);
  });

  test('failed status posts and Lease renewals are tried again at once, not a heartbeat later', async () => {
    const client = await cluster.kubeletClients('retry-1');
    clients.push(client);
    // The restart's first two status posts and Lease renewals fail, as under an overloaded server; the
    // rest go through.
    let failing = { patch: 0, update: 0 };
    const flaky = new Proxy(client, {
      get(target, key, receiver) {
        if (key !== 'patch' && key !== 'update') return Reflect.get(target, key, receiver);
        return (path: string, ...rest: unknown[]) => {
          if (failing[key] > 0 && (key === 'update' || path.endsWith('/status'))) {
            failing[key]--;
            return Promise.reject(new Error('simulated: connection reset'));
          }
          return (target[key] as (...args: unknown[]) => Promise<unknown>).call(target, path, ...rest);
        };
      },
    });
    const k = new SimulatedKubelet({
      node: { name: 'retry-1', zone: 'zone-b', roles: ['worker'], labels: {} },
      client: flaky,
      leaseDurationSeconds: 2,
      // Far longer than the test: a retry left to the next heartbeat would never come within it.
      renewIntervalMs: 60_000,
      startupNotReadyMs: 60_000,
      onError: () => {},
    });
    kubelets.push(k);
    await k.start();
    const renewals = k.snapshot().counters.leaseRenewals;
    failing = { patch: 2, update: 2 };
    k.restarting();
    await k.started();
    assert.equal(failing.patch, 0);
    const node = (await cluster.getNode('retry-1'))!;
    assert.equal(readyStatus(node), 'False');
    assert.equal(k.snapshot().postedReady, false);
    // The renewal started with the restart: renewed on its third try, no heartbeat having come.
    await eventually('the Lease renewed', () => k.snapshot().counters.leaseRenewals === renewals + 1);
    assert.equal(failing.update, 0);
    assert.equal(k.snapshot().counters.failures, 4);
  });

  test('a kubelet that dies in startup leaves its unit failed and the Node goes Unknown', async () => {
    const k = await kubelet('fail-1');
    await k.start();
    let broken = true;
    const systemd = new KubeletSystemd({
      kubelet: k,
      kubeletStartFails: ({ definition }) =>
        broken && (definition ?? '').includes('--bad-flag') && 'unknown flag: --bad-flag',
    });
    await systemd.writeDropIn('kubelet.service', '10-flags.conf', '[Service]\nEnvironment=ARGS=--bad-flag\n');
    await systemd.daemonReload();
    await systemd.restart('kubelet.service');
    assert.equal(await systemd.isFailed('kubelet.service'), true);
    assert.equal(systemd.lastFailure, 'unknown flag: --bad-flag');
    assert.equal(k.process, 'failed');
    await eventually('Ready=Unknown', async () => readyStatus(await cluster.getNode('fail-1')) === 'Unknown');

    broken = false;
    await systemd.start('kubelet.service');
    assert.equal(k.process, 'running');
    await eventually('Ready=True', async () => readyStatus(await cluster.getNode('fail-1')) === 'True');
  });

  test('a partition makes the node Unknown; healing brings it back at once', async () => {
    const k = await kubelet('part-1');
    await k.start();
    k.partition(Number.POSITIVE_INFINITY);
    await eventually('Ready=Unknown', async () => readyStatus(await cluster.getNode('part-1')) === 'Unknown');
    k.heal();
    await eventually(
      'Ready=True',
      async () => readyStatus(await cluster.getNode('part-1')) === 'True',
      2_000,
    );
  });

  test('a flap reports Ready=False for its duration while the Lease keeps being renewed', async () => {
    const k = await kubelet('flap-1');
    await k.start();
    k.setNotReady('flap', { reason: 'KubeletNotReady', message: 'container runtime is down' }, 600);
    const flapped = await eventually('Ready=False', async () => {
      const node = await cluster.getNode('flap-1');
      return readyStatus(node) === 'False' && node;
    });
    const ready = (flapped.status as { conditions: KubeObject[] }).conditions.find(
      (c) => c.type === 'Ready',
    )!;
    assert.equal(ready.message, 'container runtime is down');
    await eventually('Ready=True', async () => readyStatus(await cluster.getNode('flap-1')) === 'True');
  });

  test('a kubelet identity cannot register under another name', async () => {
    const client = await cluster.kubeletClients('ident-1');
    clients.push(client);
    const errors: Error[] = [];
    const failing = new SimulatedKubelet({
      node: { name: 'ident-2' },
      client,
      renewIntervalMs: RENEW_MS,
      onError: (error) => errors.push(error),
    });
    kubelets.push(failing);
    void failing.start();
    await eventually('a refused registration', () => errors.length > 0);
    failing.stop();
    assert.equal((errors[0] as { status?: number }).status, 403);
    assert.equal(await cluster.getNode('ident-2'), undefined);
  });
});
