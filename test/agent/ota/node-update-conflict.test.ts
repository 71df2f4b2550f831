// POST /v1/update writes the desired revision with the resourceVersion of the Node it just read. The
// kubelet's heartbeats and the agent's reports change a real Node between that read and the write; the
// API reads and judges the Node again instead of answering the owner 409 (CI saw one such 409), while
// a change that matters (another revision offered) is still refused and nothing is overwritten.
// Against the embedded API server, with a second client writing the Node right before each patch.

import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { type RevisionRef, revisionRef } from '../../../src/agent/apply/revision-ref.ts';
import { NodeUpdateApi } from '../../../src/agent/ota/node-update-api.ts';
import {
  AVAILABLE_REVISION_ANNOTATION,
  DESIRED_REVISION_ANNOTATION,
} from '../../../src/api/node-protocol.ts';
import { LightKubeClient } from '../../../src/kube/light/light-kube-client.ts';
import {
  type Cluster,
  createPool,
  createRevision,
  demoServiceSpec,
  getNode,
  startCluster,
} from '../agent-harness.ts';

const NODE = 'ota-conflict';
const nodePath = `/api/v1/nodes/${NODE}`;

describe('node update API under concurrent Node writes', () => {
  let cluster: Cluster;
  let client: LightKubeClient;
  /** Runs right before each of the API's patches: a concurrent write that makes it stale. */
  let interfere: (() => Promise<void>) | undefined;
  let patches = 0;
  let api: NodeUpdateApi;
  let heartbeat = 0;
  /** What the node runs: set by hand, as no agent applies here. */
  let applied: RevisionRef | undefined;

  const bump = async () => {
    await cluster.admin.patch(nodePath, { metadata: { labels: { heartbeat: String(++heartbeat) } } });
  };
  const offer = (revision: string) =>
    cluster.admin.patch(nodePath, {
      metadata: { annotations: { [AVAILABLE_REVISION_ANNOTATION]: revision } },
    });
  const desired = async () =>
    (await getNode(cluster, NODE)).metadata?.annotations?.[DESIRED_REVISION_ANNOTATION];

  before(async () => {
    cluster = await startCluster();
    await createPool(cluster, 'ota', { nodeSelector: { matchLabels: { role: 'edge' } } });
    await cluster.admin.create('/api/v1/nodes', {
      apiVersion: 'v1',
      kind: 'Node',
      metadata: { name: NODE, labels: { role: 'edge' } },
    });
    client = LightKubeClient.fromKubeconfig(cluster.api.kubeconfigPath);
    const patch = client.patch.bind(client);
    client.patch = (async (...args: Parameters<typeof patch>) => {
      patches++;
      await interfere?.();
      return patch(...args);
    }) as typeof client.patch;
    api = new NodeUpdateApi({
      client,
      nodeName: NODE,
      // No watch here: every read is a live one.
      node: () => undefined,
      lastApplied: () => applied,
      agentState: () => 'Idle',
    });
  });
  after(async () => {
    client?.close();
    await cluster?.stop();
  });

  it('a Node written between the read and the patch is read again and the update accepted', async () => {
    const first = await createRevision(cluster, 'ota', demoServiceSpec('1'));
    await offer(first.metadata.name);
    let left = 2;
    interfere = async () => {
      if (left-- > 0) await bump();
    };
    patches = 0;
    const answer = await api.apply(first.metadata.name);
    assert.equal(answer.status, 202, JSON.stringify(answer.body));
    assert.equal(patches, 3, 'two stale patches, then one that lands');
    assert.equal(await desired(), first.metadata.name);
    assert.equal(
      (await getNode(cluster, NODE)).metadata?.labels?.heartbeat,
      String(heartbeat),
      'the concurrent writes kept',
    );
    applied = revisionRef(first);
  });

  it('another revision offered between the read and the patch is refused, not applied', async () => {
    const before = await desired();
    const second = await createRevision(cluster, 'ota', demoServiceSpec('2'));
    const third = await createRevision(cluster, 'ota', demoServiceSpec('3'));
    await offer(second.metadata.name);
    let once = true;
    interfere = async () => {
      if (once) await offer(third.metadata.name);
      once = false;
    };
    const answer = await api.apply(second.metadata.name);
    assert.equal(answer.status, 409);
    assert.equal((answer.body as { reason: string }).reason, 'RevisionMismatch');
    assert.match((answer.body as { message: string }).message, new RegExp(third.metadata.name));
    assert.equal(await desired(), before, 'the desired revision is untouched');
  });

  it('a Node that changes before every patch is a 409 Conflict that names the node, and nothing is written', async () => {
    const before = await desired();
    const fourth = await createRevision(cluster, 'ota', demoServiceSpec('4'));
    await offer(fourth.metadata.name);
    interfere = bump;
    patches = 0;
    const answer = await api.apply();
    interfere = undefined;
    assert.equal(answer.status, 409);
    const body = answer.body as { reason: string; message: string };
    assert.equal(body.reason, 'Conflict');
    assert.match(body.message, new RegExp(`Node ${NODE} changed 5 times`));
    assert.equal(patches, 5, 'a bounded number of attempts');
    assert.equal(await desired(), before);
  });
});
