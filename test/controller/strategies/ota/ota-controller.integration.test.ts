// OTA, the controller's side: nodes not on the target are offered it (available-revision), new nodes
// get it at once, and a desired-revision the node's agent writes (its local API applying the offer) is
// respected, applied and reported; the offer goes once the node is on the target.

import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import {
  AVAILABLE_REVISION_ANNOTATION,
  CURRENT_REVISION_ANNOTATION,
  DESIRED_REVISION_ANNOTATION,
} from '../../../../src/api/node-protocol.ts';
import {
  ClusterHarness,
  condition,
  eventually,
  kubeletConfig,
  type NodeObject,
  revisionNameFor,
} from '../../../support/cluster-harness.ts';
import { NodeWatch } from '../../support/node-watch.ts';

describe('OTA (controller)', () => {
  let h: ClusterHarness;
  let watch: NodeWatch;
  let names: string[];
  const rev = (value: string) => revisionNameFor('ota', { 'ota-kubelet': kubeletConfig(value) });
  const nodes = () => h.nodes('pool=ota');
  const byName = async (name: string) => (await nodes()).find((n) => n.metadata.name === name)!;
  const a = (n: NodeObject, key: string) => n.metadata.annotations?.[key];

  before(async () => {
    h = await ClusterHarness.start();
    names = await h.addNodes('ota', 3);
    await h.labelledPool('ota', 'ota-kubelet', kubeletConfig('one'), { updateStrategy: { type: 'OTA' } });
    watch = await NodeWatch.started(h.adminConfig());
    await h.startController();
    await eventually(
      'bootstrap on revision one',
      async () => (await h.nodesOnRevision('pool=ota', rev('one'))) === 3,
      60_000,
    );
  });
  after(async () => {
    await watch?.stop();
    await h?.stop();
  });

  test('a new revision is offered, not handed out', async () => {
    await h.applyConfig('ota-kubelet', kubeletConfig('two'), { pool: 'ota' });
    await eventually(
      'offers on every node',
      async () => (await nodes()).every((n) => a(n, AVAILABLE_REVISION_ANNOTATION) === rev('two')),
      30_000,
    );
    for (const n of await nodes()) assert.equal(a(n, DESIRED_REVISION_ANNOTATION), rev('one'));
    const pool = await eventually('status counts the offers', async () => {
      const p = await h.getPool('ota');
      return condition(p, 'Progressing')?.message?.includes('3 nodes have an update available')
        ? p
        : undefined;
    });
    assert.equal(condition(pool, 'Complete')?.status, 'False');
    assert.equal(pool.status?.updateAvailable, 3);
    assert.equal(pool.status?.waiting, 0);
  });

  test('a desired-revision written as the agent would is kept and applied; the offer goes', async () => {
    const name = names[0]!;
    const changesBefore = watch.desiredChanges.get(name) ?? 0;
    await h.admin.patch(
      `/api/v1/nodes/${name}`,
      { metadata: { annotations: { [DESIRED_REVISION_ANNOTATION]: rev('two') } } },
      'merge',
    );
    const node = await eventually(
      'the node on revision two without an offer',
      async () => {
        const n = await byName(name);
        return a(n, CURRENT_REVISION_ANNOTATION) === rev('two') &&
          a(n, AVAILABLE_REVISION_ANNOTATION) === undefined
          ? n
          : undefined;
      },
      60_000,
    );
    assert.equal(a(node, DESIRED_REVISION_ANNOTATION), rev('two'));
    assert.equal(watch.desiredChanges.get(name), changesBefore + 1, 'nobody rewrote the desired revision');
    for (const other of names.slice(1)) {
      const n = await byName(other);
      assert.equal(a(n, CURRENT_REVISION_ANNOTATION), rev('one'));
      assert.equal(a(n, AVAILABLE_REVISION_ANNOTATION), rev('two'));
    }
    await eventually('status counts two offers', async () => {
      const p = await h.getPool('ota');
      return (
        condition(p, 'Progressing')?.message?.includes('2 nodes have an update available') &&
        p.status?.updateAvailable === 2
      );
    });
  });

  test('a joining node gets the newest revision at once, with no offer', async () => {
    const [joined] = await h.fleet.add(1, { labels: { pool: 'ota' } });
    const node = await eventually(
      'the new node on revision two',
      async () => {
        const n = await byName(joined!.name);
        return n && a(n, CURRENT_REVISION_ANNOTATION) === rev('two') ? n : undefined;
      },
      60_000,
    );
    assert.equal(a(node, AVAILABLE_REVISION_ANNOTATION), undefined);
  });
});
