import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { CliCluster, REPO_ROOT } from './support/cli-cluster.ts';

let cluster: CliCluster;

before(async () => {
  cluster = await CliCluster.start();
  await cluster.createPool('web', {
    nodeSelector: { matchLabels: { role: 'web' } },
    configSelector: { matchLabels: { role: 'web' } },
  });
  await cluster.createNode({ name: 'web-1', labels: { role: 'web' } });
});
after(() => cluster?.stop());

function kubectl(
  args: string[],
  pathFirst: string,
): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(
      'kubectl',
      args,
      {
        // The system node (20) stays on PATH: the plugin must not depend on it.
        env: {
          ...process.env,
          PATH: `${pathFirst}:${process.env.PATH}`,
          HOME: mkdtempSync(join(tmpdir(), 'home-')),
        },
        timeout: 120_000,
      },
      (err, stdout, stderr) => {
        resolve({ code: err ? (typeof err.code === 'number' ? err.code : 1) : 0, stdout, stderr });
      },
    );
  });
}

test('kubectl nodeherd status runs the CLI through bin/kubectl-nodeherd', async () => {
  const result = await kubectl(
    ['nodeherd', 'status', '--kubeconfig', cluster.kubeconfig],
    join(REPO_ROOT, 'bin'),
  );
  assert.equal(result.code, 0, result.stderr);
  assert.match(result.stdout, /pool web {2}RollingUpdate/);
  assert.match(result.stdout, /NODES\s+UPDATED/);
});

test('the plugin finds its package when reached through a symlink (as npm installs bins)', async () => {
  const linkDir = mkdtempSync(join(tmpdir(), 'kubectl-plugins-'));
  symlinkSync(join(REPO_ROOT, 'bin', 'kubectl-nodeherd'), join(linkDir, 'kubectl-nodeherd'));
  const listed = await kubectl(['plugin', 'list'], linkDir);
  assert.match(listed.stdout, /kubectl-nodeherd/);
  const result = await kubectl(
    ['nodeherd', 'status', 'web', '-o', 'json', '--kubeconfig', cluster.kubeconfig],
    linkDir,
  );
  assert.equal(result.code, 0, result.stderr);
  assert.equal(JSON.parse(result.stdout).pools[0].nodes, 1);
  const failed = await kubectl(['nodeherd', 'status', 'nope', '--kubeconfig', cluster.kubeconfig], linkDir);
  assert.equal(failed.code, 1);
  assert.equal(failed.stderr, 'error: no NodeConfigPool named "nope"; known pools: web\n');
});
