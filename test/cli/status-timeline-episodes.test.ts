// issue 36, "the timeline forgets failures": a timeline rebuilt after the fact (`nodeherd status
// --timeline`, and the dashboard's model on its first look) shows what the pool's status recorded as it
// happened (status.episodes): the failed canary's mark after the automatic rollback, a NotReady blip,
// and a node done before a restart stays done through the downtime (not applying until its Ready
// condition's new transition). Each of these fails on the code before episodes (reconstruction only).

import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { REBOOT_REQUESTED_ANNOTATION } from '../../src/api/node-protocol.ts';
import { DashboardModel } from '../../src/cli/dashboard/dashboard-model.ts';
import { nodeState } from '../../src/cli/dashboard/timeline.ts';
import {
  DRAINING_FOR_ANNOTATION,
  ROLLBACK_FROM_ANNOTATION,
  UPDATE_STARTED_ANNOTATION,
} from '../../src/controller/annotations.ts';
import { nodeConfigPoolPath } from '../../src/controller/api-paths.ts';
import type { Node } from '../../src/kube/types.ts';
import { CliCluster, fileConfig } from './support/cli-cluster.ts';

let cluster: CliCluster;
const now = Date.now();
const iso = (ago: number) => new Date(now - ago * 1000).toISOString();
const started = (ago: number) => ({ [UPDATE_STARTED_ANNOTATION]: iso(ago) });

before(async () => {
  cluster = await CliCluster.start();
  // workers: revision 2 failed on its canary w-1 and the failure policy rolled the pool back to 1.
  await cluster.createPool('workers', {
    nodeSelector: { matchLabels: { pool: 'workers' } },
    configSelector: { matchLabels: { pool: 'workers' } },
  });
  const r1 = await cluster.createRevision('workers', 1, { c: fileConfig('/etc/v', '1\n') });
  const r2 = await cluster.createRevision('workers', 2, { c: fileConfig('/etc/v', '2\n') });
  await cluster.client.patch(
    nodeConfigPoolPath('workers'),
    { metadata: { annotations: { [ROLLBACK_FROM_ANNOTATION]: r2 } } },
    'merge',
  );
  await cluster.setPoolStatus('workers', {
    targetRevision: r1,
    history: [
      { revision: 1, name: r1, startedAt: iso(3600), finishedAt: iso(3500), result: 'Complete' },
      { revision: 2, name: r2, startedAt: iso(120), finishedAt: iso(90), result: 'RolledBack' },
      { revision: 1, name: r1, startedAt: iso(90), result: 'InProgress', message: `rollback from ${r2}` },
    ],
    episodes: [
      {
        node: 'w-1',
        kind: 'Failed',
        revision: r2,
        from: iso(110),
        to: iso(88),
        message: 'revision failed: unit kubelet.service failed (failed)\njournalctl …',
      },
      { node: 'w-1', kind: 'RolledBack', revision: r1, from: iso(80) },
      { node: 'w-2', kind: 'NotReady', from: iso(60), to: iso(50), message: 'KubeletNotReady' },
      { node: 'w-3', kind: 'Drain', revision: r1, from: iso(75), to: iso(65), message: 'PDB web' },
      { node: 'w-3', kind: 'Reboot', revision: r1, from: iso(60), to: iso(50) },
    ],
  });
  const labels = { pool: 'workers' };
  await cluster.createNode({ name: 'w-1', labels, current: r1, state: 'Done', annotations: started(85) });
  await cluster.createNode({ name: 'w-2', labels, current: r1, state: 'Done', annotations: started(3550) });
  await cluster.createNode({ name: 'w-3', labels, current: r1, state: 'Done', annotations: started(3550) });

  // steady: s-1 finished at -95 s; then `up` restarted: its Ready condition turned True again just now.
  await cluster.createPool('steady', {
    nodeSelector: { matchLabels: { pool: 'steady' } },
    configSelector: { matchLabels: { pool: 'steady' } },
    updateStrategy: { type: 'RollingUpdate', rollingUpdate: { minReadySeconds: 3 } },
  });
  const s1 = await cluster.createRevision('steady', 1, { c: fileConfig('/etc/s', '1\n') });
  await cluster.setPoolStatus('steady', {
    targetRevision: s1,
    history: [{ revision: 1, name: s1, startedAt: iso(100), finishedAt: iso(95), result: 'Complete' }],
    episodes: [{ node: 's-1', kind: 'Updated', revision: s1, from: iso(95) }],
  });
  await cluster.createNode({
    name: 's-1',
    labels: { pool: 'steady' },
    current: s1,
    state: 'Done',
    annotations: started(100),
  });
});
after(() => cluster?.stop());

function row(stdout: string, name: string): string {
  return stdout.split('\n').find((l) => l.trimStart().startsWith(`${name} `)) ?? '';
}

describe('status --timeline keeps what happened (issue 36)', () => {
  it("shows the failed canary's mark after the automatic rollback", async () => {
    const result = await cluster.cli(['status', 'workers', '--timeline']);
    assert.equal(result.code, 0, result.stderr);
    assert.match(result.stdout, /timeline of workers-[0-9a-f]+: .*\(2m, /, 'from the failed rollout on');
    assert.match(row(result.stdout, 'w-1'), /X+/, result.stdout);
    assert.match(row(result.stdout, 'w-1'), /\| rolled back$/);
  });

  it('shows a NotReady episode after the node is Ready again, and drains and reboots', async () => {
    const result = await cluster.cli(['status', 'workers', '--timeline']);
    assert.match(row(result.stdout, 'w-2'), /=+!+=+\| done$/, result.stdout);
    assert.match(row(result.stdout, 'w-3'), /=+d+=*b+=+\| done$/, result.stdout);
    assert.match(result.stdout, /d draining {2}b rebooting/);
  });

  it('does not repaint a node done before a restart as applying through the downtime', async () => {
    const result = await cluster.cli(['status', 'steady', '--timeline', '--max-rows', '5']);
    assert.equal(result.code, 0, result.stderr);
    const bar = /\|([^|]*)\|/.exec(row(result.stdout, 's-1'))?.[1] ?? '';
    const applying = [...bar].filter((c) => c === 'a').length;
    assert.ok(applying <= bar.length / 10, `applying for ${applying} of ${bar.length} characters: ${bar}`);
    assert.match(bar, /=+$/);
  });

  it('the dashboard, rebuilt later, shows the same', async () => {
    const model = new DashboardModel(cluster.client, { throttleMs: 0 });
    try {
      await model.synced;
      const pools = model.snapshot?.pools ?? [];
      const track = (pool: string, node: string) =>
        pools.find((p) => p.name === pool)?.timeline.tracks.find((t) => t.name === node)?.segments ?? [];
      assert.ok(
        track('workers', 'w-1').some((s) => s.state === 'failed'),
        'failed mark',
      );
      assert.ok(
        track('workers', 'w-2').some((s) => s.state === 'notready'),
        'NotReady mark',
      );
      // The failure behind the rollback, in the agent's words, to unfold under the timeline.
      const failures = pools.find((p) => p.name === 'workers')?.failures ?? [];
      assert.deepEqual(
        failures.map((f) => [f.node, f.current, f.summary, f.excerpt]),
        [['w-1', false, 'revision failed: unit kubelet.service failed (failed)', 'journalctl …']],
      );
      // Ready again just now (the restart): not soaking again, done since its recorded arrival.
      const steady = track('steady', 's-1');
      assert.equal(steady.at(-1)?.state, 'done', JSON.stringify(steady));
      const soak = steady.find((s) => s.state === 'soaking');
      assert.ok(!soak || (soak.to ?? now) - soak.from <= 3500, JSON.stringify(steady));
      const applying = track('steady', 's-1').find((s) => s.state === 'applying');
      assert.ok(
        applying && (applying.to ?? now) - applying.from <= 6000,
        JSON.stringify(track('steady', 's-1')),
      );
    } finally {
      await model.stop();
    }
  });

  it('classifies a node being drained or rebooted live (the dashboard records it as it happens)', () => {
    const context = {
      target: 'p-2',
      startedAt: now - 60_000,
      minReadySeconds: 0,
      rollbackFrom: undefined,
      zoneLabel: 'z',
    };
    const node = (annotations: Record<string, string>): Node =>
      ({
        metadata: { name: 'n', annotations: { 'nodeherd.io/current-revision': 'p-1', ...annotations } },
        status: { conditions: [{ type: 'Ready', status: 'True', lastTransitionTime: iso(600) }] },
      }) as unknown as Node;
    assert.equal(nodeState(node({ [DRAINING_FOR_ANNOTATION]: 'p-2' }), context, now), 'draining');
    assert.equal(
      nodeState(
        node({ 'nodeherd.io/desired-revision': 'p-2', [REBOOT_REQUESTED_ANNOTATION]: 'r1' }),
        context,
        now,
      ),
      'rebooting',
    );
  });
});
