// `nodeherd dashboard` as a user runs it: a separate process with a kubeconfig, listening on
// 127.0.0.1 on the port asked for, serving the snapshot of the cluster; Ctrl-C stops it. A kubeconfig
// that leads nowhere is a one-line error before it listens.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { after, before, test } from 'node:test';
import type { DashboardSnapshot } from '../../../src/cli/dashboard/dashboard-model.ts';
import { CliCluster, REPO_ROOT, runCli } from '../support/cli-cluster.ts';

let cluster: CliCluster;

before(async () => {
  cluster = await CliCluster.start();
  await cluster.createPool('web', {
    nodeSelector: { matchLabels: { pool: 'web' } },
    configSelector: { matchLabels: { pool: 'web' } },
  });
});
after(() => cluster?.stop());

test('nodeherd dashboard --port 0: prints its address, serves the cluster, stops on SIGINT', async () => {
  const child = spawn(
    process.execPath,
    ['bin/nodeherd.ts', 'dashboard', '--port', '0', '--kubeconfig', cluster.kubeconfig],
    { cwd: REPO_ROOT, env: { ...process.env, NO_COLOR: '1' }, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => {
    output += chunk.toString('utf8');
  });
  child.stderr.on('data', (chunk: Buffer) => {
    output += chunk.toString('utf8');
  });
  const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
  try {
    const deadline = performance.now() + 120_000;
    const address = () => /: (http:\/\/127\.0\.0\.1:\d+\/\?token=[\w-]+) \(Ctrl-C stops\)/.exec(output)?.[1];
    while (!address()) {
      assert.ok(performance.now() < deadline && child.exitCode === null, `no address printed:\n${output}`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    const url = address()!;
    assert.match(output, new RegExp(`^dashboard of ${cluster.client.server.origin}: `, 'm'));
    // Without the printed URL's secret nothing is answered; opening the URL hands it over as a cookie.
    assert.equal((await fetch(new URL('api/snapshot', url))).status, 401);
    const opened = await fetch(url, { redirect: 'manual' });
    assert.equal(opened.status, 303);
    const cookie = opened.headers.get('set-cookie')!.split(';')[0]!;
    let snapshot: DashboardSnapshot | undefined;
    while (!snapshot) {
      const reply = await fetch(new URL('api/snapshot', url), { headers: { Cookie: cookie } });
      if (reply.status === 200) snapshot = (await reply.json()) as DashboardSnapshot;
      else {
        assert.equal(reply.status, 503, 'reading the cluster');
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    }
    assert.deepEqual(
      snapshot.pools.map((p) => p.name),
      ['web'],
    );
  } finally {
    child.kill('SIGINT');
  }
  assert.equal(await exited, 0, output);
});

test('nodeherd dashboard with a kubeconfig that leads nowhere: one line, exit 1', async () => {
  const result = await runCli(['dashboard', '--port', '0', '--kubeconfig', '/nonexistent/kubeconfig']);
  assert.equal(result.code, 1);
  assert.equal(result.stderr, 'error: cannot use the kubeconfig /nonexistent/kubeconfig: no such file\n');
});
