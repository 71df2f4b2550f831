// Issue 33, nothing half-applied: `kubectl apply -f` of one file with two NodeConfigs that change
// together (the second conflicting with the first) never puts a node on a revision rendered from the
// first alone, round after round, against the embedded API server, the real controller and simulated
// nodes running the real agent. With settling off, a revision already rendered from a subset is held
// once the conflict appears. A pool that selects no node is not Complete, through kubectl and
// `nodeherd status`.

import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { stringify } from 'yaml';
import {
  AVAILABLE_REVISION_ANNOTATION,
  DESIRED_REVISION_ANNOTATION,
} from '../../../src/api/node-protocol.ts';
import type { NodeConfigSpec } from '../../../src/api/types.ts';
import { Dashboard } from '../../../src/cli/dashboard/dashboard-server.ts';
import type { FleetStatus } from '../../../src/cli/status/status-view.ts';
import { fileConfig, runCli } from '../../cli/support/cli-cluster.ts';
import {
  ClusterHarness,
  complete,
  condition,
  eventually,
  type PoolObject,
  revisionNameFor,
} from '../../support/cluster-harness.ts';
import { NodeWatch } from '../support/node-watch.ts';

const SHARED = '/etc/nodeherd-settle/shared.conf';
const OTHER = '/etc/nodeherd-settle/other.conf';

function manifest(configs: Record<string, NodeConfigSpec>, label: string): string {
  return Object.entries(configs)
    .map(([name, spec]) =>
      stringify({
        apiVersion: 'nodeherd.io/v1alpha1',
        kind: 'NodeConfig',
        metadata: { name, labels: { settle: label } },
        spec,
      }),
    )
    .join('---\n');
}

/** Records every revision a node of the pool is handed or offered. */
function recordHandouts(watch: NodeWatch, pool: string): Set<string> {
  const seen = new Set<string>();
  watch.on((node) => {
    if (node.metadata.labels?.pool !== pool) return;
    const a = node.metadata.annotations ?? {};
    for (const key of [DESIRED_REVISION_ANNOTATION, AVAILABLE_REVISION_ANNOTATION])
      if (a[key]) seen.add(a[key]);
  });
  return seen;
}

const poolWhere = (h: ClusterHarness, name: string, what: string, ok: (p: PoolObject) => boolean) =>
  h.poolWhere(name, `${name}: ${what}`, ok, 60_000, 100);

const completeOn = (h: ClusterHarness, name: string, revision: string) =>
  poolWhere(h, name, `complete on ${revision}`, complete(revision));

describe('a conflicting kubectl apply -f reaches no node (default settling)', () => {
  let h: ClusterHarness;
  let watch: NodeWatch;
  before(async () => {
    h = await ClusterHarness.start();
    await h.startController();
    watch = new NodeWatch(h.local.kubeConfig());
    await watch.start();
  });
  after(async () => {
    await watch?.stop();
    await h?.stop();
  });

  test('round after round, no node is handed the revision of the first NodeConfig alone', async () => {
    const pool = 'settle';
    const seen = recordHandouts(watch, pool);
    const nodes = await h.fleet.add(3, { labels: { pool } });
    assert.equal(nodes.length, 3);
    const good = (i: number) => ({
      'settle-a': fileConfig(SHARED, `a ${i}\n`),
      'settle-b': fileConfig(OTHER, `b ${i}\n`),
    });
    let applied = await h.local.kubectl(['apply', '-f', '-'], { input: manifest(good(0), pool) });
    assert.equal(applied.code, 0, applied.stderr);
    await h.createPool(pool, {
      nodeSelector: { matchLabels: { pool } },
      configSelector: { matchLabels: { settle: pool } },
      updateStrategy: { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: 3 } },
    });
    const allowed = new Set([revisionNameFor(pool, good(0))]);
    await completeOn(h, pool, revisionNameFor(pool, good(0)));

    for (let i = 1; i <= 4; i++) {
      // One file: settle-a moves on, settle-b now writes settle-a's file with other content. Either
      // object alone (with the other as it was) renders fine: that is the half to keep from the nodes.
      const halfA = revisionNameFor(pool, { ...good(i - 1), 'settle-a': good(i)['settle-a'] });
      const conflicting = { 'settle-a': good(i)['settle-a'], 'settle-b': fileConfig(SHARED, `b ${i}\n`) };
      applied = await h.local.kubectl(['apply', '-f', '-'], { input: manifest(conflicting, pool) });
      assert.equal(applied.code, 0, applied.stderr);
      const conflicted = await poolWhere(
        h,
        pool,
        `round ${i}: RenderDegraded ConfigConflict`,
        (p) => condition(p, 'RenderDegraded')?.reason === 'ConfigConflict',
      );
      assert.match(condition(conflicted, 'RenderDegraded')?.message ?? '', /nodeherd-settle\/shared\.conf/);
      // Longer than the quiet period and a few reconciles: nothing moves.
      await sleep(1_500);
      const still = await h.getPool(pool);
      assert.ok(
        still.status?.targetRevision === undefined || allowed.has(still.status.targetRevision),
        `round ${i}: target ${still.status?.targetRevision} was rendered from a subset`,
      );
      assert.equal(condition(still, 'Stalled')?.status, 'True');
      assert.ok(!seen.has(halfA), `round ${i}: a node was handed ${halfA}, settle-a alone`);

      // The fix, in one file again: the pool goes on to the whole of it.
      applied = await h.local.kubectl(['apply', '-f', '-'], { input: manifest(good(i), pool) });
      assert.equal(applied.code, 0, applied.stderr);
      allowed.add(revisionNameFor(pool, good(i)));
      await completeOn(h, pool, revisionNameFor(pool, good(i)));
    }
    const strays = [...seen].filter((r) => !allowed.has(r));
    assert.deepEqual(strays, [], 'revisions handed to nodes that no complete set of NodeConfigs renders');
    assert.equal(allowed.size, 5);
  });

  test('a pool that selects no node is not Complete, and says why (kubectl, nodeherd status)', async () => {
    const applied = await h.local.kubectl(['apply', '-f', '-'], {
      input: manifest({ 'empty-config': fileConfig(OTHER, 'x\n') }, 'empty'),
    });
    assert.equal(applied.code, 0, applied.stderr);
    await h.createPool('empty', {
      nodeSelector: { matchLabels: { pool: 'no-such-label-typo' } },
      configSelector: { matchLabels: { settle: 'empty' } },
    });
    await poolWhere(h, 'empty', 'rendered', (p) => p.status?.targetRevision !== undefined);
    const got = await eventually(
      'kubectl: Complete False NoNodes',
      async () => {
        const r = await h.local.kubectl([
          'get',
          'nodeconfigpool',
          'empty',
          '-o',
          'jsonpath={range .status.conditions[*]}{.type}={.status}/{.reason}{"\\n"}{end}',
        ]);
        return r.code === 0 && r.stdout.includes('Complete=False/NoNodes') ? r.stdout : undefined;
      },
      30_000,
      200,
    );
    assert.match(got, /^Stalled=True\/NoNodes$/m);
    assert.match(got, /^Ready=False\/NoNodes$/m);
    assert.match(got, /^Progressing=False\/NoNodes$/m);

    const json = await runCli(['status', 'empty', '-o', 'json', '--kubeconfig', h.local.kubeconfigPath]);
    assert.equal(json.code, 0, json.stderr);
    const status = (JSON.parse(json.stdout) as FleetStatus).pools[0]!;
    const complete = status.conditions.find((c) => c.type === 'Complete');
    assert.equal(complete?.status, 'False');
    assert.equal(complete?.reason, 'NoNodes');
    assert.match(complete?.message ?? '', /nodeSelector selects no node/);
    const text = await runCli(['status', 'empty', '--kubeconfig', h.local.kubeconfigPath]);
    assert.equal(text.code, 0, text.stderr);
    assert.match(text.stdout, /Complete\s+False\s+NoNodes/);
    assert.match(text.stdout, /Stalled\s+True\s+NoNodes/);

    // The dashboard's snapshot (what its page draws) carries the same conditions.
    const dashboard = new Dashboard({ client: h.admin, context: { server: h.admin.server.origin } });
    try {
      await dashboard.model.synced;
      const view = await eventually(
        'the dashboard shows the empty pool',
        () => dashboard.model.snapshot?.fleet.pools.find((p) => p.name === 'empty'),
        20_000,
        100,
      );
      const shown = view.conditions.find((c) => c.type === 'Complete');
      assert.deepEqual([shown?.status, shown?.reason], ['False', 'NoNodes']);
    } finally {
      await dashboard.stop();
    }
  });
});

describe('a revision rendered from a subset is held once the conflict shows (settling off)', () => {
  let h: ClusterHarness;
  let watch: NodeWatch;
  before(async () => {
    h = await ClusterHarness.start();
    await h.startController({ renderSettle: { quietMs: 0, maxDelayMs: 0 } });
    watch = new NodeWatch(h.local.kubeConfig());
    await watch.start();
  });
  after(async () => {
    await watch?.stop();
    await h?.stop();
  });

  test('no node starts the held revision; nodes go on once the configs render again', async () => {
    const pool = 'held';
    const seen = recordHandouts(watch, pool);
    await h.fleet.add(2, { labels: { pool } });
    const base = { 'held-a': fileConfig(SHARED, 'a 0\n'), 'held-b': fileConfig(OTHER, 'b 0\n') };
    for (const [name, spec] of Object.entries(base)) await h.applyConfig(name, spec, { settle: pool });
    await h.createPool(pool, {
      nodeSelector: { matchLabels: { pool } },
      configSelector: { matchLabels: { settle: pool } },
      updateStrategy: { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: 2 } },
    });
    await completeOn(h, pool, revisionNameFor(pool, base));

    // Paused, so the subset's revision is rendered and targeted but not started; then the conflict.
    await h.patchPool(pool, { spec: { paused: true } });
    await poolWhere(h, pool, 'paused', (p) => condition(p, 'Paused')?.status === 'True');
    const subset = { ...base, 'held-a': fileConfig(SHARED, 'a 1\n') };
    const half = revisionNameFor(pool, subset);
    await h.applyConfig('held-a', subset['held-a'], { settle: pool });
    await poolWhere(h, pool, `targets ${half}`, (p) => p.status?.targetRevision === half);
    await h.applyConfig('held-b', fileConfig(SHARED, 'b 1\n'), { settle: pool });
    await poolWhere(h, pool, 'conflict', (p) => condition(p, 'RenderDegraded')?.reason === 'ConfigConflict');

    await h.patchPool(pool, { spec: { paused: false } });
    const held = await poolWhere(
      h,
      pool,
      'held',
      (p) =>
        condition(p, 'Paused')?.status === 'False' && condition(p, 'Progressing')?.reason === 'RenderHeld',
    );
    assert.equal(held.status?.targetRevision, half);
    assert.equal(condition(held, 'Complete')?.reason, 'RenderHeld');
    assert.match(condition(held, 'Progressing')?.message ?? '', new RegExp(`rollout of ${half} held`));
    await sleep(1_500);
    assert.ok(!seen.has(half), `a node was handed ${half} while the configs conflicted`);
    for (const node of await h.nodes(`pool=${pool}`))
      assert.equal(node.metadata.annotations?.[DESIRED_REVISION_ANNOTATION], revisionNameFor(pool, base));

    // Resolved: the whole of the change rolls out.
    const whole = { 'held-a': subset['held-a'], 'held-b': fileConfig(OTHER, 'b 1\n') };
    await h.applyConfig('held-b', whole['held-b'], { settle: pool });
    await completeOn(h, pool, revisionNameFor(pool, whole));
    assert.ok(!seen.has(half), `a node was handed ${half}`);
  });
});
