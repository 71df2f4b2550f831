// Every view tells the truth (issue 36), on `nodeherd up`'s cluster (embedded API server, rollout
// controller, five simulated nodes running the real agent, the sample pool) driven as a user drives it:
// kubectl for the objects, the nodeherd CLI for the views, the dashboard's plan over HTTP.
// - `plan` and the dashboard's pending change honour a rollback's pin;
// - `plan` previews a change to a pool from a file (selectors, strategy);
// - a pause the failure policy set says so and how to resume; once the config is reverted, `status`
//   lists no failed node for a revision that is not the target;
// - WAITING counts the nodes that wait (in `status` and `kubectl get -o wide`);
// - `kubectl get nodeconfigrevisions` as the docs say to run it lists revisions in number order;
// - the ETA `plan` and `status` print at the start is within ±25 % of the rollout's real duration
//   (soaks and batches dominate it, so it holds on a loaded machine).

import assert from 'node:assert/strict';
import { execFile, execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { CURRENT_REVISION_ANNOTATION, STATE_ANNOTATION } from '../../src/api/node-protocol.ts';
import { serveUpDashboard, type UpDashboard } from '../../src/cli/dashboard/up-dashboard.ts';
import type { KubeClient } from '../../src/kube/kube-client.ts';
import { LocalCluster } from '../../src/up/local-cluster.ts';
import { eventually as pollUntil } from '../support/eventually.ts';
import { REPO_ROOT, runCli } from './support/cli-cluster.ts';

const GROUP = '/apis/nodeherd.io/v1alpha1';
const BAD_CHANGE = 'examples/break-it/nodeconfig-bad-max-pods.yaml';
const NODES = 5;

interface PoolObject {
  metadata: { annotations?: Record<string, string> };
  spec: { paused?: boolean };
  status?: {
    targetRevision?: string;
    conditions?: { type: string; status: string; reason?: string; message?: string }[];
  };
}
interface NodeObject {
  metadata: { name: string; annotations?: Record<string, string> };
}

const stateDir = mkdtempSync(join(tmpdir(), 'nodeherd-views-'));
let cluster: LocalCluster | undefined;
let dashboard: UpDashboard | undefined;
const hasKubectl = (() => {
  try {
    execFileSync('kubectl', ['version', '--client'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
})();

before(async () => {
  if (!hasKubectl) return;
  cluster = await LocalCluster.start({ stateDir, nodes: NODES, port: 0, nodeApiPort: 0 });
  dashboard = await serveUpDashboard(cluster);
});
after(async () => {
  await dashboard?.stop();
  await cluster?.stop();
  rmSync(stateDir, { recursive: true, force: true });
});

const NO_KUBECTL = 'kubectl is not installed (.ci/run installs Debian’s kubernetes-client)';
const skip = () => (hasKubectl ? false : NO_KUBECTL);

function eventually<T>(what: string, check: () => Promise<T | undefined | false>, timeoutMs = 120_000) {
  return pollUntil(what, check, timeoutMs, 200);
}

function kubectl(args: string[]): Promise<{ code: number; out: string }> {
  return new Promise((resolve) => {
    execFile(
      'kubectl',
      args,
      { cwd: REPO_ROOT, env: { ...process.env, KUBECONFIG: cluster!.kubeconfigPath } },
      (error, stdout, stderr) =>
        resolve({
          code: error ? (typeof error.code === 'number' ? error.code : 1) : 0,
          out: stdout + stderr,
        }),
    );
  });
}

async function kubectlOk(args: string[]): Promise<string> {
  const result = await kubectl(args);
  assert.equal(result.code, 0, `kubectl ${args.join(' ')}: ${result.out}`);
  return result.out;
}

async function cli(args: string[]): Promise<string> {
  const result = await runCli([...args, '--kubeconfig', cluster!.kubeconfigPath]);
  assert.equal(result.code, 0, `nodeherd ${args.join(' ')}: ${result.stderr}${result.stdout}`);
  return result.stdout;
}

const pool = () => cluster!.admin.get<PoolObject>(`${GROUP}/nodeconfigpools/workers`);
const nodes = async (client: KubeClient) =>
  (await client.list<never>('/api/v1/nodes')).items as unknown as NodeObject[];
const condition = (p: PoolObject, type: string) => p.status?.conditions?.find((c) => c.type === type);

/** Every node Done on the pool's target, and the pool Complete: the revision's name. */
async function settled(): Promise<string | undefined> {
  const p = await pool();
  const target = p.status?.targetRevision;
  if (!target || condition(p, 'Complete')?.status !== 'True') return undefined;
  const list = await nodes(cluster!.admin);
  return list.length === NODES &&
    list.every(
      (n) =>
        n.metadata.annotations?.[CURRENT_REVISION_ANNOTATION] === target &&
        n.metadata.annotations?.[STATE_ANNOTATION] === 'Done',
    )
    ? target
    : undefined;
}

/** The sample NodeConfig with another maxPods, as a user's edited copy. */
function sampleWith(maxPods: number): string {
  const text = readFileSync(join(REPO_ROOT, 'deploy/samples/nodeconfig.yaml'), 'utf8');
  assert.match(text, /maxPods: 110/);
  const path = join(stateDir, `nodeconfig-${maxPods}.yaml`);
  writeFileSync(path, text.replace('maxPods: 110', `maxPods: ${maxPods}`));
  return path;
}

/** "ETA  about 1m 5s (…)" → 65. */
function etaSeconds(text: string): number {
  const m = /ETA\s+(?:none while paused; once resumed, )?about (?:(\d+)m)? ?(?:(\d+)s)?/.exec(text);
  assert.ok(m && (m[1] || m[2]), `an ETA in:\n${text}`);
  return Number(m[1] ?? 0) * 60 + Number(m[2] ?? 0);
}

function withinQuarter(eta: number, measured: number, what: string): void {
  assert.ok(
    Math.abs(eta - measured) <= 0.25 * measured,
    `${what}: ETA ${eta}s against a rollout of ${measured.toFixed(1)}s (more than 25 % off)`,
  );
}

test('the ETA plan and status print at the start is within 25 % of the rollout’s duration', {
  skip: skip(),
  timeout: 300_000,
}, async (t) => {
  await eventually('the sample on every node', settled);
  // Batches of two after the canary, each soaking 8 s: the rollout's time is mostly soaks and batches.
  await kubectlOk([
    'patch',
    'nodeconfigpool',
    'workers',
    '--type',
    'merge',
    '-p',
    '{"spec":{"updateStrategy":{"rollingUpdate":{"maxUnavailable":2,"minReadySeconds":8}}}}',
  ]);
  const change = sampleWith(100);
  const planned = await cli(['plan', '-f', change]);
  assert.match(planned, /ETA {2}about \d+s \(3 batches; each soaking 8s; done by \S+\) if applied now/);
  const planEta = etaSeconds(planned);

  const applied = Date.now();
  await kubectlOk(['apply', '-f', change]);
  const previous = (await pool()).status?.targetRevision;
  // `status` as soon as it shows the new rollout.
  const started = await eventually('status to show the rollout', async () => {
    const at = Date.now();
    const out = await cli(['status', 'workers']);
    const p = await pool();
    return p.status?.targetRevision !== previous && /ETA/.test(out) ? { out, at } : undefined;
  });
  const statusEta = etaSeconds(started.out);
  const done = await eventually('the rollout to complete', settled, 240_000);
  const finished = Date.now();
  assert.notEqual(done, previous);
  t.diagnostic(
    `plan ETA ${planEta}s, rollout ${((finished - applied) / 1000).toFixed(1)}s; status ETA ${statusEta}s, rest ${((finished - started.at) / 1000).toFixed(1)}s`,
  );
  withinQuarter(planEta, (finished - applied) / 1000, 'plan');
  withinQuarter(statusEta, (finished - started.at) / 1000, 'status');
  // Done: no ETA any more.
  assert.doesNotMatch(await cli(['status', 'workers']), /ETA/);
});

test('plan and the dashboard’s pending change honour a rollback’s pin', {
  skip: skip(),
  timeout: 300_000,
}, async () => {
  const good = await eventually('the pool settled', settled);
  await kubectlOk(['apply', '-f', BAD_CHANGE]);
  await eventually('the failure policy to pin the pool', async () => {
    const p = await pool();
    return condition(p, 'RolledBack')?.status === 'True' && (await settled()) === good;
  });
  const pinned = await pool();
  const bad = pinned.metadata.annotations?.['nodeherd.io/rollback-from'];
  assert.ok(bad);

  // The file that was rolled back: the pin holds it, nothing rolls out.
  const held = await cli(['plan', '-f', BAD_CHANGE]);
  assert.match(
    held,
    new RegExp(`held: a rollback pinned the pool to revision \\d+ \\(${good}\\), holding back`),
  );
  assert.doesNotMatch(held, /new revision/);
  assert.doesNotMatch(held, /ETA/);
  assert.doesNotMatch(held, /BATCH/);

  // The dashboard's "pending change" is the NodeConfigs on the server: the same held revision.
  const base = new URL(dashboard!.url);
  const token = base.searchParams.get('token')!;
  const response = await fetch(new URL('api/pools/workers/plan', base.href.replace(/\?.*$/, '')), {
    headers: { Authorization: `Bearer ${token}` },
  });
  assert.equal(response.status, 200);
  const body = (await response.json()) as { text: string };
  assert.match(body.text, /held: a rollback pinned the pool/);
  assert.doesNotMatch(body.text, /new revision/);

  // Another configuration ends the pin: plan says so, and rolls it out.
  const other = await cli(['plan', '-f', sampleWith(90)]);
  assert.match(other, /ends the rollback pin/);
  assert.match(other, /new revision \d+/);

  // Back to the good configuration (the one the pool runs): the pin ends, nothing to roll out.
  await kubectlOk(['apply', '-f', sampleWith(100)]);
  await eventually('the pin to end', async () => {
    const p = await pool();
    return p.metadata.annotations?.['nodeherd.io/rollback-from'] === undefined && (await settled()) === good;
  });
});

test('a failure-policy pause says so and how to resume; WAITING counts waiting nodes; a reverted config leaves no stale failure', {
  skip: skip(),
  timeout: 300_000,
}, async () => {
  const good = await eventually('the pool settled', settled);
  await kubectlOk([
    'patch',
    'nodeconfigpool',
    'workers',
    '--type',
    'merge',
    '-p',
    '{"spec":{"updateStrategy":{"rollingUpdate":{"maxUnavailable":1,"minReadySeconds":3,"failurePolicy":{"action":"Pause"}}}}}',
  ]);
  await kubectlOk(['apply', '-f', BAD_CHANGE]);
  const paused = await eventually('the failure policy to pause the pool', async () => {
    const p = await pool();
    return condition(p, 'Paused')?.reason === 'FailurePolicy' ? p : undefined;
  });
  const bad = paused.status?.targetRevision;
  assert.notEqual(bad, good);

  const status = await eventually('status to show the failure', async () => {
    const out = await cli(['status', 'workers']);
    return /FAILED/.test(out) && /\n {2}5\s+0\s+0\s+0\s+4\s+1\s/.test(out) ? out : undefined;
  });
  // NODES UPDATED READY APPLYING WAITING FAILED: the four nodes the pause holds wait.
  assert.match(status, /paused by the failure policy: 1 node failed revision/);
  assert.match(status, /fix the cause or revert the change, then: npm run nodeherd -- resume workers/);
  assert.doesNotMatch(status, /the pool is paused \(spec\.paused\)/);
  assert.match(status, /Progressing\s+False\s+Paused\s+.*paused by the failure policy/);
  assert.match(status, /ETA {14}none while paused; once resumed, about/);
  // kubectl's wide view counts them too; and no "AVAILABLE" column reads as healthy nodes.
  const wide = await eventually('the pool status to count the waiting nodes', async () => {
    const out = await kubectlOk(['get', 'nodeconfigpools', 'workers', '-o', 'wide']);
    const [header, row] = out.trim().split('\n');
    const cells = Object.fromEntries(header!.split(/\s{2,}/).map((h, i) => [h, row!.split(/\s{2,}/)[i]]));
    return cells.WAITING === '4' ? cells : undefined;
  });
  assert.equal(wide.FAILED, '1');
  assert.equal(wide['OTA-OFFERED'], '0');
  assert.ok(!('AVAILABLE' in wide), JSON.stringify(wide));

  // The config reverted: the failed revision is no longer the target and no node is listed as failing it.
  await kubectlOk(['apply', '-f', sampleWith(100)]);
  const reverted = await eventually('status after the revert', async () => {
    const p = await pool();
    if (p.status?.targetRevision !== good) return undefined;
    return cli(['status', 'workers']);
  });
  assert.doesNotMatch(reverted, /failed sim-/);
  assert.match(reverted, /\n {2}5\s+5\s+\d\s+0\s+0\s+0\s/, 'FAILED 0, WAITING 0');
  assert.match(reverted, new RegExp(`1 node failed ${bad}, no longer the target \\(sim-0001\\)`));
  assert.match(
    reverted,
    /the change was reverted: npm run nodeherd -- resume workers hands every node the target again/,
  );

  await cli(['resume', 'workers']);
  assert.equal(await eventually('every node Done on the target again', settled), good);
  const resumed = await cli(['status', 'workers']);
  assert.doesNotMatch(resumed, /paused/);
});

test('plan previews a change to a pool from a file: selectors and strategy', {
  skip: skip(),
  timeout: 120_000,
}, async () => {
  await eventually('the pool settled', settled);
  const file = join(stateDir, 'pools.yaml');
  writeFileSync(
    file,
    [
      'apiVersion: nodeherd.io/v1alpha1',
      'kind: NodeConfigPool',
      'metadata: {name: workers}',
      'spec:',
      '  nodeSelector: {matchLabels: {topology.kubernetes.io/zone: zone-a}}',
      '  configSelector: {matchLabels: {nodeherd.io/pool: workers}}',
      '  updateStrategy: {type: RollingUpdate, rollingUpdate: {maxUnavailable: 2}}',
      '---',
      'apiVersion: nodeherd.io/v1alpha1',
      'kind: NodeConfigPool',
      'metadata: {name: others}',
      'spec:',
      '  nodeSelector:',
      '    matchExpressions: [{key: topology.kubernetes.io/zone, operator: NotIn, values: [zone-a]}]',
      '  configSelector: {matchLabels: {nodeherd.io/pool: workers}}',
      '  updateStrategy: {type: RollingUpdate, rollingUpdate: {maxUnavailable: 2, minReadySeconds: 10}}',
      '',
    ].join('\n'),
  );
  const out = await cli(['plan', '-f', file]);
  assert.match(out, /NodeConfigPool workers \(line 1\), NodeConfigPool others \(line 9\)/);
  assert.match(out, /NodeConfigPool workers \(line 1\): changes spec\.nodeSelector, spec\.updateStrategy/);
  assert.match(out, /nodes leaving the pool .*: sim-0002, sim-0003, sim-0005/);
  // No node of workers moves now; its next rollout under the new strategy: both zone-a nodes at once.
  assert.match(out, /the new updateStrategy applies from the next rollout/);
  assert.match(out, /at most 2 nodes unavailable at once \(maxUnavailable 2 of 2\)/);
  assert.match(out, /the next rollout of every node, each restarting: about 3s \(1 batch\)/);
  assert.match(out, /NodeConfigPool others \(line 9\): a new pool/);
  assert.match(out, /nodes joining the pool: sim-0002, sim-0003, sim-0005/);
  assert.match(out, /ETA {2}about 2\ds \(2 batches; each soaking 10s/);
  // Nothing was applied.
  assert.equal((await kubectl(['get', 'nodeconfigpool', 'others'])).code, 1);
  const json = JSON.parse(await cli(['plan', '-f', file, '--pool', 'others', '-o', 'json'])) as {
    pools: { pool: string; poolChange?: { created: boolean; joining: string[] } }[];
  };
  assert.deepEqual(
    json.pools.map((p) => [p.pool, p.poolChange?.created, p.poolChange?.joining]),
    [['others', true, ['sim-0002', 'sim-0003', 'sim-0005']]],
  );
});

test('kubectl get nodeconfigrevisions, as the docs run it, lists revisions in number order', {
  skip: skip(),
}, async () => {
  // One more revision, whose name (content-addressed: workers-203cbe54ed) sorts before the others'.
  await kubectlOk(['apply', '-f', sampleWith(40)]);
  await eventually('revision 4 rendered', async () => {
    const list = await kubectlOk(['get', 'nodeconfigrevisions', '-o', 'name']);
    return list.trim().split('\n').length >= 4;
  });
  // kubectl lists by name, as every list is kept: names are hashes, so numbers come out of order.
  const plain = await kubectlOk(['get', 'nodeconfigrevisions', '--no-headers']);
  const byName = plain
    .trim()
    .split('\n')
    .map((row) => Number(row.split(/\s+/)[2]));
  assert.notDeepEqual(
    byName,
    [...byName].sort((a, b) => a - b),
    plain,
  );
  const readme = readFileSync(join(REPO_ROOT, 'README.md'), 'utf8');
  const line = /^kubectl get nodeconfigrevisions[^\n#]*/m.exec(readme)?.[0].trim();
  assert.ok(line, 'README shows how to list revisions');
  const out = await kubectlOk(line.split(/\s+/).slice(1));
  const numbers = out
    .trim()
    .split('\n')
    .slice(1)
    .map((row) => Number(row.split(/\s+/)[2]));
  assert.ok(numbers.length >= 4, out);
  assert.deepEqual(
    numbers,
    [...numbers].sort((a, b) => a - b),
    out,
  );
});
