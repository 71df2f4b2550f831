// `nodeherd up` as a user runs it: a child process with a state dir, talked to only through what it
// prints and the kubeconfig it writes. The sample pool reaches its nodes; Ctrl-C stops everything
// cleanly; a second run on the same state dir resumes without a new revision or a re-apply.

import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { after, test } from 'node:test';
import {
  CURRENT_REVISION_ANNOTATION,
  NODE_CONFIG_READY_CONDITION,
  STATE_ANNOTATION,
} from '../../src/api/node-protocol.ts';
import { KubeClient } from '../../src/kube/kube-client.ts';
import { loadKubeConfig } from '../../src/kube/kube-config.ts';
import { eventually as pollUntil } from '../support/eventually.ts';
import { kubectl } from '../support/local-apiserver.ts';

const REPO = resolve(import.meta.dirname, '../..');
const NODE = join(REPO, 'node_modules/.bin/node');
const GROUP = '/apis/nodeherd.io/v1alpha1';

interface Running {
  child: ChildProcess;
  output: () => string;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

function up(args: string[]): Running {
  const child = spawn(NODE, ['bin/nodeherd.ts', 'up', ...args], {
    cwd: REPO,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, NO_COLOR: '1' },
  });
  let text = '';
  child.stdout!.on('data', (chunk: Buffer) => {
    text += chunk.toString('utf8');
  });
  child.stderr!.on('data', (chunk: Buffer) => {
    text += chunk.toString('utf8');
  });
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((done) =>
    child.once('exit', (code, signal) => done({ code, signal })),
  );
  return { child, output: () => text, exited };
}

async function waitForLine(
  running: Running,
  pattern: RegExp,
  timeoutMs = 180_000,
): Promise<RegExpMatchArray> {
  const deadline = performance.now() + timeoutMs;
  let exit: { code: number | null } | undefined;
  void running.exited.then((e) => {
    exit = e;
  });
  for (;;) {
    const match = running.output().match(pattern);
    if (match) return match;
    if (exit) throw new Error(`nodeherd up exited (${exit.code}) before ${pattern}:\n${running.output()}`);
    if (performance.now() > deadline) throw new Error(`no ${pattern} in time:\n${running.output()}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** `up` starts real components: give them two minutes, polling every 200 ms. */
function eventually<T>(what: string, check: () => Promise<T | undefined>, timeoutMs = 120_000): Promise<T> {
  return pollUntil(what, check, timeoutMs, 200);
}

async function stopWithCtrlC(running: Running, timeoutMs = 60_000): Promise<number | null> {
  running.child.kill('SIGINT');
  let timer: NodeJS.Timeout | undefined;
  const result = await Promise.race([
    running.exited,
    new Promise<'timeout'>((r) => {
      timer = setTimeout(() => r('timeout'), timeoutMs);
    }),
  ]);
  clearTimeout(timer);
  if (result === 'timeout') {
    running.child.kill('SIGKILL');
    throw new Error(`nodeherd up did not exit within ${timeoutMs} ms of SIGINT:\n${running.output()}`);
  }
  return result.code;
}

interface NodeObject {
  metadata: { name: string; annotations?: Record<string, string> };
  status?: { conditions?: { type: string; status: string }[] };
}
interface PoolObject {
  status?: { targetRevision?: string; conditions?: { type: string; status: string }[] };
}

const condition = (object: NodeObject | PoolObject, type: string) =>
  object.status?.conditions?.find((c) => c.type === type)?.status;

/** Every node Ready, the pool Complete, and each node Done on the pool's target revision. */
async function sampleRolledOut(client: KubeClient, nodes: number) {
  return eventually('the sample pool to be Complete on every node', async () => {
    const pool = await client.get<PoolObject>(`${GROUP}/nodeconfigpools/workers`);
    const target = pool.status?.targetRevision;
    if (!target || condition(pool, 'Complete') !== 'True') return undefined;
    const list = (await client.list<never>('/api/v1/nodes')).items as unknown as NodeObject[];
    if (list.length !== nodes) return undefined;
    const done = list.every(
      (node) =>
        condition(node, 'Ready') === 'True' &&
        condition(node, NODE_CONFIG_READY_CONDITION) === 'True' &&
        node.metadata.annotations?.[CURRENT_REVISION_ANNOTATION] === target &&
        node.metadata.annotations?.[STATE_ANNOTATION] === 'Done',
    );
    return done ? { target, nodes: list } : undefined;
  });
}

async function revisions(client: KubeClient): Promise<string[]> {
  const list = (await client.list<never>(`${GROUP}/nodeconfigrevisions`)).items as unknown as {
    metadata: { name: string; uid: string };
  }[];
  return list.map((r) => `${r.metadata.name}/${r.metadata.uid}`).sort();
}

async function appliedEvents(client: KubeClient): Promise<number> {
  const list = (await client.list<never>('/api/v1/events')).items as unknown as {
    reason: string;
    count?: number;
    involvedObject: { kind: string };
  }[];
  return list
    .filter((e) => e.involvedObject.kind === 'Node' && e.reason === 'Applied')
    .reduce((sum, e) => sum + (e.count ?? 1), 0);
}

const stateDir = mkdtempSync(join(tmpdir(), 'nodeherd-up-test-'));
const children: Running[] = [];
after(() => {
  for (const running of children) running.child.kill('SIGKILL');
  rmSync(stateDir, { recursive: true, force: true });
});

test('up: the sample pool reaches 3 nodes, Ctrl-C stops cleanly, a rerun resumes without re-applying', {
  timeout: 600_000,
}, async () => {
  const args = ['--nodes', '3', '--no-view', '--state-dir', stateDir, '--port', '0', '--node-api-port', '0'];
  const running = up(args);
  children.push(running);
  const ready = await waitForLine(running, /^ready: 3 nodes, API server (https:\/\/127\.0\.0\.1:(\d+))/m);
  assert.notEqual(Number(ready[2]), 0, 'port 0 picks a free port and prints it');
  const kubeconfig = join(stateDir, 'apiserver/kubeconfig');
  assert.match(running.output(), new RegExp(`export KUBECONFIG=${kubeconfig}`));
  assert.match(running.output(), /kubectl get nodeconfigpools,nodes/);
  assert.match(running.output(), /kubectl edit nodeconfig workers-base/);
  assert.match(running.output(), /^ {2}node APIs {4}http:\/\/127\.0\.0\.1:[1-9]\d*\/nodes\/<node>\//m);
  assert.match(
    running.output(),
    /^ {2}http:\/\/127\.0\.0\.1:[1-9]\d*\/dashboard\/\?token=[\w-]{43}$/m,
    'the dashboard address, with its secret',
  );

  let client = new KubeClient(loadKubeConfig({ kubeconfig }));
  const first = await sampleRolledOut(client, 3);
  // GitOps tools wait on kstatus's Ready (docs/gitops.md); kubectl wait reads the same condition.
  const waited = await kubectl(kubeconfig, [
    'wait',
    '--for=condition=Ready',
    'nodeconfigpool/workers',
    '--timeout=120s',
  ]);
  assert.equal(waited.code, 0, waited.stderr);
  assert.match(waited.stdout, /nodeconfigpool.nodeherd.io\/workers condition met/);
  // DaemonSets work on the simulated nodes: one pod per node, Ready (kube's DaemonSet controller and
  // the kubelets are simulated too).
  await client.create('/apis/apps/v1/namespaces/default/daemonsets', {
    apiVersion: 'apps/v1',
    kind: 'DaemonSet',
    metadata: { name: 'node-exporter', namespace: 'default' },
    spec: {
      selector: { matchLabels: { app: 'node-exporter' } },
      updateStrategy: { type: 'OnDelete' },
      template: {
        metadata: { labels: { app: 'node-exporter' } },
        spec: { containers: [{ name: 'exporter', image: 'prom/node-exporter:v1.8.2' }] },
      },
    },
  });
  await eventually('a Ready DaemonSet pod on every node', async () => {
    const pods = (await client.list<never>('/api/v1/namespaces/default/pods')).items as unknown as {
      spec?: { nodeName?: string };
      status?: { conditions?: { type: string; status: string }[] };
    }[];
    const ready = pods.filter((p) =>
      p.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True'),
    );
    return new Set(ready.map((p) => p.spec?.nodeName)).size === 3 ? true : undefined;
  });
  // The user's first rollout: an edit of the sample, which a rerun must keep.
  const edited = 'MESSAGE=edited by the test\nINTERVAL_SECONDS=30\n';
  await client.patch(
    `${GROUP}/nodeconfigs/workers-base`,
    [{ op: 'replace', path: '/spec/files/1/content/inline/data', value: edited }],
    'json',
  );
  const before = await eventually('the edit to roll out', async () => {
    const state = await sampleRolledOut(client, 3);
    return state.target !== first.target ? state : undefined;
  });
  const revisionsBefore = await revisions(client);
  assert.equal(revisionsBefore.length, 2);
  const appliedBefore = await appliedEvents(client);
  assert.equal(appliedBefore, 6, 'each node applied the sample, then the edit');
  const appliesLogged = (text: string) =>
    text.split('\n').filter((l) => l.includes('"msg":"applying"')).length;
  assert.equal(appliesLogged(readFileSync(join(stateDir, 'up.log'), 'utf8')), 6);

  // A second run on the same state dir is refused while the first one holds it.
  const second = up([
    '--nodes',
    '3',
    '--no-view',
    '--state-dir',
    stateDir,
    '--port',
    '0',
    '--node-api-port',
    '0',
  ]);
  children.push(second);
  assert.equal((await second.exited).code, 1);
  assert.match(second.output(), /--state-dir .* is in use by another nodeherd up \(pid \d+\)/);

  client.close();
  assert.equal(await stopWithCtrlC(running), 0, running.output());
  // The hint to resume repeats --nodes: a rerun with the default count would change the fleet (and a
  // smaller count deletes the extra nodes with their state). It repeats the ports it was given, and
  // names the command run from a checkout.
  assert.match(
    running.output(),
    new RegExp(
      `stopped; \`npm run nodeherd -- up --state-dir ${stateDir} --nodes 3 --port 0 --node-api-port 0\` resumes`,
    ),
  );

  const rerun = up(args);
  children.push(rerun);
  await waitForLine(rerun, /^ready: 3 nodes/m);
  assert.match(
    rerun.output(),
    /samples {6}kept as they are: NodeConfig\/workers-base, NodeConfigPool\/workers/,
  );
  client = new KubeClient(loadKubeConfig({ kubeconfig }));
  const after = await sampleRolledOut(client, 3);
  assert.equal(after.target, before.target, 'the pool keeps its revision');
  assert.deepEqual(await revisions(client), revisionsBefore, 'no NodeConfigRevision was created again');
  for (const node of after.nodes) {
    const earlier = before.nodes.find((n) => n.metadata.name === node.metadata.name)!;
    assert.equal(
      node.metadata.annotations?.[CURRENT_REVISION_ANNOTATION],
      earlier.metadata.annotations?.[CURRENT_REVISION_ANNOTATION],
    );
  }
  // The agents have started and finished their first reconcile before "ready": nothing was applied.
  assert.equal(await appliedEvents(client), appliedBefore, 'no agent applied again');
  assert.equal(appliesLogged(readFileSync(join(stateDir, 'up.log'), 'utf8')), 6);
  const config = await client.get<{ spec: { files: { content: { inline: { data: string } } }[] } }>(
    `${GROUP}/nodeconfigs/workers-base`,
  );
  assert.equal(config.spec.files[1]!.content.inline.data, edited, "the user's edit survived the rerun");
  assert.doesNotMatch(readFileSync(join(stateDir, 'up.log'), 'utf8'), /"msg":"[^"]*drift/i);
  client.close();
  assert.equal(await stopWithCtrlC(rerun), 0, rerun.output());
});

test('up: a port in use is a clear error', { timeout: 60_000 }, async () => {
  const server: Server = createServer();
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  const port = (server.address() as { port: number }).port;
  const dir = mkdtempSync(join(tmpdir(), 'nodeherd-up-port-'));
  try {
    const running = up(['--no-view', '--state-dir', dir, '--port', String(port), '--node-api-port', '0']);
    children.push(running);
    assert.equal((await running.exited).code, 1);
    assert.match(running.output(), new RegExp(`--port ${port}: the port is already in use`));
  } finally {
    server.close();
    rmSync(dir, { recursive: true, force: true });
  }
});

test('up: without a terminal the view prints a line per change', { timeout: 300_000 }, async () => {
  const dir = mkdtempSync(join(tmpdir(), 'nodeherd-up-view-'));
  try {
    const running = up(['--nodes', '2', '--state-dir', dir, '--port', '0', '--node-api-port', '0']);
    children.push(running);
    await waitForLine(
      running,
      /^\d\d:\d\d:\d\d pool workers: target workers-\w+ \(revision 1\); 2 nodes, 2 updated, 2 ready, .*\[Complete\]$/m,
    );
    assert.equal(await stopWithCtrlC(running), 0, running.output());
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('up: a second Ctrl-C exits at once', { timeout: 300_000 }, async () => {
  const dir = mkdtempSync(join(tmpdir(), 'nodeherd-up-twice-'));
  try {
    const running = up([
      '--nodes',
      '2',
      '--no-view',
      '--state-dir',
      dir,
      '--port',
      '0',
      '--node-api-port',
      '0',
    ]);
    children.push(running);
    // While the cluster starts (seconds), so the first Ctrl-C cannot have finished stopping it.
    await waitForLine(running, /starting the rollout controller/);
    running.child.kill('SIGINT');
    await new Promise((r) => setTimeout(r, 20));
    running.child.kill('SIGINT');
    const exit = await running.exited;
    assert.equal(exit.code, 130, running.output());
    assert.doesNotMatch(running.output(), /^stopped; /m);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('up: an unknown --log-level is a one-line error, before anything starts', {
  timeout: 60_000,
}, async () => {
  const dir = mkdtempSync(join(tmpdir(), 'nodeherd-up-log-level-'));
  try {
    const running = up([
      '--no-view',
      '--state-dir',
      dir,
      '--port',
      '0',
      '--node-api-port',
      '0',
      '--log-level',
      'verbose',
    ]);
    children.push(running);
    assert.equal((await running.exited).code, 1, running.output());
    assert.equal(
      running.output(),
      "error: option '--log-level <level>' argument 'verbose' is invalid. must be one of debug, info, warn, error\n",
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
