// Spread and hold on the agent side: a desired revision with a not-before time in the future waits
// (state Waiting, "Spread: starts at …") and starts by itself at that time; a hold keeps a new apply
// from starting until it is lifted; neither gates what is already applied.

import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import {
  DESIRED_REVISION_ANNOTATION,
  HOLD_ANNOTATION,
  MESSAGE_ANNOTATION,
  NOT_BEFORE_ANNOTATION,
  STATE_REVISION_ANNOTATION,
} from '../../../src/api/node-protocol.ts';
import {
  type Cluster,
  createRevision,
  getNode,
  startCluster,
  startNode,
  type TestNode,
  waitForState,
} from '../agent-harness.ts';

function spec(value: string) {
  return { files: [{ path: '/etc/spread.conf', content: { inline: { data: `${value}\n` } } }] };
}

function annotate(cluster: Cluster, node: string, annotations: Record<string, string | null>) {
  return cluster.admin.patch(`/api/v1/nodes/${node}`, { metadata: { annotations } });
}

describe('Spread and hold gates', () => {
  let cluster: Cluster;
  let node: TestNode;

  before(async () => {
    cluster = await startCluster();
    node = await startNode(cluster, 'spread-1');
  });
  after(async () => {
    await cluster?.stop();
  });

  it('waits for its Spread time, then starts without being told again', async () => {
    const revision = await createRevision(cluster, 'spread', spec('1'));
    const startAt = new Date(Math.ceil((Date.now() + 5000) / 1000) * 1000)
      .toISOString()
      .replace('.000Z', 'Z');
    await annotate(cluster, node.name, {
      [NOT_BEFORE_ANNOTATION]: startAt,
      [DESIRED_REVISION_ANNOTATION]: revision.metadata.name,
    });
    const waiting = await waitForState(cluster, node.name, 'Waiting');
    assert.equal(waiting.metadata?.annotations?.[MESSAGE_ANNOTATION], `Spread: starts at ${startAt}`);
    assert.equal(waiting.metadata?.annotations?.[STATE_REVISION_ANNOTATION], revision.metadata.name);
    assert.equal(await node.files.read('/etc/spread.conf'), undefined, 'nothing applied while waiting');
    const done = await waitForState(cluster, node.name, 'Done', 30_000);
    // Started at its time, not before (the agent's clock is the test's clock).
    assert.ok(Date.now() >= Date.parse(startAt));
    assert.equal(done.metadata?.annotations?.[STATE_REVISION_ANNOTATION], revision.metadata.name);
  });

  it('does not start while held, and starts once the hold is lifted', async () => {
    const revision = await createRevision(cluster, 'spread', spec('2'));
    await annotate(cluster, node.name, {
      [HOLD_ANNOTATION]: 'pool spread is paused',
      [DESIRED_REVISION_ANNOTATION]: revision.metadata.name,
    });
    const held = await waitForState(cluster, node.name, 'Waiting');
    assert.equal(held.metadata?.annotations?.[MESSAGE_ANNOTATION], 'held: pool spread is paused');
    await annotate(cluster, node.name, { [HOLD_ANNOTATION]: null });
    const done = await waitForState(cluster, node.name, 'Done');
    assert.equal(done.metadata?.annotations?.['nodeherd.io/current-revision'], revision.metadata.name);
  });

  it('a hold does not gate what is applied already (restart and drift repair)', async () => {
    await annotate(cluster, node.name, { [HOLD_ANNOTATION]: 'failure policy tripped' });
    await node.files.write('/etc/spread.conf', Buffer.from('tampered\n'));
    await node.restart();
    await node.agent.whenIdle();
    const after = await getNode(cluster, node.name);
    assert.equal(after.metadata?.annotations?.['nodeherd.io/state'], 'Done');
    assert.equal((await node.files.read('/etc/spread.conf'))?.content?.toString(), '2\n', 'drift repaired');
    await annotate(cluster, node.name, { [HOLD_ANNOTATION]: null });
  });

  it('refuses a not-before it cannot read, naming the annotation', async () => {
    const revision = await createRevision(cluster, 'spread', spec('3'));
    await annotate(cluster, node.name, {
      [NOT_BEFORE_ANNOTATION]: 'soon',
      [DESIRED_REVISION_ANNOTATION]: revision.metadata.name,
    });
    const waiting = await waitForState(cluster, node.name, 'Waiting');
    assert.match(
      waiting.metadata?.annotations?.[MESSAGE_ANNOTATION] ?? '',
      /^not starting: annotation nodeherd\.io\/not-before is not an RFC 3339 time: "soon"$/,
    );
  });
});
