// Switching a pool's strategy at any time: the artefacts of the strategy it leaves (Spread's
// not-before, OTA's offers) leave its nodes, and the new strategy carries on from where nodes are.

import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import {
  AVAILABLE_REVISION_ANNOTATION,
  CURRENT_REVISION_ANNOTATION,
  NOT_BEFORE_ANNOTATION,
} from '../../../src/api/node-protocol.ts';
import {
  ClusterHarness,
  condition,
  eventually,
  kubeletConfig,
  type NodeObject,
  revisionNameFor,
} from '../../support/cluster-harness.ts';

describe('switching strategies', () => {
  let h: ClusterHarness;
  const rev = (value: string) => revisionNameFor('sw', { 'sw-kubelet': kubeletConfig(value) });
  const nodes = () => h.nodes('pool=sw');
  const a = (n: NodeObject, key: string) => n.metadata.annotations?.[key];

  before(async () => {
    h = await ClusterHarness.start();
    await h.addNodes('sw', 3);
    await h.labelledPool('sw', 'sw-kubelet', kubeletConfig('one'), {
      updateStrategy: { type: 'Spread', spread: { windowSeconds: 3600 } },
    });
    await h.startController();
    await eventually('bootstrap', async () => (await h.nodesOnRevision('pool=sw', rev('one'))) === 3, 60_000);
  });
  after(async () => {
    await h?.stop();
  });

  test('Spread to OTA: the not-before times go, the given revision is kept and applied', async () => {
    await h.applyConfig('sw-kubelet', kubeletConfig('two'), { pool: 'sw' });
    await eventually(
      'nodes waiting for their time',
      async () => (await nodes()).filter((n) => a(n, NOT_BEFORE_ANNOTATION) !== undefined).length >= 2,
      30_000,
    );
    await h.patchPool('sw', { spec: { updateStrategy: { type: 'OTA', spread: null } } });
    await eventually(
      'every node on two, no not-before, no offer',
      async () =>
        (await nodes()).every(
          (n) =>
            a(n, CURRENT_REVISION_ANNOTATION) === rev('two') &&
            a(n, NOT_BEFORE_ANNOTATION) === undefined &&
            a(n, AVAILABLE_REVISION_ANNOTATION) === undefined,
        ),
      60_000,
    );
  });

  test('OTA to RollingUpdate: the offers go and every node converges', async () => {
    await h.applyConfig('sw-kubelet', kubeletConfig('three'), { pool: 'sw' });
    await eventually(
      'offers',
      async () => (await nodes()).every((n) => a(n, AVAILABLE_REVISION_ANNOTATION) === rev('three')),
      30_000,
    );
    await h.patchPool('sw', { spec: { updateStrategy: { type: 'RollingUpdate' } } });
    await eventually(
      'every node on three without an offer',
      async () =>
        (await nodes()).every(
          (n) =>
            a(n, CURRENT_REVISION_ANNOTATION) === rev('three') &&
            a(n, AVAILABLE_REVISION_ANNOTATION) === undefined,
        ),
      90_000,
    );
    const pool = await eventually('complete', async () => {
      const p = await h.getPool('sw');
      return condition(p, 'Complete')?.status === 'True' ? p : undefined;
    });
    assert.equal(condition(pool, 'Progressing')?.reason, 'RolloutComplete');
  });
});
