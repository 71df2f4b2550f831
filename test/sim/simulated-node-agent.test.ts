// Simulated nodes running the real agent: a revision named in the desired-revision annotation is
// applied to the node's simulated backends and reported Done; a kubelet drop-in restarts the
// simulated kubelet (NotReady, then Ready); a kubelet that dies with a revision makes the apply fail.

import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { DESIRED_REVISION_ANNOTATION } from '../../src/api/node-protocol.ts';
import type { NodeConfigRevision, NodeConfigSpec } from '../../src/api/types.ts';
import type { Fleet } from '../../src/sim/fleet.ts';
import { eventually } from '../support/eventually.ts';
import { revisionOf } from '../support/nodeherd-objects.ts';
import { type AgentFleet, readyStatus, type SimCluster, startAgentFleet } from './sim-support.ts';

const REVISIONS = '/apis/nodeherd.io/v1alpha1/nodeconfigrevisions';

function kubeletSpec(maxPods: number): NodeConfigSpec {
  return {
    files: [
      { path: '/etc/kubernetes/kubelet-extra.conf', content: { inline: { data: `maxPods: ${maxPods}\n` } } },
    ],
    units: [
      {
        name: 'kubelet.service',
        dropIns: [{ name: '20-nodeherd.conf', content: `[Service]\nEnvironment=MAX_PODS=${maxPods}\n` }],
        filePaths: ['/etc/kubernetes/kubelet-extra.conf'],
        healthProbe: { http: { url: 'http://127.0.0.1:10248/healthz' }, timeoutSeconds: 1 },
      },
    ],
  };
}

describe('simulated nodes with agents', () => {
  let cluster: SimCluster;
  let fleet: Fleet;
  let running: AgentFleet;
  let revisionNumber = 0;

  async function createRevision(spec: NodeConfigSpec): Promise<NodeConfigRevision> {
    const revision = revisionOf('workers', spec, ++revisionNumber, { configName: 'kubelet' });
    await cluster.admin.create(REVISIONS, revision);
    return revision;
  }

  async function setDesired(node: string, revision: string): Promise<void> {
    await cluster.admin.patch(`/api/v1/nodes/${node}`, {
      metadata: { annotations: { [DESIRED_REVISION_ANNOTATION]: revision } },
    });
  }

  before(async () => {
    running = await startAgentFleet(
      2,
      { agent: { unitTimeoutMs: 1_000 } },
      { systemd: { targetDurations: { 'kubelet.service': { restart: 100 } } } },
    );
    ({ cluster, fleet } = running);
  });
  after(() => running.stop());

  test('a node applies the revision its annotation names, restarting its kubelet, and reports Done', async () => {
    const [name] = fleet.names();
    const node = fleet.node(name!)!;
    const revision = await createRevision(kubeletSpec(50));
    const seen: string[] = [];
    const rv = (await cluster.getNode(name!))!.metadata!.resourceVersion;
    const watch = cluster.admin.watch(
      '/api/v1/nodes',
      { fieldSelector: `metadata.name=${name}`, resourceVersion: rv },
      {
        onEvent: (event) => {
          const status = readyStatus(event.object)!;
          if (seen.at(-1) !== status) seen.push(status);
        },
      },
    );
    try {
      await setDesired(name!, revision.metadata.name);
      await eventually(
        'Done with the revision',
        () => {
          const state = fleet.state(name!);
          return state.agentState === 'Done' && state.currentRevision === revision.metadata.name;
        },
        15_000,
      );
      await eventually('Ready again after the kubelet restart', () => seen.at(-1) === 'True');
    } finally {
      watch.abort();
    }
    assert.deepEqual(seen, ['True', 'False', 'True']);
    assert.equal(node.systemd.restarts('kubelet.service'), 1);
    assert.match(node.systemd.unit('kubelet.service')?.loaded ?? '', /MAX_PODS=50/);
    const file = await node.files.read('/etc/kubernetes/kubelet-extra.conf');
    assert.equal(file?.content.toString(), 'maxPods: 50\n');
    // The other node was not told to do anything.
    const other = fleet.node(fleet.names()[1]!)!;
    assert.equal(other.systemd.restarts('kubelet.service'), 0);
    assert.equal(fleet.state(fleet.names()[1]!).agentState ?? 'Idle', 'Idle');
  });

  test('a kubelet that dies with a revision fails the apply, and the node goes Unknown', async () => {
    const revision = await createRevision(kubeletSpec(999));
    const bad = await fleet.create(
      { name: 'faulty-1', zone: 'zone-c' },
      { faults: { kubeletFailsAtRevisions: [revision.metadata.name] } },
    );
    await fleet.startAll([bad]);
    await setDesired(bad.name, revision.metadata.name);
    await eventually('Failed', () => fleet.state(bad.name).agentState === 'Failed', 15_000);
    assert.equal(await bad.systemd.isFailed('kubelet.service'), true);
    const message = (await cluster.getNode(bad.name))!.metadata!.annotations!['nodeherd.io/message'];
    assert.match(message ?? '', /kubelet\.service/);
    assert.match(fleet.state(bad.name).kubeletFailure ?? '', /revision/);
    await eventually('Unknown on the server', () => fleet.state(bad.name).serverReady === 'Unknown', 10_000);
    // Its neighbours are unaffected.
    assert.equal(fleet.state(fleet.names()[1]!).serverReady, 'True');
  });
});
