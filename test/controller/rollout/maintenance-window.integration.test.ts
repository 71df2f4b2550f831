// Maintenance windows with a controller whose clock is set just before or inside a window: outside
// every window no node starts (nodes in flight finish), and progress resumes when the next one opens.

import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { DESIRED_REVISION_ANNOTATION } from '../../../src/api/node-protocol.ts';
import {
  ClusterHarness,
  condition,
  kubeletConfig,
  type PoolObject,
  revisionNameFor,
  rollingUpdate,
} from '../../support/cluster-harness.ts';

describe('maintenance windows', () => {
  let h: ClusterHarness;
  let offset = 0;
  /** Sets the controller's clock to `iso` now (it runs on from there). */
  const setClock = (iso: string) => {
    offset = Date.parse(iso) - Date.now();
  };

  const poolWhere = (what: string, ok: (p: PoolObject) => boolean, ms = 20_000) =>
    h.poolWhere('windowed', what, ok, ms);
  async function onRevision(revision: string): Promise<string[]> {
    return (await h.nodes('pool=windowed'))
      .filter((n) => n.metadata.annotations?.[DESIRED_REVISION_ANNOTATION] === revision)
      .map((n) => n.metadata.name);
  }

  before(async () => {
    h = await ClusterHarness.start();
    await h.startController({ now: () => Date.now() + offset });
    setClock('2030-01-07T02:59:57Z');
    await h.addNodes('windowed', 3);
    await h.labelledPool('windowed', 'windowed-kubelet', kubeletConfig('a'), {
      updateStrategy: rollingUpdate({
        maintenanceWindows: [{ schedule: '0 3 * * *', duration: '1m', timeZone: 'UTC' }],
      }),
    });
  });
  after(async () => {
    await h?.stop();
  });

  test('new nodes get their first revision outside any window (bootstrap is not an update)', async () => {
    const pool = await poolWhere('bootstrapped', (p) => condition(p, 'Complete')?.status === 'True', 10_000);
    assert.equal(pool.status?.updated, 3);
  });

  test('a change outside the window waits, and rolls out when the window opens', async () => {
    setClock('2030-01-07T02:59:57Z');
    await h.applyConfig('windowed-kubelet', kubeletConfig('b'), { pool: 'windowed' });
    const b = revisionNameFor('windowed', { 'windowed-kubelet': kubeletConfig('b') });
    const waiting = await poolWhere(
      'waiting for the window',
      (p) => condition(p, 'Progressing')?.reason === 'OutsideMaintenanceWindow',
    );
    assert.match(condition(waiting, 'Progressing')?.message ?? '', /next opens at 2030-01-07T03:00:00.000Z/);
    assert.equal(waiting.status?.nextWindowOpen, '2030-01-07T03:00:00Z', 'the next opening is in the status');
    assert.equal(waiting.status?.windowClosesAt, undefined);
    assert.deepEqual(await onRevision(b), []);
    const done = await poolWhere(
      'complete inside the window',
      (p) => p.status?.targetRevision === b && condition(p, 'Complete')?.status === 'True',
    );
    assert.equal(done.status?.updated, 3);
  });

  test('a window that closes mid-rollout stops new starts; the next window finishes the job', async () => {
    // The first node soaks for 3 s, longer than the 1.5 s left: the others cannot start in this window.
    await h.patchPool('windowed', { spec: { updateStrategy: { rollingUpdate: { minReadySeconds: 3 } } } });
    setClock('2030-01-07T03:00:58.500Z');
    await h.applyConfig('windowed-kubelet', kubeletConfig('c'), { pool: 'windowed' });
    const c = revisionNameFor('windowed', { 'windowed-kubelet': kubeletConfig('c') });
    const stopped = await poolWhere(
      'stopped by the closing window',
      (p) =>
        p.status?.targetRevision === c && condition(p, 'Progressing')?.reason === 'OutsideMaintenanceWindow',
    );
    assert.match(condition(stopped, 'Progressing')?.message ?? '', /next opens at 2030-01-08T03:00:00.000Z/);
    const started = await onRevision(c);
    assert.equal(started.length, 1, `one node started in the window: ${started}`);
    await new Promise((r) => setTimeout(r, 1_500));
    assert.deepEqual(await onRevision(c), started, 'no node starts outside the window');

    // The next day, just before the window: a nudge (any pool change) and the requeue do the rest.
    setClock('2030-01-08T02:59:59Z');
    await h.patchPool('windowed', { metadata: { annotations: { nudge: '1' } } });
    const done = await poolWhere(
      'complete in the next window',
      (p) => p.status?.targetRevision === c && condition(p, 'Complete')?.status === 'True',
    );
    assert.equal(done.status?.updated, 3);
    // Idle, the status still shows the opening after the one in progress.
    const idle = await poolWhere(
      'next opening shown',
      (p) => p.status?.nextWindowOpen === '2030-01-09T03:00:00Z',
    );
    assert.ok(idle.status?.nextWindowOpen);
  });
});
