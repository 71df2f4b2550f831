// A node removed from a fleet takes its API connections with it: the node's own client is closed once
// its agent has stopped, so a process that removed its nodes can exit without closing the fleet.

import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { Fleet } from '../../src/sim/fleet.ts';
import { eventually } from '../support/eventually.ts';
import { type SimCluster, startSimCluster } from './sim-support.ts';

/** Open TCP sockets of this process (the embedded server's side included). */
const openSockets = () => process.getActiveResourcesInfo().filter((r) => r === 'TCPSocketWrap').length;

describe('fleet.remove', () => {
  let cluster: SimCluster;
  let fleet: Fleet;

  before(async () => {
    cluster = await startSimCluster();
    fleet = new Fleet({
      clientFor: cluster.nodeClients,
      kubeletClientFor: cluster.kubeletClients,
      adminClient: cluster.admin,
      leaseDurationSeconds: 2,
      renewIntervalMs: 500,
      startupNotReadyMs: 100,
    });
    await fleet.synced();
  });
  after(async () => {
    await fleet.close();
    await cluster.stop();
  });

  test('closes the removed node’s connections', async () => {
    // The admin client's pooled connection (used by remove to delete the Node) is part of the baseline.
    await cluster.admin.list('/api/v1/nodes');
    const baseline = openSockets();
    const [node] = await fleet.add(1);
    const name = node!.kubelet.name;
    await eventually('the node registered', async () => (await cluster.getNode(name)) !== undefined);
    assert.ok(openSockets() > baseline, 'the node holds connections of its own');

    await fleet.remove(name);
    assert.equal(fleet.size, 0);
    await eventually('back to the sockets before the node', async () => openSockets() <= baseline);
  });
});
