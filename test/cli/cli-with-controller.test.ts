// The CLI against the real rollout controller and simulated nodes running the real agent: plan
// predicts the revision the controller then makes, pause/resume/rollback steer it, status follows it.

import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { stringify } from 'yaml';
import type { FleetStatus } from '../../src/cli/status/status-view.ts';
import {
  ClusterHarness,
  condition,
  eventually,
  kubeletConfig,
  revisionNameFor,
} from '../support/cluster-harness.ts';
import { runCli } from './support/cli-cluster.ts';

let h: ClusterHarness;

before(async () => {
  h = await ClusterHarness.start();
  await h.startController();
});
after(() => h?.stop());

function cli(...args: string[]) {
  return runCli([...args, '--kubeconfig', h.local.kubeconfigPath]);
}

async function status(): Promise<FleetStatus['pools'][number]> {
  const result = await cli('status', 'steer', '-o', 'json');
  assert.equal(result.code, 0, result.stderr);
  return (JSON.parse(result.stdout) as FleetStatus).pools[0]!;
}

test('plan predicts the controller’s revision; pause holds it, resume rolls it out, rollback returns', async () => {
  const nodes = [];
  for (const [i, zone] of ['zone-a', 'zone-b', 'zone-c'].entries()) {
    nodes.push(await h.fleet.create({ name: `steer-${i}`, zone, labels: { pool: 'steer' } }));
  }
  await h.fleet.startAll(nodes);
  await h.applyConfig('steer-kubelet', kubeletConfig('one'), { pool: 'steer' });
  await h.createPool('steer', {
    nodeSelector: { matchLabels: { pool: 'steer' } },
    configSelector: { matchLabels: { pool: 'steer' } },
    updateStrategy: { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: 1 } },
  });
  const one = revisionNameFor('steer', { 'steer-kubelet': kubeletConfig('one') });
  await eventually(
    'revision 1 everywhere',
    async () => {
      const s = await status();
      return s.counts.ready === 3 && s.target?.name === one;
    },
    60_000,
    250,
  );

  const file = join(h.local.dataDir, 'two.yaml');
  writeFileSync(
    file,
    stringify({
      apiVersion: 'nodeherd.io/v1alpha1',
      kind: 'NodeConfig',
      metadata: { name: 'steer-kubelet', labels: { pool: 'steer' } },
      spec: kubeletConfig('two'),
    }),
  );
  const planned = await cli('plan', '-f', file, '-o', 'json');
  assert.equal(planned.code, 0, planned.stderr);
  const plan = JSON.parse(planned.stdout).pools[0];
  assert.equal(plan.revision.number, 2);
  assert.deepEqual(
    plan.nodes.map((n: { name: string; action: string; batch: number }) => [n.name, n.action, n.batch]),
    [
      ['steer-0', 'restart', 1],
      ['steer-1', 'restart', 2],
      ['steer-2', 'restart', 3],
    ],
  );

  assert.equal((await cli('pause', 'steer')).code, 0);
  await h.applyConfig('steer-kubelet', kubeletConfig('two'), { pool: 'steer' });
  const paused = await eventually(
    'the new target, held by the pause',
    async () => {
      const s = await status();
      return s.target?.name === plan.revision.name && s.paused ? s : undefined;
    },
    30_000,
    250,
  );
  assert.equal(paused.counts.updated, 0, 'no node starts while paused');
  assert.equal(paused.target?.number, 2);

  assert.equal((await cli('resume', 'steer')).code, 0);
  await eventually('revision 2 everywhere', async () => (await status()).counts.ready === 3, 90_000, 250);

  const rollback = await cli('rollback', 'steer');
  assert.equal(rollback.code, 0, rollback.stderr);
  assert.match(rollback.stdout, new RegExp(`rollback to revision 1 \\(${one}\\) requested`));
  const back = await eventually(
    'back on revision 1',
    async () => {
      const s = await status();
      return s.target?.name === one && s.counts.ready === 3 ? s : undefined;
    },
    90_000,
    250,
  );
  assert.ok(
    back.conditions.some((c) => c.type === 'RolledBack' && c.status === 'True'),
    JSON.stringify(back.conditions),
  );
  assert.equal(condition(await h.getPool('steer'), 'RolledBack')?.status, 'True');
});
