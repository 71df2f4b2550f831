// `nodeherd status <pool> --node <node>` (issue 36): a failed node's whole excerpt (the NodeConfigReady
// condition's message: the unit's journal lines), its recorded episodes and its Events; and bad input
// is a one-line error naming the flag, through the real CLI against a real API server.

import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { CliCluster, fileConfig } from '../support/cli-cluster.ts';

let cluster: CliCluster;
const EXCERPT = [
  'revision web-x failed: unit app.service failed (failed)',
  'journalctl -u app.service -n 20:',
  '  app: listening on :8080',
  '  error: bind: address already in use',
  '  app.service: Main process exited, code=exited, status=1/FAILURE',
].join('\n');

before(async () => {
  cluster = await CliCluster.start();
  await cluster.createPool('web', {
    nodeSelector: { matchLabels: { pool: 'web' } },
    configSelector: { matchLabels: { pool: 'web' } },
  });
  const r1 = await cluster.createRevision('web', 1, { c: fileConfig('/etc/v', '1\n') });
  await cluster.setPoolStatus('web', {
    targetRevision: r1,
    episodes: [
      { node: 'web-1', kind: 'NotReady', from: '2026-11-29T06:00:00.000Z', to: '2026-11-29T06:00:02.000Z' },
      {
        node: 'web-1',
        kind: 'Failed',
        revision: r1,
        from: '2026-11-29T06:00:03.000Z',
        message: 'revision failed: unit app.service failed (failed): error: bind: address already in use',
      },
    ],
  });
  await cluster.createNode({
    name: 'web-1',
    labels: { pool: 'web' },
    desired: r1,
    state: 'Failed',
    message: 'revision failed: unit app.service failed (failed): error: bind: address already in use',
    configMessage: EXCERPT,
  });
  await cluster.createNode({ name: 'other', labels: { pool: 'db' } });
});
after(() => cluster?.stop());

describe('status --node (issue 36)', () => {
  it("shows the node's whole excerpt, its episodes, and names it in the pool's status", async () => {
    const result = await cluster.cli(['status', 'web', '--node', 'web-1']);
    assert.equal(result.code, 0, result.stderr);
    assert.ok(result.stdout.includes(EXCERPT.split('\n').join('\n    ')), result.stdout);
    assert.match(result.stdout, /recorded failures/);
    assert.match(result.stdout, /NotReady +2026-11-29T06:00:00\.000Z – 2026-11-29T06:00:02\.000Z/);
    const pool = await cluster.cli(['status', 'web']);
    assert.match(
      pool.stdout,
      /failed web-1: revision failed: unit app\.service failed \(failed\): error: bind/,
    );
    assert.match(pool.stdout, /status web --node web-1/);
    const json = await cluster.cli(['status', 'web', '--node', 'web-1', '-o', 'json']);
    assert.equal(JSON.parse(json.stdout).node.metadata.name, 'web-1');
  });

  it('refuses what it cannot show, naming --node', async () => {
    const cases: [string[], RegExp][] = [
      [['status', '--node', 'web-1'], /--node needs the pool/],
      [['status', 'web', '--node', 'nope'], /--node: no Node named "nope"/],
      [['status', 'web', '--node', 'other'], /--node: Node other is not selected by pool web/],
      [['status', 'web', '--node', 'web-1', '--timeline'], /--node shows one node once/],
    ];
    for (const [args, message] of cases) {
      const result = await cluster.cli(args);
      assert.notEqual(result.code, 0, args.join(' '));
      assert.match(result.stderr, message);
      assert.equal(result.stderr.trim().split('\n').length, 1, result.stderr);
    }
  });
});
