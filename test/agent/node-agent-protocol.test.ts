// The controller ↔ agent protocol at its edges: no desired revision (Idle), a desired revision that
// does not exist yet (Failed until it appears), and a quiet agent that writes nothing.

import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { eventually } from '../support/eventually.ts';
import {
  type Cluster,
  createRevision,
  getNode,
  setDesired,
  startCluster,
  startNode,
  type TestNode,
  waitForState,
} from './agent-harness.ts';

describe('node agent protocol', () => {
  let cluster: Cluster;
  let node: TestNode;

  before(async () => {
    cluster = await startCluster();
    node = await startNode(cluster, 'protocol-1');
  });
  after(async () => {
    await cluster?.stop();
  });

  it('reports Idle while no revision is desired', async () => {
    const idle = await waitForState(cluster, node.name, 'Idle');
    assert.equal(idle.metadata?.annotations?.['nodeherd.io/message'], 'no desired revision');
  });

  it('reports a missing revision, then applies it once it exists', async () => {
    const spec = { files: [{ path: '/etc/late.conf', content: { inline: { data: 'late' } } }] };
    // The revision's name is known before it exists (the name derives from the rendered hash).
    const name = await (async () => {
      const { renderConfigs } = await import('../../src/api/render.ts');
      const { revisionName } = await import('../../src/api/hash.ts');
      const result = renderConfigs([
        { apiVersion: 'nodeherd.io/v1alpha1', kind: 'NodeConfig', metadata: { name: 'late-config' }, spec },
      ]);
      return revisionName('late', result.hash!);
    })();
    await setDesired(cluster, node.name, name);
    const failed = await waitForState(cluster, node.name, 'Failed');
    assert.match(failed.metadata?.annotations?.['nodeherd.io/message'] ?? '', /does not exist/);
    assert.equal(
      failed.status?.conditions?.find((c) => c.type === 'NodeConfigReady')?.reason,
      'RevisionNotFound',
    );

    assert.notEqual(node.agent.stats().informers.revision, undefined, 'the missing revision is watched');
    const revision = await createRevision(cluster, 'late', spec);
    assert.equal(revision.metadata.name, name);
    await waitForState(cluster, node.name, 'Done');
    // Immutable once it exists: the watch that waited for it ends.
    assert.equal(node.agent.stats().informers.revision, undefined, 'no revision watch once it exists');
  });

  it('writes nothing to the API server when restarted on an applied node', async () => {
    // Settled: the drift check after the apply has run and nothing is queued.
    await eventually('the drift check after the apply', async () =>
      ['start', 'apply', 'file', 'interval'].some(
        (trigger) => node.agent.metrics.driftChecks.get({ trigger }) > 0,
      ),
    );
    await node.agent.whenIdle();
    const before = node.client.stats().byVerb;
    await node.restart();
    await eventually('synced', () => (node.agent.status.state === 'Done' ? true : undefined));
    await new Promise((resolve) => setTimeout(resolve, 200));
    const after = node.client.stats().byVerb;
    assert.equal(after.patch, before.patch, 'no patch');
    assert.equal(after.create, before.create, 'no event');
    assert.equal(after.list - before.list, 1, 'one list, of its Node');
    assert.equal(after.watch - before.watch, 1, 'one watch, of its Node');
    assert.equal(after.get - before.get, 1, 'one read of the revision, which is immutable');
  });

  it('keeps kubelet’s own conditions when it sets NodeConfigReady', async () => {
    await cluster.admin.patch(
      `/api/v1/nodes/${node.name}/status`,
      { status: { conditions: [{ type: 'Ready', status: 'True', reason: 'KubeletReady', message: 'ok' }] } },
      'strategic',
    );
    const revision = await createRevision(cluster, 'late', {
      files: [{ path: '/etc/late.conf', content: { inline: { data: 'later' } } }],
    });
    await setDesired(cluster, node.name, revision.metadata.name);
    const done = await eventually('applied', async () => {
      const object = await getNode(cluster, node.name);
      return object.metadata?.annotations?.['nodeherd.io/current-revision'] === revision.metadata.name
        ? object
        : undefined;
    });
    // (A node that never drifted gets no ConfigDrift condition.)
    const types = (done.status?.conditions ?? []).map((c) => c.type).sort();
    assert.deepEqual(types, ['NodeConfigReady', 'Ready']);
  });
});
