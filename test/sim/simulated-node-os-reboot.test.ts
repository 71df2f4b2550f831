// Simulated nodes whose OS asks for a reboot: the simulation raises Debian's sentinel (as a kernel
// upgrade would), the real agent on the node reports nodeherd.io/RebootRequired with the packages,
// and when asked (nodeherd.io/reboot-requested) the machine goes down, boots with a new boot id that
// the kubelet reports, /run is empty again, and the agent answers the request and clears the condition.

import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { NodeObject } from '../../src/agent/watch/kube-objects.ts';
import {
  REBOOT_REQUESTED_ANNOTATION,
  REBOOT_REQUIRED_CONDITION,
  REBOOTED_ANNOTATION,
} from '../../src/api/node-protocol.ts';
import type { Fleet } from '../../src/sim/fleet.ts';
import { eventually } from '../support/eventually.ts';
import { type AgentFleet, type SimCluster, startAgentFleet } from './sim-support.ts';

describe('simulated nodes: reboots the OS asks for', () => {
  let cluster: SimCluster;
  let fleet: Fleet;
  let running: AgentFleet;

  before(async () => {
    running = await startAgentFleet(2, { agent: { reboots: { intervalMs: 100 } } }, { rebootDownMs: 200 });
    ({ cluster, fleet } = running);
  });
  after(() => running.stop());

  const rebootCondition = async (name: string) =>
    ((await cluster.getNode(name)) as NodeObject | undefined)?.status?.conditions?.find(
      (c) => c.type === REBOOT_REQUIRED_CONDITION,
    );

  test('the sentinel is reported, the requested reboot clears it, and the Node shows the new boot', async () => {
    const [name, other] = fleet.names() as [string, string];
    const node = fleet.node(name)!;
    await fleet.requireReboot(name, ['linux-image-6.1.0-18-amd64', 'libc6']);
    const required = await eventually('RebootRequired True', async () => {
      const c = await rebootCondition(name);
      return c?.status === 'True' ? c : undefined;
    });
    assert.equal(required.reason, 'SentinelFile');
    assert.match(required.message ?? '', /packages: linux-image-6\.1\.0-18-amd64, libc6$/);

    const bootBefore = await node.host.bootId();
    await cluster.admin.patch(`/api/v1/nodes/${name}`, {
      metadata: { annotations: { [REBOOT_REQUESTED_ANNOTATION]: 'r1' } },
    });
    const answered = await eventually(
      'rebooted and answered',
      async () => {
        const object = (await cluster.getNode(name)) as NodeObject | undefined;
        return object?.metadata?.annotations?.[REBOOTED_ANNOTATION] === 'r1' ? object : undefined;
      },
      15_000,
    );
    const bootAfter = await node.host.bootId();
    assert.notEqual(bootAfter, bootBefore);
    assert.equal(node.host.reboots, 1);
    assert.equal(await node.rebootRequired(), false, 'a boot empties /run');
    const nodeInfo = (answered.status as { nodeInfo?: { bootID?: string } }).nodeInfo;
    assert.equal(nodeInfo?.bootID, bootAfter, 'the kubelet reports the new boot');
    const cleared = await eventually('RebootRequired False', async () => {
      const c = await rebootCondition(name);
      return c?.status === 'False' ? c : undefined;
    });
    assert.equal(cleared.reason, 'Rebooted');
    assert.match(cleared.message ?? '', new RegExp(bootAfter));
    await eventually('Ready again', () => fleet.state(name).serverReady === 'True', 10_000);

    // The other node neither needed nor got a reboot, and wrote no condition.
    assert.equal(fleet.node(other)!.host.reboots, 0);
    assert.equal(await rebootCondition(other), undefined);
  });
});
