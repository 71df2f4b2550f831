import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { stringify } from 'yaml';
import type { NodeConfigSpec } from '../../../src/api/types.ts';
import { PATHS } from '../../../src/controller/api-paths.ts';
import { CliCluster } from '../support/cli-cluster.ts';

let cluster: CliCluster;
let r1: string;
let e1: string;
const dir = mkdtempSync(join(tmpdir(), 'nodeherd-plan-'));
const ZONE = 'topology.kubernetes.io/zone';

function nginx(conf: string, extra: Partial<NodeConfigSpec> = {}): NodeConfigSpec {
  return {
    files: [{ path: '/etc/nginx/nginx.conf', content: { inline: { data: conf } } }],
    units: [{ name: 'nginx.service', filePaths: ['/etc/nginx/nginx.conf'] }],
    ...extra,
  };
}

function configDocument(name: string, role: string, spec: NodeConfigSpec): string {
  return stringify({
    apiVersion: 'nodeherd.io/v1alpha1',
    kind: 'NodeConfig',
    metadata: { name, labels: { role } },
    spec,
  });
}

function writeYaml(name: string, text: string): string {
  const path = join(dir, name);
  writeFileSync(path, text);
  return path;
}

before(async () => {
  cluster = await CliCluster.start();
  await cluster.createConfig('web-nginx', nginx('worker_processes 1;\n'), { role: 'web' });
  await cluster.createPool('web', {
    nodeSelector: { matchLabels: { role: 'web' } },
    configSelector: { matchLabels: { role: 'web' } },
    updateStrategy: { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: 2, canary: { nodes: 1 } } },
  });
  r1 = await cluster.createRevision('web', 1, { 'web-nginx': nginx('worker_processes 1;\n') });
  await cluster.setPoolStatus('web', { targetRevision: r1 });
  for (const [name, zone] of [
    ['web-a1', 'a'],
    ['web-a2', 'a'],
    ['web-b1', 'b'],
    ['web-b2', 'b'],
  ] as const) {
    await cluster.createNode({ name, labels: { role: 'web', [ZONE]: zone }, current: r1, state: 'Done' });
  }
  await cluster.createNode({
    name: 'web-a3',
    labels: { role: 'web', [ZONE]: 'a' },
    current: r1,
    ready: false,
  });
  await cluster.createNode({ name: 'web-new', labels: { role: 'web', [ZONE]: 'b' } });

  const edge = { files: [{ path: '/etc/edge', content: { inline: { data: 'one\n' } } }] };
  await cluster.createConfig('edge-base', edge, { role: 'edge' });
  await cluster.createPool('edge', {
    nodeSelector: { matchLabels: { role: 'edge' } },
    configSelector: { matchLabels: { role: 'edge' } },
    updateStrategy: { type: 'Spread', spread: { windowSeconds: 300 } },
  });
  e1 = await cluster.createRevision('edge', 1, { 'edge-base': edge });
  await cluster.setPoolStatus('edge', { targetRevision: e1 });
  for (const name of ['edge-1', 'edge-2', 'edge-3']) {
    await cluster.createNode({ name, labels: { role: 'edge' }, current: e1, state: 'Done' });
  }
});
after(() => cluster?.stop());

async function storeRevision(): Promise<string | undefined> {
  return (await cluster.client.list(PATHS.nodes)).metadata.resourceVersion;
}

test('plan shows the new revision, the changes and every node in canary-first batches; nothing is written', async () => {
  const file = writeYaml(
    'web.yaml',
    configDocument('web-nginx', 'web', nginx('worker_processes 4;\n', { packages: [{ name: 'htop' }] })),
  );
  const before = await storeRevision();
  const poolBefore = (await cluster.getPool('web')).metadata.resourceVersion;
  const result = await cluster.cli(['plan', '-f', file]);
  assert.equal(result.code, 0, result.stderr);
  const out = result.stdout;
  assert.match(out, /pool web {2}RollingUpdate/);
  assert.match(out, /NodeConfig web-nginx: replaces the version on the server/);
  assert.match(
    out,
    new RegExp(
      `new revision 2 \\(web-\\w+\\) from NodeConfigs web-nginx; current target: revision 1 \\(${r1}\\)`,
    ),
  );
  assert.match(out, new RegExp(`from revision 1 \\(${r1}\\), 5 nodes: restart — `));
  assert.match(out, /files changed: \/etc\/nginx\/nginx.conf/);
  assert.match(out, /packages added: htop/);
  // Zones interleaved, canary first, then maxUnavailable 2 per batch; NotReady and new nodes aside.
  const rows = out.split('\n').filter((l) => /^\s+\d( canary)?\s+web-/.test(l));
  assert.deepEqual(
    rows.map((l) => {
      const m = /^\s+(\d(?: canary)?)\s+(\S+)/.exec(l)!;
      return `${m[1]} ${m[2]}`;
    }),
    ['1 canary web-a1', '2 web-b1', '2 web-a2', '3 web-b2'],
  );
  assert.ok(
    rows.every((l) => /restart$/.test(l)),
    rows.join('\n'),
  );
  assert.match(
    out,
    /not in the batches: web-a3 \(NotReady: updated once Ready\), web-new \(bootstrap: gets it at once\)/,
  );
  assert.match(out, /unaffected pools: edge/);
  assert.match(out, /nothing was written/);
  assert.equal(await storeRevision(), before, 'no object changed anywhere');
  assert.equal((await cluster.getPool('web')).metadata.resourceVersion, poolBefore);
});

test('plan -o json: the same plan as data, per node', async () => {
  const file = writeYaml('web2.yaml', configDocument('web-nginx', 'web', nginx('worker_processes 8;\n')));
  const result = await cluster.cli(['plan', '-f', file, '-o', 'json']);
  assert.equal(result.code, 0, result.stderr);
  const report = JSON.parse(result.stdout);
  const web = report.pools[0];
  assert.equal(web.pool, 'web');
  assert.equal(web.revision.number, 2);
  assert.deepEqual(web.groups[0].changes.files.changed, ['/etc/nginx/nginx.conf']);
  const a1 = web.nodes.find((n: { name: string }) => n.name === 'web-a1');
  assert.deepEqual(a1, { name: 'web-a1', zone: 'a', from: r1, action: 'restart', batch: 1 });
  const fresh = web.nodes.find((n: { name: string }) => n.name === 'web-new');
  assert.equal(fresh.note, 'bootstrap: gets it at once');
});

test('plan of an unchanged config (read from stdin) says so', async () => {
  const result = await cluster.cli(['plan', '-f', '-'], {
    input: configDocument('web-nginx', 'web', nginx('worker_processes 1;\n')),
  });
  assert.equal(result.code, 0, result.stderr);
  assert.match(
    result.stdout,
    new RegExp(`no change: the target revision 1 \\(${r1}\\) already has exactly this configuration`),
  );
});

test('plan for a Spread pool shows each node’s start offset in the window', async () => {
  const file = writeYaml(
    'edge.yaml',
    `${configDocument('edge-extra', 'edge', { files: [{ path: '/etc/edge-extra', content: { inline: { data: 'x' } } }] })}---\n${configDocument('web-extra', 'nobody', {})}`,
  );
  const result = await cluster.cli(['plan', '-f', file, '--pool', 'edge']);
  assert.equal(result.code, 0, result.stderr);
  assert.match(result.stdout, /NodeConfig edge-extra: added to the pool/);
  assert.match(result.stdout, /every node starts at its own offset in a 300s window/);
  const starts = result.stdout
    .split('\n')
    .filter((l) => /^\s+\+\d/.test(l))
    .map((l) => l.trim().split(/\s+/).slice(0, 2).join(' '));
  assert.deepEqual(starts, ['+0s edge-1', '+100s edge-2', '+200s edge-3']);
  assert.match(result.stdout, /files added: \/etc\/edge-extra/);
});

test('an invalid file is reported as file:line: field: problem, and nothing else happens', async () => {
  const file = writeYaml(
    'bad.yaml',
    [
      'apiVersion: nodeherd.io/v1alpha1',
      'kind: NodeConfig',
      'metadata:',
      '  name: web-nginx',
      '  labels: {role: web}',
      'spec:',
      '  files:',
      '    - path: /etc/ok',
      '      content: {inline: {data: ok}}',
      '    - path: etc/motd',
      '      content:',
      '        inline: {data: hi}',
      '',
    ].join('\n'),
  );
  const result = await cluster.cli(['plan', '-f', file]);
  assert.equal(result.code, 1);
  assert.equal(result.stderr, `error: ${file}:10: spec.files[1].path: must be an absolute path\n`);
  assert.equal(result.stdout, '');
});

test('plan --pool with an unknown pool lists the known pools; with a pool that does not select the config, says which do', async () => {
  const file = writeYaml('web3.yaml', configDocument('web-nginx', 'web', nginx('x\n')));
  const unknown = await cluster.cli(['plan', '-f', file, '--pool', 'nope']);
  assert.equal(unknown.code, 1);
  assert.equal(unknown.stderr, 'error: no NodeConfigPool named "nope"; known pools: edge, web\n');
  const other = await cluster.cli(['plan', '-f', file, '--pool', 'edge']);
  assert.equal(other.code, 1);
  assert.match(
    other.stderr,
    /^error: pool edge selects none of the NodeConfigs in .*; pools that do: web\n$/,
  );
});

test('plan reads referenced Secrets for the revision hash; a missing Secret stops the plan with exit code 1', async () => {
  await cluster.client.create('/api/v1/namespaces/nodeherd/secrets', {
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: { name: 'tls', namespace: 'nodeherd' },
    data: { key: Buffer.from('secret key material').toString('base64') },
  });
  const withSecret = (name: string) =>
    configDocument('web-tls', 'web', {
      files: [
        {
          path: '/etc/tls/key.pem',
          mode: 0o600,
          content: { secretRef: { namespace: 'nodeherd', name, key: 'key' } },
        },
      ],
    });
  const ok = await cluster.cli(['plan', '-f', writeYaml('tls.yaml', withSecret('tls'))]);
  assert.equal(ok.code, 0, ok.stderr);
  assert.match(ok.stdout, /NodeConfig web-tls: added to the pool/);
  assert.match(ok.stdout, /files added: \/etc\/tls\/key.pem/);
  assert.doesNotMatch(ok.stdout, /secret key material/);
  const missing = await cluster.cli(['plan', '-f', writeYaml('tls2.yaml', withSecret('absent'))]);
  assert.equal(missing.code, 1);
  assert.match(
    missing.stdout,
    /NodeConfig web-tls: spec\.files\[0\]\.content\.secretRef: Secret nodeherd\/absent key key does not exist/,
  );
  assert.equal(missing.stderr, 'error: the NodeConfigs would not render for pool web (see above)\n');
});
