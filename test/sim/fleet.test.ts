import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { KubeObject } from '../../src/kube/light/types.ts';
import { Fleet, type FleetOptions } from '../../src/sim/fleet.ts';
import { eventually } from '../support/eventually.ts';
import { GRACE_MS, readyStatus, type SimCluster, startSimCluster } from './sim-support.ts';

const FLEET_SIZE = 200;
// The 200-node fleet shares the CPU with the API server in this process: kubelet's ratio of renew
// interval to grace period (10 s to 40 s) with a grace that tolerates a loaded test machine.
// Renewals come every grace/4; at 4 s a machine at load 20 let four nodes go Unknown.
const FLEET_GRACE_MS = 6_000;

function fleetOptions(cluster: SimCluster, graceMs: number): FleetOptions {
  return {
    clientFor: cluster.nodeClients,
    kubeletClientFor: cluster.kubeletClients,
    adminClient: cluster.admin,
    leaseDurationSeconds: graceMs / 1000,
    renewIntervalMs: graceMs / 4,
    startupNotReadyMs: 300,
    rebootDownMs: 200,
    template: { zones: ['eu-1a', 'eu-1b'], labels: { 'nodeherd.io/pool': 'workers' } },
  };
}

async function serverNodes(cluster: SimCluster): Promise<KubeObject[]> {
  return (await cluster.admin.list('/api/v1/nodes', { labelSelector: 'nodeherd.io/simulated=true' })).items;
}

describe(`a fleet of ${FLEET_SIZE} simulated nodes`, () => {
  let cluster: SimCluster;
  let fleet: Fleet;

  before(async () => {
    cluster = await startSimCluster(FLEET_GRACE_MS);
    fleet = new Fleet(fleetOptions(cluster, FLEET_GRACE_MS));
  });
  after(async () => {
    await fleet.close();
    await cluster.stop();
  });

  test('starts, and stays Ready on Lease renewals alone across several grace periods', async () => {
    const started = performance.now();
    const nodes = await fleet.add(FLEET_SIZE);
    const startupMs = performance.now() - started;
    assert.equal(nodes.length, FLEET_SIZE);
    assert.equal(fleet.size, FLEET_SIZE);

    // On a busy machine a node may be marked Unknown during the startup burst; it re-posts Ready.
    const listed = await eventually('all Ready on the server', async () => {
      const items = await serverNodes(cluster);
      return items.length === FLEET_SIZE && items.every((node) => readyStatus(node) === 'True') && items;
    });
    const zones = new Map<string, number>();
    for (const node of listed) {
      const zone = node.metadata!.labels!['topology.kubernetes.io/zone']!;
      zones.set(zone, (zones.get(zone) ?? 0) + 1);
      assert.equal(node.metadata!.labels!['nodeherd.io/pool'], 'workers');
    }
    assert.deepEqual(Object.fromEntries(zones), { 'eu-1a': FLEET_SIZE / 2, 'eu-1b': FLEET_SIZE / 2 });

    // Past three grace periods no node may have been marked Unknown, and no Node was rewritten.
    const versions = new Map(listed.map((node) => [node.metadata!.name!, node.metadata!.resourceVersion]));
    const renewalsBefore = fleet.states().reduce((sum, state) => sum + state.counters.leaseRenewals, 0);
    await new Promise((resolve) => setTimeout(resolve, 3 * FLEET_GRACE_MS));
    const later = await serverNodes(cluster);
    const notReady = later.filter((node) => readyStatus(node) !== 'True').map((node) => node.metadata!.name);
    assert.deepEqual(notReady, []);
    const rewritten = later.filter(
      (node) => versions.get(node.metadata!.name!) !== node.metadata!.resourceVersion,
    );
    assert.deepEqual(
      rewritten.map((node) => node.metadata!.name),
      [],
    );
    await fleet.synced();
    assert.deepEqual(fleet.counts(), {
      nodes: FLEET_SIZE,
      up: FLEET_SIZE,
      ready: FLEET_SIZE,
      serverReady: FLEET_SIZE,
      serverNotReady: 0,
      serverUnknown: 0,
    });
    const renewals =
      fleet.states().reduce((sum, state) => sum + state.counters.leaseRenewals, 0) - renewalsBefore;
    // Three grace periods are twelve renew intervals; allow for timer slack on a busy machine.
    assert.ok(renewals >= FLEET_SIZE * 10, `renewals ${renewals}`);
    console.log(
      `# ${FLEET_SIZE} nodes registered in ${Math.round(startupMs)} ms; ${renewals} lease renewals in 3 grace periods`,
    );
  });
});

describe('faults injected into a fleet', () => {
  let cluster: SimCluster;
  let fleet: Fleet;

  before(async () => {
    cluster = await startSimCluster(GRACE_MS);
    fleet = new Fleet(fleetOptions(cluster, GRACE_MS));
    await fleet.add(10);
  });
  after(async () => {
    await fleet.close();
    await cluster.stop();
  });

  test('a stopped node goes Unknown while the others stay Ready, and comes back when started', async () => {
    const [name, neighbour] = fleet.names();
    await fleet.stop(name!);
    await eventually('Unknown on the server', () => fleet.state(name!).serverReady === 'Unknown');
    assert.equal(fleet.state(neighbour!).serverReady, 'True');
    assert.equal(fleet.state(name!).machine, 'down');
    await fleet.start(name!);
    await eventually('Ready again', () => fleet.state(name!).serverReady === 'True');
  });

  test('a killed node disappears from the heartbeat; a removed node loses its Node and Lease', async () => {
    const names = fleet.names();
    const killed = names[2]!;
    const removed = names[3]!;
    fleet.kill(killed);
    assert.equal(fleet.state(killed).heartbeating, false);
    await eventually('killed node Unknown', () => fleet.state(killed).serverReady === 'Unknown');

    await fleet.remove(removed);
    assert.equal(fleet.node(removed), undefined);
    assert.equal(await cluster.getNode(removed), undefined);
    await eventually('lease garbage-collected', async () => (await cluster.getLease(removed)) === undefined);
  });

  test('flapping turns a node NotReady for the given time, the server sees both edges', async () => {
    const name = fleet.names()[4]!;
    fleet.flapNotReady(name, 1_500, 'simulated runtime hiccup');
    await eventually('NotReady on the server', () => fleet.state(name).serverReady === 'False');
    const node = (await cluster.getNode(name))!;
    const ready = (node.status as { conditions: KubeObject[] }).conditions.find((c) => c.type === 'Ready')!;
    assert.equal(ready.message, 'simulated runtime hiccup');
    await eventually('Ready again', () => fleet.state(name).serverReady === 'True');
  });

  test('a reboot takes the node down and brings it back with a new boot, NotReady first', async () => {
    const name = fleet.names()[5]!;
    const node = fleet.node(name)!;
    const bootBefore = await node.host.bootId();
    const seen: string[] = [];
    const rv = (await cluster.getNode(name))!.metadata!.resourceVersion;
    const watch = cluster.admin.watch(
      '/api/v1/nodes',
      { fieldSelector: `metadata.name=${name}`, resourceVersion: rv },
      { onEvent: (event) => seen.push(readyStatus(event.object)!) },
    );
    try {
      await node.host.reboot();
      await eventually('rebooted and Ready', () => node.host.reboots === 1 && seen.at(-1) === 'True');
    } finally {
      watch.abort();
    }
    const bootAfter = await node.host.bootId();
    assert.notEqual(bootAfter, bootBefore);
    const nodeInfo = ((await cluster.getNode(name))!.status as { nodeInfo: { bootID: string } }).nodeInfo;
    assert.equal(nodeInfo.bootID, bootAfter, 'the Node reports the new boot');
    assert.deepEqual(seen, ['False', 'True']);
  });

  test('a partitioned node is marked Unknown by the server and re-posts Ready when it heals', async () => {
    const name = fleet.names()[6]!;
    fleet.partition(name, GRACE_MS * 2);
    await eventually('Unknown', () => fleet.state(name).serverReady === 'Unknown');
    await eventually(
      'Ready after the partition',
      () => fleet.state(name).serverReady === 'True',
      GRACE_MS * 3,
    );
  });

  test('a node the server marked Unknown behind its back re-posts its status (shared watch)', async () => {
    const name = fleet.names()[7]!;
    const node = (await cluster.getNode(name))!;
    const conditions = (node.status as { conditions: KubeObject[] }).conditions.map((c) =>
      c.type === 'Ready' ? { ...c, status: 'Unknown', reason: 'NodeStatusUnknown' } : c,
    );
    await cluster.admin.update(`/api/v1/nodes/${name}/status`, {
      ...node,
      status: { ...(node.status as KubeObject), conditions },
    });
    await eventually('Ready re-posted', async () => readyStatus(await cluster.getNode(name)) === 'True');
  });
  test('a Node deleted behind its kubelet stays deleted until the node starts again', async () => {
    const name = fleet.names()[8]!;
    await cluster.admin.delete(`/api/v1/nodes/${name}`);
    await eventually('the kubelet saw the deletion', () => !fleet.state(name).heartbeating);
    await eventually('its Lease collected', async () => (await cluster.getLease(name)) === undefined);
    await new Promise((resolve) => setTimeout(resolve, GRACE_MS / 2));
    assert.equal(await cluster.getLease(name), undefined, 'no orphan Lease recreated');
    assert.equal(await cluster.getNode(name), undefined);
    await fleet.restart(name);
    await eventually(
      'registered again and Ready',
      async () => readyStatus(await cluster.getNode(name)) === 'True',
    );
    assert.ok(await cluster.getLease(name));
  });
  test('nodes can join over time: startIntervalMs spaces their starts', async () => {
    const staggered = new Fleet({
      ...fleetOptions(cluster, GRACE_MS),
      namePrefix: 'staggered-',
      startIntervalMs: 150,
      watchNodes: false,
    });
    try {
      const started = performance.now();
      const nodes = await staggered.add(5);
      assert.ok(performance.now() - started >= 4 * 150, 'five starts, four intervals apart');
      for (const node of nodes) assert.equal(readyStatus(await cluster.getNode(node.name)), 'True');
    } finally {
      await staggered.close();
    }
  });
});
