// Failure policy against simulated nodes whose kubelet dies with a bad revision: Pause stops the
// rollout and says why; Rollback returns every node to the last completed revision.

import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { CURRENT_REVISION_ANNOTATION } from '../../../src/api/node-protocol.ts';
import {
  brokenConfig,
  type ClusterHarness,
  complete,
  condition,
  kubeletConfig,
  type PoolObject,
  revisionNameFor,
  rollingUpdate,
} from '../../support/cluster-harness.ts';
import { clusterPerSuite } from '../../support/suite-cluster.ts';

const poolWhere = (
  h: ClusterHarness,
  name: string,
  what: string,
  ok: (p: PoolObject) => boolean,
  ms = 30_000,
) => h.poolWhere(name, what, ok, ms);

describe('failure policy', () => {
  let h: ClusterHarness;
  clusterPerSuite((started) => {
    h = started;
  });

  test('Pause: a failed node stops the rollout, the pool says why, and a fixed config goes on', async () => {
    const bad = revisionNameFor('pausing', { 'pausing-kubelet': brokenConfig('bad') });
    // The first node in rollout order (zone-a, lowest name) is the first to fail with the bad revision.
    await h.startNodes('pausing', 4, { prefix: 'pause', zones: ['zone-a', 'zone-b', 'zone-c'] });
    const good = await h.poolOnFirstRevision('pausing', 'pausing-kubelet', kubeletConfig('good'), {
      updateStrategy: rollingUpdate({
        progressDeadlineSeconds: 20,
        failurePolicy: { action: 'Pause', maxFailures: 0 },
      }),
    });

    await h.applyConfig('pausing-kubelet', brokenConfig('bad'), { pool: 'pausing' });
    const paused = await poolWhere(
      h,
      'pausing',
      'paused by the failure policy',
      (p) => condition(p, 'Paused')?.reason === 'FailurePolicy',
    );
    assert.equal(paused.spec.paused, true);
    assert.equal(paused.status?.targetRevision, bad);
    assert.equal(paused.status?.failed, 1);
    assert.match(condition(paused, 'Paused')?.message ?? '', /pause-0/);
    assert.equal(condition(paused, 'Degraded')?.reason, 'NodesFailed');
    assert.equal(condition(paused, 'Progressing')?.status, 'False');
    assert.equal(paused.status?.history?.at(-1)?.result, 'Failed');
    // No other node was touched.
    const others = (await h.nodes('pool=pausing')).filter((n) => n.metadata.name !== 'pause-0');
    for (const n of others)
      assert.equal(n.metadata.annotations?.[CURRENT_REVISION_ANNOTATION], good.status?.targetRevision);
    const events = await h.events('Node', 'pause-0');
    assert.ok(
      events.some((e) => e.reason === 'UpdateFailed' && e.type === 'Warning'),
      JSON.stringify(events),
    );

    // Resuming with the failure still there pauses again; a fixed config rolls out everywhere.
    await h.applyConfig('pausing-kubelet', kubeletConfig('fixed'), { pool: 'pausing' });
    await h.patchPool('pausing', { spec: { paused: false } });
    const fixed = revisionNameFor('pausing', { 'pausing-kubelet': kubeletConfig('fixed') });
    const done = await poolWhere(h, 'pausing', 'fixed revision complete', complete(fixed));
    assert.equal(done.status?.updated, 4);
    assert.equal(condition(done, 'Paused')?.status, 'False');
    assert.equal(condition(done, 'Degraded')?.status, 'False');
  });

  test('Rollback: every node returns to the last completed revision, and stays there', async () => {
    const bad = revisionNameFor('rollback', { 'rollback-kubelet': brokenConfig('bad') });
    await h.startNodes('rollback', 5, { prefix: 'rb', zones: ['zone-a', 'zone-b'] });
    const good = await h.poolOnFirstRevision('rollback', 'rollback-kubelet', kubeletConfig('good'), {
      // Two nodes at a time; one failure is tolerated, the second rolls the pool back.
      updateStrategy: rollingUpdate({
        maxUnavailable: 2,
        progressDeadlineSeconds: 20,
        failurePolicy: { action: 'Rollback', maxFailures: 1 },
      }),
    });
    const goodRevision = good.status!.targetRevision!;

    await h.applyConfig('rollback-kubelet', brokenConfig('bad'), { pool: 'rollback' });
    const rolledBack = await poolWhere(
      h,
      'rollback',
      'rolled back and complete',
      (p) =>
        condition(p, 'RolledBack')?.status === 'True' &&
        p.status?.targetRevision === goodRevision &&
        condition(p, 'Complete')?.status === 'True',
      40_000,
    );
    assert.equal(condition(rolledBack, 'RolledBack')?.reason, 'FailurePolicy');
    assert.match(
      condition(rolledBack, 'RolledBack')?.message ?? '',
      /2 nodes failed revision .* \(maxFailures 1\)/,
    );
    assert.deepEqual(
      rolledBack.status?.history?.map((r) => [r.name, r.result]),
      [
        [goodRevision, 'Complete'],
        [bad, 'RolledBack'],
        [goodRevision, 'Complete'],
      ],
    );
    assert.equal(rolledBack.metadata.annotations?.['nodeherd.io/rollback-from'], bad);
    for (const n of await h.nodes('pool=rollback')) {
      assert.equal(n.metadata.annotations?.[CURRENT_REVISION_ANNOTATION], goodRevision, n.metadata.name);
      assert.notEqual(n.spec?.unschedulable, true);
    }
    // The rendering still says "bad", but the pool stays on the good revision.
    await new Promise((r) => setTimeout(r, 300));
    assert.equal((await h.getPool('rollback')).status?.targetRevision, goodRevision);

    // A new config ends the rollback.
    await h.applyConfig('rollback-kubelet', kubeletConfig('better'), { pool: 'rollback' });
    const better = revisionNameFor('rollback', { 'rollback-kubelet': kubeletConfig('better') });
    const after = await poolWhere(h, 'rollback', 'new revision complete', complete(better));
    assert.equal(condition(after, 'RolledBack')?.status, 'False');
    assert.equal(after.metadata.annotations?.['nodeherd.io/rollback-from'], undefined);
  });
});
