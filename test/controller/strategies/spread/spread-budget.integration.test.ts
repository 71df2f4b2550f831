// Spread with a budget (spread.maxUnavailable) and a canary (rollingUpdate.canary), the controller's
// side against the embedded API server and simulated nodes running the real agent: the budget is never
// exceeded while nodes are slow (the disruption invariant watches every Node change), nodes whose time
// passed go when a place frees, a breaking change stops within the budget or at the canary, and a
// restarted controller keeps the times the canary's passing set. (Spread without either is
// spread-controller.integration.test.ts: every time handed out at once, unchanged.)

import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { DESIRED_REVISION_ANNOTATION, NOT_BEFORE_ANNOTATION } from '../../../../src/api/node-protocol.ts';
import type { NodeConfigPoolSpec } from '../../../../src/api/types.ts';
import { rolloutOrder } from '../../../../src/controller/rollout/rollout-order.ts';
import type { RolloutController } from '../../../../src/controller/rollout-controller.ts';
import {
  handoutLeadMs,
  spreadWindowStart,
} from '../../../../src/controller/strategies/spread/spread-schedule.ts';
import { loadKubeConfig } from '../../../../src/kube/kube-config.ts';
import {
  brokenConfig,
  ClusterHarness,
  condition,
  eventually,
  kubeletConfig,
  type PoolObject,
  revisionNameFor,
} from '../../../support/cluster-harness.ts';
import { DisruptionInvariant } from '../../support/disruption-invariant.ts';
import { NodeWatch } from '../../support/node-watch.ts';

/** A restarted kubelet is NotReady this long: slow nodes, against a window that spaces starts closer. */
const NOT_READY_MS = 1_500;

interface HandOut {
  /** When the node was first seen with the target (performance.now()). */
  seenAt: number;
  /** Its not-before then (ms since the epoch) and the wall clock at that moment. */
  notBefore: number;
  wallAt: number;
}

describe('Spread with a budget and a canary (controller)', () => {
  let h: ClusterHarness;
  let watch: NodeWatch;
  let controller: RolloutController;
  /** Per target revision, per node: its first hand-out; and not-before rewrites seen. */
  const handOuts = new Map<string, Map<string, HandOut>>();
  let rewrites = 0;

  const spec = (pool: string, strategy: NodeConfigPoolSpec['updateStrategy']): NodeConfigPoolSpec => ({
    nodeSelector: { matchLabels: { pool } },
    configSelector: { matchLabels: { pool } },
    updateStrategy: strategy,
  });

  const complete = (pool: string, revision: string) =>
    eventually(
      `${pool} complete on ${revision}`,
      async () => {
        const p = await h.getPool(pool);
        return p.status?.targetRevision === revision && condition(p, 'Complete')?.status === 'True'
          ? p
          : undefined;
      },
      90_000,
    );

  async function poolWith(
    pool: string,
    count: number,
    strategy: NonNullable<NodeConfigPoolSpec['updateStrategy']>,
  ) {
    const names: string[] = [];
    for (let i = 0; i < count; i++) {
      const zone = i % 2 === 0 ? 'za' : 'zb';
      const node = await h.fleet.create({ name: `${pool}-n${i}`, zone, labels: { pool } });
      names.push(node.name);
      await h.fleet.startAll([node]);
    }
    await h.applyConfig(`${pool}-kubelet`, kubeletConfig('one'), { pool });
    await h.createPool(
      pool,
      spec(pool, { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: '100%' } }),
    );
    await complete(pool, revisionNameFor(pool, { [`${pool}-kubelet`]: kubeletConfig('one') }));
    await h.patchPool(pool, {
      spec: { updateStrategy: { ...strategy, rollingUpdate: strategy.rollingUpdate ?? null } },
    });
    return names;
  }

  before(async () => {
    h = await ClusterHarness.start({ fleet: { startupNotReadyMs: NOT_READY_MS } });
    watch = new NodeWatch(loadKubeConfig({ kubeconfig: h.local.kubeconfigPath }));
    await watch.start();
    watch.on((node, at) => {
      const a = node.metadata.annotations ?? {};
      const desired = a[DESIRED_REVISION_ANNOTATION];
      const notBefore = a[NOT_BEFORE_ANNOTATION];
      if (!desired || !notBefore) return;
      const seen = handOuts.get(desired) ?? new Map<string, HandOut>();
      handOuts.set(desired, seen);
      const first = seen.get(node.metadata.name);
      if (!first)
        seen.set(node.metadata.name, { seenAt: at, notBefore: Date.parse(notBefore), wallAt: Date.now() });
      else if (first.notBefore !== Date.parse(notBefore)) rewrites++;
    });
    controller = await h.startController();
  });
  after(async () => {
    await watch?.stop();
    await h?.stop();
  });

  test('nodes joining a pool created with a budget and a canary get its revision at once (bootstrap is no update)', async () => {
    const nodes = [];
    for (let i = 0; i < 5; i++)
      nodes.push(await h.fleet.create({ name: `sj-n${i}`, zone: 'za', labels: { pool: 'sj' } }));
    await h.fleet.startAll(nodes);
    await h.applyConfig('sj-kubelet', kubeletConfig('one'), { pool: 'sj' });
    await h.createPool(
      'sj',
      spec('sj', {
        type: 'Spread',
        spread: { windowSeconds: 600, maxUnavailable: 1 },
        rollingUpdate: { canary: { nodes: 1 } },
      }),
    );
    await complete('sj', revisionNameFor('sj', { 'sj-kubelet': kubeletConfig('one') }));
  });

  test('the budget is never exceeded while nodes are slow; nodes whose time passed go when a place frees', async () => {
    // Eight nodes in 4 s (a start every 0.5 s), each NotReady 1.5 s: the schedule alone would have 3
    // or 4 down at once; the budget is 2.
    const names = await poolWith('sb', 8, {
      type: 'Spread',
      spread: { windowSeconds: 4, maxUnavailable: 2 },
    });
    const members = new Set(names);
    const check = new DisruptionInvariant({ maxUnavailable: 2, strict: true }, names.length);
    for (const n of watch.list()) if (members.has(n.metadata.name)) check.observe(n, performance.now());
    check.beginEpisode();
    const stop = watch.on((n, at) => {
      if (members.has(n.metadata.name)) check.observe(n, at);
    });
    const two = revisionNameFor('sb', { 'sb-kubelet': kubeletConfig('two') });
    try {
      await h.applyConfig('sb-kubelet', kubeletConfig('two'), { pool: 'sb' });
      await complete('sb', two);
    } finally {
      stop();
    }
    assert.deepEqual(check.violations, []);
    assert.ok(check.maxObserved >= 2, `the budget was used (peak ${check.maxObserved})`);
    const given = handOuts.get(two)!;
    assert.equal(given.size, names.length);
    // Handed out just in time, not all at once: and some only after their time had passed (they
    // waited for a place), with that time kept (they start at once).
    const late = [...given.values()].filter((g) => g.notBefore < g.wallAt - 200);
    assert.ok(late.length >= 1, `nodes handed out after their time: ${JSON.stringify([...given])}`);
    const pool = await h.getPool('sb');
    const record = pool.status?.history?.find((r) => r.name === two) as { startedAt: string };
    const windowStart = spreadWindowStart(Date.parse(record.startedAt), names.length);
    const order = rolloutOrder(names.map((name, i) => ({ name, zone: i % 2 === 0 ? 'za' : 'zb' })));
    order.forEach((node, index) => {
      assert.equal(
        given.get(node.name)?.notBefore,
        windowStart + Math.floor((index * 4000) / names.length),
        `${node.name} keeps its place in the schedule`,
      );
    });
  });

  test('with a budget, a breaking change reaches at most the budget before the failure policy holds the rest', async () => {
    const three = revisionNameFor('sb', { 'sb-kubelet': brokenConfig('three') });
    await h.applyConfig('sb-kubelet', brokenConfig('three'), { pool: 'sb' });
    await eventually(
      'paused by the failure policy',
      async () => condition(await h.getPool('sb'), 'Paused')?.reason === 'FailurePolicy',
      60_000,
    );
    // Given time for any further hand-out to show.
    await new Promise((r) => setTimeout(r, 1_000));
    const hit = (await h.nodes('pool=sb')).filter(
      (n) => n.metadata.annotations?.[DESIRED_REVISION_ANNOTATION] === three,
    );
    assert.ok(hit.length >= 1 && hit.length <= 2, `${hit.length} nodes given the breaking change`);
  });

  test('a canary goes first; the others follow once it is updated, in a window that opens then; a restarted controller keeps their times', async () => {
    // Four nodes, 20 s (one every 5 s); the canary soaks 8 s, so the others' times follow its passing,
    // not their places in the window.
    const names = await poolWith('sc', 4, {
      type: 'Spread',
      spread: { windowSeconds: 20 },
      rollingUpdate: { canary: { nodes: 1 }, minReadySeconds: 8 },
    });
    const two = revisionNameFor('sc', { 'sc-kubelet': kubeletConfig('two') });
    await h.applyConfig('sc-kubelet', kubeletConfig('two'), { pool: 'sc' });
    const passed = await eventually(
      'the canary passed',
      async () => {
        const p = await h.getPool('sc');
        const record = p.status?.history?.find((r) => r.name === two) as
          | { startedAt: string; canaryPassedAt?: string }
          | undefined;
        return record?.canaryPassedAt ? { record, pool: p } : undefined;
      },
      60_000,
    );
    const given = await eventually(
      'every node given two',
      () => (handOuts.get(two)?.size === 4 ? handOuts.get(two) : undefined),
      30_000,
    );
    const order = rolloutOrder(names.map((name, i) => ({ name, zone: i % 2 === 0 ? 'za' : 'zb' })));
    const canary = given.get(order[0]!.name)!;
    const others = order.slice(1).map((n) => given.get(n.name)!);
    assert.ok(
      others.every((o) => o.seenAt > canary.seenAt && o.wallAt >= Date.parse(passed.record.canaryPassedAt!)),
      'the others were handed out only after the canary passed',
    );
    const windowStart = spreadWindowStart(Date.parse(passed.record.startedAt), 4);
    const passedAt = Date.parse(passed.record.canaryPassedAt!);
    const restStart = passedAt + handoutLeadMs(3);
    assert.ok(restStart > windowStart + 5_000, 'the canary took longer than a spacing');
    assert.equal(canary.notBefore, windowStart);
    assert.deepEqual(
      others.map((o) => o.notBefore),
      [restStart, restStart + 5_000, restStart + 10_000],
    );
    // A new controller computes the same times from the recorded moment: none is rewritten.
    const rewritesBefore = rewrites;
    await h.stopController(controller);
    controller = await h.startController();
    const done = await complete('sc', two);
    assert.equal(rewrites, rewritesBefore, 'no not-before rewritten after the restart');
    const record = done.status?.history?.find((r) => r.name === two) as { canaryPassedAt?: string };
    assert.equal(record.canaryPassedAt, passed.record.canaryPassedAt, 'the recorded moment stays');
  });

  test('a canary that fails holds everyone else: the breaking change reaches the canary only', async () => {
    const three = revisionNameFor('sc', { 'sc-kubelet': brokenConfig('three') });
    await h.applyConfig('sc-kubelet', brokenConfig('three'), { pool: 'sc' });
    const paused: PoolObject = await eventually(
      'paused by the failure policy',
      async () => {
        const p = await h.getPool('sc');
        return condition(p, 'Paused')?.reason === 'FailurePolicy' ? p : undefined;
      },
      60_000,
    );
    await new Promise((r) => setTimeout(r, 1_000));
    const hit = (await h.nodes('pool=sc')).filter(
      (n) => n.metadata.annotations?.[DESIRED_REVISION_ANNOTATION] === three,
    );
    assert.equal(hit.length, 1, `${hit.map((n) => n.metadata.name)} given the breaking change`);
    assert.equal(paused.status?.failed, 1);
  });
});
