import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { stringify } from 'yaml';
import { renderKubeconfig } from '../../src/kube/kubeconfig-file.ts';
import { CliCluster, runCli } from './support/cli-cluster.ts';

let cluster: CliCluster;
let deadServer: string;

async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as { port: number }).port;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

before(async () => {
  cluster = await CliCluster.start();
  await cluster.createPool('web', {
    nodeSelector: { matchLabels: { role: 'web' } },
    configSelector: { matchLabels: { role: 'web' } },
  });
  deadServer = `https://127.0.0.1:${await closedPort()}`;
});
after(() => cluster?.stop());

/** A kubeconfig with the live cluster as context `live` and a closed port as context `dead`. */
function twoContextKubeconfig(current: 'live' | 'dead'): string {
  const { url, caPem } = cluster.local.server;
  const token = (cluster.local.kubeConfig().getCurrentUser() as { token: string }).token;
  const ca = Buffer.from(caPem).toString('base64');
  const path = join(cluster.local.dataDir, `two-contexts-${current}.yaml`);
  writeFileSync(
    path,
    stringify({
      apiVersion: 'v1',
      kind: 'Config',
      clusters: [
        { name: 'live', cluster: { server: url, 'certificate-authority-data': ca } },
        { name: 'dead', cluster: { server: deadServer, 'certificate-authority-data': ca } },
      ],
      users: [{ name: 'admin', user: { token } }],
      contexts: [
        { name: 'live', context: { cluster: 'live', user: 'admin' } },
        { name: 'dead', context: { cluster: 'dead', user: 'admin' } },
      ],
      'current-context': current,
    }),
    { mode: 0o600 },
  );
  return path;
}

test('an unreachable API server is one line naming the server, exit code 1', async () => {
  const result = await runCli(['status', '--kubeconfig', twoContextKubeconfig('dead')]);
  assert.equal(result.code, 1);
  assert.equal(
    result.stderr,
    `error: cannot reach the API server at ${deadServer}: connect ECONNREFUSED — is \`nodeherd up\` running, or is KUBECONFIG right?\n`,
  );
});

test('KUBECONFIG is honoured, --kubeconfig wins over it, and --context picks the context', async () => {
  const viaEnv = await runCli(['status'], { env: { KUBECONFIG: twoContextKubeconfig('live') } });
  assert.equal(viaEnv.code, 0, viaEnv.stderr);
  assert.match(viaEnv.stdout, /pool web/);
  const flagWins = await runCli(['status', '--kubeconfig', twoContextKubeconfig('live')], {
    env: { KUBECONFIG: twoContextKubeconfig('dead') },
  });
  assert.equal(flagWins.code, 0, flagWins.stderr);
  const context = await runCli(['status', '--context', 'live'], {
    env: { KUBECONFIG: twoContextKubeconfig('dead') },
  });
  assert.equal(context.code, 0, context.stderr);
  assert.match(context.stdout, /pool web/);
  const missing = await runCli([
    'pause',
    'web',
    '--context',
    'nope',
    '--kubeconfig',
    twoContextKubeconfig('live'),
  ]);
  assert.equal(missing.code, 1);
  assert.match(
    missing.stderr,
    /^error: cannot use the kubeconfig .*: context "nope" is not in the kubeconfig \(it has: live, dead\)\n$/,
  );
});

test('a missing kubeconfig file is named', async () => {
  const result = await runCli(['status', '--kubeconfig', '/nonexistent/kubeconfig']);
  assert.equal(result.code, 1);
  assert.equal(result.stderr, 'error: cannot use the kubeconfig /nonexistent/kubeconfig: no such file\n');
});

test('a 403 names the identity, and nothing is written', async () => {
  const token = (
    await runCli(['token', '--data-dir', cluster.local.dataDir, '--node', 'edge-1'])
  ).stdout.trim();
  const path = join(cluster.local.dataDir, 'node.kubeconfig');
  writeFileSync(
    path,
    renderKubeconfig({
      server: cluster.local.server.url,
      caPem: cluster.local.server.caPem,
      token,
      userName: 'edge-agent',
    }),
    { mode: 0o600 },
  );
  const result = await runCli(['pause', 'web', '--kubeconfig', path]);
  assert.equal(result.code, 1);
  assert.match(
    result.stderr,
    /^error: forbidden as kubeconfig user "edge-agent", context "nodeherd": .*User "nodeherd:agent:edge-1" cannot patch resource "nodeconfigpools"/,
  );
  assert.equal(result.stderr.split('\n').length, 2, 'one line');
  assert.equal((await cluster.getPool('web')).spec.paused, false);
});

test('a cluster without the nodeherd.io CRDs is told to install them', async () => {
  const bare = await CliCluster.start({ installCrds: false });
  try {
    const result = await bare.cli(['status']);
    assert.equal(result.code, 1);
    assert.equal(
      result.stderr,
      `error: the API server at ${bare.local.server.url} does not serve nodeherd.io/v1alpha1: install the CRDs (kubectl apply -f deploy/crds/)\n`,
    );
  } finally {
    await bare.stop();
  }
});
