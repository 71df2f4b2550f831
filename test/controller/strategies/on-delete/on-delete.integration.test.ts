// OnDelete (generations): a new revision leaves existing nodes alone, joining nodes get the newest,
// outdated nodes carry a taint with their revision number, empty old revisions are pruned, a node or a
// whole revision is upgraded on demand, and switching to RollingUpdate converges everything.

import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import {
  CURRENT_REVISION_ANNOTATION,
  DESIRED_REVISION_ANNOTATION,
  OUTDATED_TAINT_KEY,
  UPGRADE_REQUESTED_ANNOTATION,
  UPGRADE_REVISION_ANNOTATION,
} from '../../../../src/api/node-protocol.ts';
import {
  brokenConfig,
  ClusterHarness,
  condition,
  eventually,
  GROUP_PATH,
  kubeletConfig,
  type NodeObject,
  revisionNameFor,
} from '../../support/cluster-harness.ts';

type TaintedNode = NodeObject & { spec?: { taints?: { key: string; value?: string; effect: string }[] } };

describe('OnDelete', () => {
  let h: ClusterHarness;
  let first: string[];
  let joined: string;
  const rev = (value: string) => revisionNameFor('gen', { 'gen-kubelet': kubeletConfig(value) });

  const nodes = async () => (await h.nodes('pool=gen')) as TaintedNode[];
  const byName = async (name: string) => (await nodes()).find((n) => n.metadata.name === name)!;
  const taintOf = (n: TaintedNode) => n.spec?.taints?.find((t) => t.key === OUTDATED_TAINT_KEY);
  const current = (n: NodeObject) => n.metadata.annotations?.[CURRENT_REVISION_ANNOTATION];
  const revisionNames = async () =>
    (await h.admin.list<never>(`${GROUP_PATH}/nodeconfigrevisions`)).items.map(
      (r: { metadata: { name: string } }) => r.metadata.name,
    );

  before(async () => {
    h = await ClusterHarness.start();
    first = (await h.fleet.add(3, { labels: { pool: 'gen' } })).map((n) => n.name).sort();
    await h.applyConfig('gen-kubelet', kubeletConfig('one'), { pool: 'gen' });
    await h.createPool('gen', {
      nodeSelector: { matchLabels: { pool: 'gen' } },
      configSelector: { matchLabels: { pool: 'gen' } },
      updateStrategy: { type: 'OnDelete', onDelete: { outdatedTaint: 'NoSchedule' } },
    });
    await h.startController();
    await eventually(
      'every node on revision one',
      async () => (await nodes()).every((n) => current(n) === rev('one')) && (await nodes()).length === 3,
      60_000,
    );
  });
  after(async () => {
    await h?.stop();
  });

  test('a new revision leaves the nodes on theirs and taints them with its number', async () => {
    await h.applyConfig('gen-kubelet', kubeletConfig('two'), { pool: 'gen' });
    await eventually(
      'outdated taints',
      async () =>
        (await nodes()).every((n) => taintOf(n)?.value === '1' && taintOf(n)?.effect === 'NoSchedule'),
      30_000,
    );
    for (const n of await nodes()) {
      assert.equal(n.metadata.annotations?.[DESIRED_REVISION_ANNOTATION], rev('one'));
      assert.equal(current(n), rev('one'));
    }
    const pool = await h.getPool('gen');
    assert.equal(pool.status?.targetRevision, rev('two'));
    assert.equal(pool.status?.revisions?.find((r) => r.name === rev('one'))?.nodes, 3);
    assert.equal(condition(pool, 'Progressing')?.reason, 'WaitingForNodeReplacement');
  });

  test('a joining node gets the newest revision at once, and no taint', async () => {
    joined = (await h.fleet.add(1, { labels: { pool: 'gen' } }))[0]!.name;
    const node = await eventually(
      'the new node on revision two',
      async () => {
        const n = await byName(joined);
        return n && current(n) === rev('two') ? n : undefined;
      },
      60_000,
    );
    assert.equal(taintOf(node), undefined);
  });

  test('one node upgraded on request: it moves, its taint and the request go', async () => {
    const target = first[0]!;
    await h.admin.patch(
      `/api/v1/nodes/${target}`,
      { metadata: { annotations: { [UPGRADE_REQUESTED_ANNOTATION]: new Date().toISOString() } } },
      'merge',
    );
    const node = await eventually(
      'the node upgraded',
      async () => {
        const n = await byName(target);
        return current(n) === rev('two') &&
          !n.metadata.annotations?.[UPGRADE_REQUESTED_ANNOTATION] &&
          !taintOf(n)
          ? n
          : undefined;
      },
      60_000,
    );
    assert.equal(node.spec?.unschedulable ?? false, false);
    for (const other of first.slice(1)) assert.equal(current(await byName(other)), rev('one'));
  });

  test('a whole revision upgraded on request; the revision left empty is pruned', async () => {
    await h.applyConfig('gen-kubelet', kubeletConfig('three'), { pool: 'gen' });
    await eventually(
      'target three',
      async () => (await h.getPool('gen')).status?.targetRevision === rev('three'),
    );
    await eventually(
      'taints by revision number',
      async () => {
        const values = (await nodes()).map((n) => [n.metadata.name, taintOf(n)?.value]);
        return (
          values.filter(([, v]) => v === '2').length === 2 && values.filter(([, v]) => v === '1').length === 2
        );
      },
      30_000,
    );
    assert.ok((await revisionNames()).includes(rev('two')));
    await h.patchPool('gen', { metadata: { annotations: { [UPGRADE_REVISION_ANNOTATION]: '2' } } });
    await eventually(
      'revision 2 nodes on three, request cleared',
      async () => {
        const all = await nodes();
        const moved = [first[0]!, joined].every(
          (name) => current(all.find((n) => n.metadata.name === name)!) === rev('three'),
        );
        const pool = await h.getPool('gen');
        return moved && pool.metadata.annotations?.[UPGRADE_REVISION_ANNOTATION] === undefined;
      },
      60_000,
    );
    await eventually(
      'revision two pruned',
      async () => !(await revisionNames()).includes(rev('two')),
      30_000,
    );
    const names = await revisionNames();
    assert.ok(names.includes(rev('one')), 'revision one is still used');
    assert.ok(names.includes(rev('three')));
    for (const other of first.slice(1)) assert.equal(current(await byName(other)), rev('one'));
  });

  test('an upgrade that fails trips the failure policy: the pool pauses', async () => {
    await h.applyConfig('gen-kubelet', brokenConfig('four'), { pool: 'gen' });
    const broken = revisionNameFor('gen', { 'gen-kubelet': brokenConfig('four') });
    await eventually('target four', async () => (await h.getPool('gen')).status?.targetRevision === broken);
    const target = first[1]!;
    await h.admin.patch(
      `/api/v1/nodes/${target}`,
      { metadata: { annotations: { [UPGRADE_REQUESTED_ANNOTATION]: new Date().toISOString() } } },
      'merge',
    );
    const pool = await eventually(
      'paused by the failure policy',
      async () => {
        const p = await h.getPool('gen');
        return condition(p, 'Paused')?.reason === 'FailurePolicy' ? p : undefined;
      },
      60_000,
    );
    assert.equal(pool.spec.paused, true);
    assert.match(condition(pool, 'Paused')?.message ?? '', new RegExp(target));
    assert.equal(current(await byName(first[2]!)), rev('one'), 'nodes not asked for are untouched');
    // The config is fixed and the pool resumed: the target is revision three again.
    await h.applyConfig('gen-kubelet', kubeletConfig('three'), { pool: 'gen' });
    await h.patchPool('gen', { spec: { paused: false } });
    await eventually(
      'the asked-for node on three',
      async () => current(await byName(target)) === rev('three'),
      60_000,
    );
  });

  test('switching to RollingUpdate converges every node and removes the taints', async () => {
    await h.patchPool('gen', { spec: { updateStrategy: { type: 'RollingUpdate', onDelete: null } } });
    await eventually(
      'every node on three, untainted',
      async () => (await nodes()).every((n) => current(n) === rev('three') && !taintOf(n)),
      90_000,
    );
    await eventually(
      'complete',
      async () => condition(await h.getPool('gen'), 'Complete')?.status === 'True',
      30_000,
    );
  });
});
