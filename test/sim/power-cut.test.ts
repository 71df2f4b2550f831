// A killed simulated machine does nothing more: its agent, killed while its kubelet restarts for a
// revision, reports nothing after the kill (no Done, no new current revision) and its kubelet sends no
// heartbeat — as a machine that lost power. Before the power fence, the agent's apply ran on after the kill and
// reported the node Done on the revision, so a controller could see a dead node healthy on it.
// And the fence itself: methods run on the real object until the power is cut, then throw.

import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import {
  CURRENT_REVISION_ANNOTATION,
  DESIRED_REVISION_ANNOTATION,
  STATE_ANNOTATION,
} from '../../src/api/node-protocol.ts';
import type { NodeConfigSpec } from '../../src/api/types.ts';
import type { Fleet } from '../../src/sim/fleet.ts';
import { PowerCut, PowerFence } from '../../src/sim/power-fence.ts';
import { eventually } from '../support/eventually.ts';
import { revisionOf } from '../support/nodeherd-objects.ts';
import { type AgentFleet, type SimCluster, startAgentFleet } from './sim-support.ts';

const RESTART_MS = 1_500;

const spec: NodeConfigSpec = {
  files: [{ path: '/etc/kubernetes/kubelet-extra.conf', content: { inline: { data: 'maxPods: 60\n' } } }],
  units: [
    {
      name: 'kubelet.service',
      dropIns: [{ name: '20-nodeherd.conf', content: '[Service]\nEnvironment=MAX_PODS=60\n' }],
      filePaths: ['/etc/kubernetes/kubelet-extra.conf'],
      // A short probe: an agent still running after the kill would report its verdict inside the window.
      healthProbe: { http: { url: 'http://127.0.0.1:10248/healthz' }, timeoutSeconds: 1 },
    },
  ],
};

test('a fence passes calls to the object until the power is cut, then refuses them', async () => {
  class Machine {
    #disk = 'data';
    label = 'm1';
    read(): string {
      return this.#disk;
    }
    async write(value: string): Promise<void> {
      this.#disk = value;
    }
  }
  const machine = new Machine();
  const fence = new PowerFence('m1');
  const seen = fence.wrap(machine);
  assert.equal(seen.read(), 'data', 'private state reached through the fence');
  await seen.write('more');
  assert.equal(machine.read(), 'more');
  fence.cut();
  assert.equal(fence.powered, false);
  assert.equal(seen.label, 'm1', 'plain properties still read');
  assert.throws(() => seen.read(), PowerCut);
  await assert.rejects(async () => seen.write('after'), PowerCut);
  assert.equal(machine.read(), 'more', 'nothing written after the cut');
});

describe('a machine killed mid-apply', () => {
  let cluster: SimCluster;
  let fleet: Fleet;
  let running: AgentFleet;

  before(async () => {
    running = await startAgentFleet(
      1,
      { agent: { unitTimeoutMs: 10_000 } },
      // A kubelet restart long enough that the kill lands inside it, however fast the machine.
      { systemd: { targetDurations: { 'kubelet.service': { restart: RESTART_MS } } } },
    );
    ({ cluster, fleet } = running);
  });
  after(() => running.stop());

  test('reports nothing after the kill and sends no heartbeat', async () => {
    const [name] = fleet.names();
    const node = fleet.node(name!)!;
    const revision = revisionOf('workers', spec, 1, { configName: 'kubelet' });
    await cluster.admin.create('/apis/nodeherd.io/v1alpha1/nodeconfigrevisions', revision);
    await cluster.admin.patch(`/api/v1/nodes/${name}`, {
      metadata: { annotations: { [DESIRED_REVISION_ANNOTATION]: revision.metadata.name } },
    });
    await eventually(
      'the kubelet restarting for the revision',
      () => node.kubelet.process === 'restarting',
      15_000,
    );
    fleet.kill(name!);
    // Watch the Node from the kill until well past the kubelet's restart and the agent's 1 s probe.
    const seen: Record<string, string | undefined>[] = [];
    const rv = (await cluster.getNode(name!))!.metadata!.resourceVersion;
    const watch = cluster.admin.watch(
      '/api/v1/nodes',
      { fieldSelector: `metadata.name=${name}`, resourceVersion: rv },
      { onEvent: (event) => seen.push({ ...(event.object.metadata?.annotations ?? {}) }) },
    );
    try {
      await new Promise((resolve) => setTimeout(resolve, RESTART_MS * 3));
    } finally {
      watch.abort();
    }
    const last = (await cluster.getNode(name!))!.metadata!.annotations ?? {};
    for (const a of [...seen, last]) {
      assert.notEqual(a[CURRENT_REVISION_ANNOTATION], revision.metadata.name, 'no revision reported applied');
      assert.ok(
        !['Verifying', 'Done', 'Failed'].includes(a[STATE_ANNOTATION] ?? ''),
        `no verdict reported after the kill: ${a[STATE_ANNOTATION]}`,
      );
    }
    assert.equal(fleet.state(name!).heartbeating, false, 'the dead machine sends no heartbeat');
    assert.equal(fleet.state(name!).serverReady, 'Unknown', 'the server sees the node gone, not Ready');
  });
});
