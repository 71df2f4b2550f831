import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { after, before, test } from 'node:test';
import { CliCluster, fileConfig, REPO_ROOT } from '../support/cli-cluster.ts';

let cluster: CliCluster;
let v1: string;
let v2: string;

before(async () => {
  cluster = await CliCluster.start();
  const base = fileConfig('/etc/motd', 'hello\n');
  const next = fileConfig('/etc/motd', 'hello again\n');
  await cluster.createConfig('motd', next, { role: 'web' });
  await cluster.createPool('web', {
    nodeSelector: { matchLabels: { role: 'web' } },
    configSelector: { matchLabels: { role: 'web' } },
    updateStrategy: { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: 2, canary: { nodes: 1 } } },
  });
  await cluster.createPool('edge', {
    nodeSelector: { matchLabels: { role: 'edge' } },
    configSelector: { matchLabels: { role: 'edge' } },
    updateStrategy: { type: 'OnDelete' },
  });
  v1 = await cluster.createRevision('web', 1, { motd: base });
  v2 = await cluster.createRevision('web', 2, { motd: next });
  await cluster.setPoolStatus('web', {
    targetRevision: v2,
    currentRevision: v1,
    conditions: [
      {
        type: 'Progressing',
        status: 'True',
        observedGeneration: 1,
        reason: 'BudgetExhausted',
        message: '2 of at most 2 nodes unavailable',
        lastTransitionTime: '2026-01-01T00:00:00Z',
      },
    ],
  });
  const web = { role: 'web' };
  await cluster.createNode({ name: 'web-1', labels: web, current: v2, state: 'Done' });
  await cluster.createNode({
    name: 'web-2',
    labels: web,
    current: v2,
    state: 'Done',
    drifted: '1 drift from revision x (policy Report): file /etc/nginx/nginx.conf: content',
  });
  await cluster.createNode({ name: 'web-3', labels: web, current: v1, desired: v2, state: 'Applying' });
  await cluster.createNode({
    name: 'web-4',
    labels: web,
    current: v1,
    desired: v2,
    state: 'Failed',
    message: 'unit nginx.service failed its health probe',
  });
  await cluster.createNode({ name: 'web-5', labels: web, current: v1, state: 'Done', ready: false });
  await cluster.createNode({ name: 'lonely', labels: {} });
});
after(() => cluster?.stop());

test('status shows every pool: strategy, target, nodes per state and revision, conditions and failed nodes', async () => {
  const result = await cluster.cli(['status']);
  assert.equal(result.code, 0, result.stderr);
  const out = result.stdout;
  assert.match(out, /pool edge {2}OnDelete/);
  assert.match(out, /pool web {2}RollingUpdate \(maxUnavailable 2, canary 1, on failure Pause\)/);
  assert.match(out, new RegExp(`target revision {2}${v2} \\(revision 2\\)`));
  // NODES UPDATED READY APPLYING WAITING FAILED UNAVAILABLE DRIFTED (web-5 waits for its turn)
  assert.match(out, /5\s+2\s+2\s+1\s+1\s+1\s+1\s+1\n/);
  assert.match(out, new RegExp(`${v2} \\(target\\)\\s+2\\s+2`));
  assert.match(out, new RegExp(`${v1}\\s+1\\s+3`));
  assert.match(out, /Progressing\s+True\s+BudgetExhausted\s+2 of at most 2 nodes unavailable/);
  assert.match(out, /failed web-4: unit nginx.service failed its health probe/);
  assert.match(out, /1 node selected by no pool/);
  // The overview counts drifted nodes; the pool's own view names them.
  assert.match(out, /drifted 1 node \(npm run nodeherd -- status web names them\)/);
  assert.doesNotMatch(out, /drifted web-2/);
});

test('status <pool> names the drifted nodes with what drifted', async () => {
  const result = await cluster.cli(['status', 'web']);
  assert.equal(result.code, 0, result.stderr);
  assert.match(
    result.stdout,
    /drifted web-2: 1 drift from revision x \(policy Report\): file \/etc\/nginx\/nginx\.conf: content/,
  );
});

test('status <pool> -o json gives the same numbers as data', async () => {
  const result = await cluster.cli(['status', 'web', '-o', 'json']);
  assert.equal(result.code, 0, result.stderr);
  const status = JSON.parse(result.stdout);
  assert.deepEqual(
    status.pools.map((p: { name: string }) => p.name),
    ['web'],
  );
  const web = status.pools[0];
  assert.deepEqual(web.counts, {
    updated: 2,
    ready: 2,
    applying: 1,
    waiting: 1,
    failed: 1,
    unavailable: 1,
    drifted: 1,
  });
  assert.deepEqual(
    web.driftedNodes.map((n: { name: string }) => n.name),
    ['web-2'],
  );
  assert.deepEqual(web.target, { name: v2, number: 2 });
  assert.deepEqual(
    web.revisions.map((r: { name: string; nodes: number }) => [r.name, r.nodes]),
    [
      [v2, 2],
      [v1, 3],
    ],
  );
});

test('status of an unknown pool fails in one line that lists the known pools', async () => {
  const result = await cluster.cli(['status', 'nope']);
  assert.equal(result.code, 1);
  assert.equal(result.stderr, 'error: no NodeConfigPool named "nope"; known pools: edge, web\n');
});

test('status --watch redraws when a node changes (NDJSON frames in a pipe) and ends cleanly on SIGINT', async () => {
  const child = spawn(
    process.execPath,
    [
      'bin/nodeherd.ts',
      'status',
      'web',
      '--watch',
      '-o',
      'json',
      '--interval',
      '200',
      '--kubeconfig',
      cluster.kubeconfig,
    ],
    { cwd: REPO_ROOT, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  const frames: { pools: { counts: { updated: number } }[] }[] = [];
  let buffered = '';
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  child.stdout.on('data', (chunk: Buffer) => {
    buffered += chunk.toString();
    const lines = buffered.split('\n');
    buffered = lines.pop() ?? '';
    for (const line of lines) if (line.trim()) frames.push(JSON.parse(line));
  });
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  const waitFor = async (what: string, ok: () => boolean) => {
    const deadline = Date.now() + 60_000;
    while (!ok()) {
      if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}; stderr: ${stderr}`);
      await new Promise((r) => setTimeout(r, 50));
    }
  };
  try {
    await waitFor('the first frame', () => frames.length > 0);
    assert.equal(frames[0]!.pools[0]!.counts.updated, 2);
    await cluster.createNode({ name: 'web-6', labels: { role: 'web' }, current: v2, state: 'Done' });
    await waitFor('a frame with the new node', () => frames.some((f) => f.pools[0]!.counts.updated === 3));
    // A frame is printed only when something changed: the watch's first sync and unrelated node
    // updates must not repeat the same frame in a pipe.
    const unchanged = (f: object) => JSON.stringify({ ...f, observedAt: undefined });
    for (let i = 1; i < frames.length; i++) {
      assert.notEqual(unchanged(frames[i]!), unchanged(frames[i - 1]!), `frame ${i} repeats frame ${i - 1}`);
    }
  } finally {
    child.kill('SIGINT');
  }
  assert.equal(await exited, 0, stderr);
});
