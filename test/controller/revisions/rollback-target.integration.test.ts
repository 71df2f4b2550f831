// A revision every node ran healthy is a rollback target even when its rollout's last soak had not
// ended (issue 36): a change broken within seconds of `npm start` rolls back to revision 1 instead of
// pausing with "no earlier revision completed to roll back to".

import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { CURRENT_REVISION_ANNOTATION, STATE_ANNOTATION } from '../../../src/api/node-protocol.ts';
import {
  brokenConfig,
  ClusterHarness,
  condition,
  eventually,
  kubeletConfig,
  revisionNameFor,
} from '../../support/cluster-harness.ts';

let h: ClusterHarness;
before(async () => {
  h = await ClusterHarness.start();
  await h.startController();
});
after(async () => {
  await h?.stop();
});

async function allOn(revision: string): Promise<boolean> {
  const list = await h.nodes('pool=soaking');
  return (
    list.length === 3 &&
    list.every(
      (n) =>
        n.metadata.annotations?.[CURRENT_REVISION_ANNOTATION] === revision &&
        n.metadata.annotations?.[STATE_ANNOTATION] === 'Done' &&
        n.status?.conditions?.find((c) => c.type === 'Ready')?.status === 'True',
    )
  );
}

test('a change broken during a revision’s last soak rolls back to that revision, which every node ran healthy', {
  timeout: 120_000,
}, async () => {
  const nodes = [];
  for (const [i, zone] of ['zone-a', 'zone-b', 'zone-c'].entries())
    nodes.push(await h.fleet.create({ name: `soak-${i}`, zone, labels: { pool: 'soaking' } }));
  await h.fleet.startAll(nodes);
  await h.applyConfig('soaking-kubelet', kubeletConfig('first'), { pool: 'soaking' });
  const first = revisionNameFor('soaking', { 'soaking-kubelet': kubeletConfig('first') });
  const good = revisionNameFor('soaking', { 'soaking-kubelet': kubeletConfig('good') });
  const bad = revisionNameFor('soaking', { 'soaking-kubelet': brokenConfig('bad') });
  await h.createPool('soaking', {
    nodeSelector: { matchLabels: { pool: 'soaking' } },
    configSelector: { matchLabels: { pool: 'soaking' } },
    updateStrategy: {
      type: 'RollingUpdate',
      // One batch of every node and a soak far longer than the test: revision 2 never completes.
      rollingUpdate: {
        maxUnavailable: 3,
        minReadySeconds: 3600,
        progressDeadlineSeconds: 7200,
        failurePolicy: { action: 'Rollback', maxFailures: 0 },
      },
    },
  });
  await eventually('revision 1 complete', async () => {
    const p = await h.getPool('soaking');
    return p.status?.currentRevision === first && condition(p, 'Complete')?.status === 'True';
  });

  await h.applyConfig('soaking-kubelet', kubeletConfig('good'), { pool: 'soaking' });
  await eventually('every node ran revision 2 healthy (its soak running)', () => allOn(good), 60_000);
  const soaking = await h.getPool('soaking');
  assert.equal(soaking.status?.targetRevision, good);
  assert.equal(condition(soaking, 'Complete')?.status, 'False', 'revision 2 is still soaking');

  await h.applyConfig('soaking-kubelet', brokenConfig('bad'), { pool: 'soaking' });
  const rolledBack = await eventually(
    'the failure policy to roll back (or pause)',
    async () => {
      const p = await h.getPool('soaking');
      return condition(p, 'RolledBack')?.status === 'True' || p.spec.paused === true ? p : undefined;
    },
    60_000,
  );
  assert.equal(
    rolledBack.spec.paused ?? false,
    false,
    `rolled back, not paused: ${condition(rolledBack, 'Paused')?.message}`,
  );
  assert.equal(condition(rolledBack, 'RolledBack')?.reason, 'FailurePolicy');
  // Back to revision 2, which every node ran healthy, not to revision 1.
  assert.equal(rolledBack.status?.targetRevision, good);
  assert.equal(rolledBack.metadata.annotations?.['nodeherd.io/rollback-from'], bad);
  assert.equal(rolledBack.metadata.annotations?.['nodeherd.io/rollback-to'], good);
  // The history says why revision 2 counted: every node ran it healthy before its soak ended.
  const second = rolledBack.status?.history?.find((r) => r.name === good);
  assert.equal(second?.result, 'Complete');
  assert.match(second?.message ?? '', /every node ran it healthy/);
  await eventually('every node back on revision 2', () => allOn(good), 60_000);
});
