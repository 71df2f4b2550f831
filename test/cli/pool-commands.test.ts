import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { UPGRADE_REQUESTED_ANNOTATION, UPGRADE_REVISION_ANNOTATION } from '../../src/api/node-protocol.ts';
import { CliCluster, fileConfig } from './support/cli-cluster.ts';

let cluster: CliCluster;
const revisions: Record<string, string[]> = {};

async function pool(name: string, type: string, numbers: number[]): Promise<string[]> {
  await cluster.createPool(name, {
    nodeSelector: { matchLabels: { pool: name } },
    configSelector: { matchLabels: { pool: name } },
    updateStrategy: { type: type as 'RollingUpdate' },
  });
  const names: string[] = [];
  for (const n of numbers)
    names.push(await cluster.createRevision(name, n, { c: fileConfig('/etc/v', `${n}\n`) }));
  revisions[name] = names;
  return names;
}

before(async () => {
  cluster = await CliCluster.start();
  const [r1, r2, r3] = await pool('web', 'RollingUpdate', [1, 2, 3]);
  await cluster.setPoolStatus('web', {
    targetRevision: r3!,
    history: [
      { revision: 1, name: r1!, startedAt: '2026-01-01T00:00:00Z', result: 'Complete' },
      { revision: 2, name: r2!, startedAt: '2026-01-02T00:00:00Z', result: 'Complete' },
      { revision: 3, name: r3!, startedAt: '2026-01-03T00:00:00Z', result: 'InProgress' },
    ],
  });
  const [g1, g2, g3] = await pool('gen', 'OnDelete', [1, 2, 3]);
  await cluster.setPoolStatus('gen', { targetRevision: g3! });
  await cluster.createNode({ name: 'gen-old', labels: { pool: 'gen' }, current: g1 });
  await cluster.createNode({ name: 'gen-new', labels: { pool: 'gen' }, current: g3 });
  void g2;
  const [o1] = await pool('ota', 'OTA', [1]);
  await cluster.setPoolStatus('ota', { targetRevision: o1! });
  await cluster.createNode({ name: 'ota-1', labels: { pool: 'ota' }, current: o1 });
  const [f1] = await pool('fresh', 'RollingUpdate', [1]);
  await cluster.setPoolStatus('fresh', { targetRevision: f1! });
  await cluster.createNode({ name: 'web-1', labels: { pool: 'web' }, current: r2 });
});
after(() => cluster?.stop());

test('pause and resume set spec.paused; repeating one changes nothing', async () => {
  const paused = await cluster.cli(['pause', 'web']);
  assert.equal(paused.code, 0, paused.stderr);
  assert.match(paused.stdout, /pool web paused/);
  assert.equal((await cluster.getPool('web')).spec.paused, true);
  const before = (await cluster.getPool('web')).metadata.resourceVersion;
  const again = await cluster.cli(['pause', 'web']);
  assert.match(again.stdout, /already paused; nothing changed/);
  assert.equal((await cluster.getPool('web')).metadata.resourceVersion, before);
  const resumed = await cluster.cli(['resume', 'web']);
  assert.equal(resumed.code, 0, resumed.stderr);
  assert.equal((await cluster.getPool('web')).spec.paused, false);
});

test('pause of an unknown pool lists the known ones', async () => {
  const result = await cluster.cli(['pause', 'nope']);
  assert.equal(result.code, 1);
  assert.equal(result.stderr, 'error: no NodeConfigPool named "nope"; known pools: fresh, gen, ota, web\n');
});

test('rollback without a revision asks for the one rolled out before the target (from status.history)', async () => {
  const result = await cluster.cli(['rollback', 'web']);
  assert.equal(result.code, 0, result.stderr);
  assert.match(result.stdout, new RegExp(`rollback to revision 2 \\(${revisions.web![1]}\\) requested`));
  assert.deepEqual((await cluster.getPool('web')).spec.rollbackTo, { revision: 2 });
});

test('rollback --to-revision names the revision; a missing one is refused with the list', async () => {
  const ok = await cluster.cli(['rollback', 'web', '--to-revision', '1']);
  assert.equal(ok.code, 0, ok.stderr);
  assert.deepEqual((await cluster.getPool('web')).spec.rollbackTo, { revision: 1 });
  const missing = await cluster.cli(['rollback', 'web', '--to-revision', '9']);
  assert.equal(missing.code, 1);
  assert.match(
    missing.stderr,
    /^error: pool web has no revision 9 \(pruned or never made\); its revisions: 1 \(web-\w+\), 2/,
  );
  assert.deepEqual((await cluster.getPool('web')).spec.rollbackTo, { revision: 1 });
});

test('rollback of a pool with a single revision explains there is none to return to', async () => {
  const result = await cluster.cli(['rollback', 'fresh']);
  assert.equal(result.code, 1);
  assert.match(result.stderr, /^error: pool fresh has no earlier revision to roll back to/);
  assert.equal((await cluster.getPool('fresh')).spec.rollbackTo, undefined);
});

test('upgrade node annotates a node of an OnDelete pool; a node on the target is left alone', async () => {
  const result = await cluster.cli(['upgrade', 'node', 'gen-old']);
  assert.equal(result.code, 0, result.stderr);
  const stamp = (await cluster.getNode('gen-old')).metadata.annotations?.[UPGRADE_REQUESTED_ANNOTATION];
  assert.ok(stamp && !Number.isNaN(Date.parse(stamp)), `an RFC 3339 time, got ${stamp}`);
  const current = await cluster.cli(['upgrade', 'node', 'gen-new']);
  assert.equal(current.code, 0, current.stderr);
  assert.match(current.stdout, /already runs the target revision/);
  assert.equal(
    (await cluster.getNode('gen-new')).metadata.annotations?.[UPGRADE_REQUESTED_ANNOTATION],
    undefined,
  );
});

test('upgrade node explains why it means nothing for RollingUpdate and OTA pools, and writes nothing', async () => {
  const rolling = await cluster.cli(['upgrade', 'node', 'web-1']);
  assert.equal(rolling.code, 1);
  assert.match(rolling.stderr, /^error: pool web uses the RollingUpdate strategy, which updates every node/);
  const ota = await cluster.cli(['upgrade', 'node', 'ota-1']);
  assert.equal(ota.code, 1);
  assert.match(
    ota.stderr,
    /OTA strategy: each node's owner pulls the update through the agent's local API \(POST \/v1\/update/,
  );
  for (const name of ['web-1', 'ota-1']) {
    assert.equal(
      (await cluster.getNode(name)).metadata.annotations?.[UPGRADE_REQUESTED_ANNOTATION],
      undefined,
    );
  }
  const missing = await cluster.cli(['upgrade', 'node', 'ghost']);
  assert.equal(missing.stderr, 'error: no Node named "ghost"\n');
});

test('upgrade revision annotates the pool with the revision number, only when a node is on it', async () => {
  const empty = await cluster.cli(['upgrade', 'revision', 'gen', '2']);
  assert.equal(empty.code, 1);
  assert.match(empty.stderr, /^error: no node of pool gen is on revision 2 /);
  assert.equal((await cluster.getPool('gen')).metadata.annotations?.[UPGRADE_REVISION_ANNOTATION], undefined);
  const result = await cluster.cli(['upgrade', 'revision', 'gen', '1']);
  assert.equal(result.code, 0, result.stderr);
  assert.match(result.stdout, /upgrade of the 1 node on revision 1 /);
  assert.equal((await cluster.getPool('gen')).metadata.annotations?.[UPGRADE_REVISION_ANNOTATION], '1');
  const rolling = await cluster.cli(['upgrade', 'revision', 'web', '2']);
  assert.equal(rolling.code, 1);
  assert.match(rolling.stderr, /RollingUpdate strategy/);
});
