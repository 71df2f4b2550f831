// `nodeherd status --timeline` through the CLI, against a real API server holding the objects the
// controller and agents would have written: a row per node (or per zone) with a character per moment,
// and a legend; JSON with -o json; kubectl-style errors.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { UPDATE_STARTED_ANNOTATION } from '../../src/controller/annotations.ts';
import { CliCluster, fileConfig } from './support/cli-cluster.ts';

let cluster: CliCluster;

before(async () => {
  cluster = await CliCluster.start();
  await cluster.createPool('web', {
    nodeSelector: { matchLabels: { pool: 'web' } },
    configSelector: { matchLabels: { pool: 'web' } },
  });
  const r1 = await cluster.createRevision('web', 1, { c: fileConfig('/etc/v', '1\n') });
  const r2 = await cluster.createRevision('web', 2, { c: fileConfig('/etc/v', '2\n') });
  const started = Date.now() - 120_000;
  await cluster.setPoolStatus('web', {
    targetRevision: r2,
    history: [
      { revision: 1, name: r1, startedAt: '2026-01-01T00:00:00Z', result: 'Complete' },
      { revision: 2, name: r2, startedAt: new Date(started).toISOString(), result: 'InProgress' },
    ],
  });
  const at = (ms: number) => ({ [UPDATE_STARTED_ANNOTATION]: new Date(ms).toISOString() });
  await cluster.createNode({
    name: 'web-1',
    labels: { pool: 'web', 'topology.kubernetes.io/zone': 'a' },
    current: r2,
    state: 'Done',
    annotations: at(started + 10_000),
  });
  await cluster.createNode({
    name: 'web-2',
    labels: { pool: 'web', 'topology.kubernetes.io/zone': 'b' },
    current: r1,
    desired: r2,
    state: 'Failed',
    message: 'kubelet did not start',
    annotations: { ...at(started + 60_000), 'nodeherd.io/state-revision': r2 },
  });
  await cluster.createNode({
    name: 'web-3',
    labels: { pool: 'web', 'topology.kubernetes.io/zone': 'b' },
    current: r1,
  });
});
after(() => cluster?.stop());

test('status --timeline: a row per node, a character per moment, a legend', async () => {
  const result = await cluster.cli(['status', 'web', '--timeline']);
  assert.equal(result.code, 0, result.stderr);
  const lines = result.stdout.trimEnd().split('\n');
  assert.match(lines[0]!, /^pool web {2}timeline of web-[0-9a-f]+: \d\d:\d\d:\d\d–\d\d:\d\d:\d\d UTC \(2m, /);
  const row = (name: string) => lines.find((l) => l.trimStart().startsWith(name)) ?? '';
  assert.match(row('web-1'), /\|\.+[a=]+\| done$/, 'waited, then applied; done now');
  assert.match(row('web-2'), /\|\.+X+\| failed$/, 'waited, then failed');
  assert.match(row('web-3'), /\|\.+\| waiting$/, 'not started yet');
  assert.match(lines[lines.length - 1]!, /^ {2}legend: \. waiting {2}a applying {2}! NotReady/);
});

test('status --timeline --group-by zone: a row per zone, counts at the end', async () => {
  const result = await cluster.cli(['status', 'web', '--timeline', '--group-by', 'zone']);
  assert.equal(result.code, 0, result.stderr);
  assert.match(result.stdout, /\n {2}a \(1\) +\|[.a=]+\| 1\/1 done\n/);
  assert.match(
    result.stdout,
    /\n {2}b \(2\) +\|\.+X+\| 0\/2 done, 1 failed\n/,
    'a failed node shows in its group',
  );
});

test('status --timeline -o json: the timeline model', async () => {
  const result = await cluster.cli(['status', '--timeline', '-o', 'json']);
  assert.equal(result.code, 0, result.stderr);
  const { timelines } = JSON.parse(result.stdout) as {
    timelines: { pool: string; tracks: { name: string; segments: { state: string }[] }[] }[];
  };
  const web = timelines.find((t) => t.pool === 'web')!;
  assert.deepEqual(
    web.tracks.map((t) => [t.name, t.segments.map((s) => s.state)]),
    [
      ['web-1', ['waiting', 'applying', 'done']],
      ['web-2', ['waiting', 'failed']],
      ['web-3', ['waiting']],
    ],
  );
});

test('status --timeline: bad flags and an unknown pool are one-line errors', async () => {
  const watch = await cluster.cli(['status', '--timeline', '--watch']);
  assert.equal(watch.code, 1);
  assert.match(
    watch.stderr,
    /--timeline and --watch: a live timeline is the dashboard \(nodeherd dashboard\)/,
  );
  const group = await cluster.cli(['status', '--timeline', '--group-by', 'rack']);
  assert.notEqual(group.code, 0);
  assert.match(
    group.stderr,
    /--group-by <rows>' argument 'rack' is invalid. Allowed choices are auto, node, zone, batch/,
  );
  const unknown = await cluster.cli(['status', 'nope', '--timeline']);
  assert.equal(unknown.code, 1);
  assert.match(unknown.stderr, /no NodeConfigPool named "nope"; known pools: web/);
});
