// Waves across pools against the real controller, API server and simulated nodes: three pools (canary →
// a → b) share one NodeConfig, so one change renders a new revision in each. They roll in order, each
// after the one before completed and soaked; when the canary fails and rolls back, a and b never start
// the new revision and say why. A pool waiting for a pool that does not exist holds until it appears.

import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { DESIRED_REVISION_ANNOTATION } from '../../../src/api/node-protocol.ts';
import type { NodeConfigPoolSpec, NodeConfigSpec } from '../../../src/api/types.ts';
import {
  brokenConfig,
  type ClusterHarness,
  complete,
  condition,
  kubeletConfig,
  type PoolObject,
  revisionNameFor,
} from '../../support/cluster-harness.ts';
import { clusterPerSuite } from '../../support/suite-cluster.ts';

const seconds = (iso: string | undefined) => Date.parse(iso ?? '') / 1000;

describe('waves across pools', () => {
  let h: ClusterHarness;

  const poolWhere = (name: string, what: string, ok: (p: PoolObject) => boolean, ms = 30_000) =>
    h.poolWhere(name, `${name}: ${what}`, ok, ms);
  const completeOn = (name: string, revision: string) =>
    poolWhere(name, `complete on ${revision}`, complete(revision));
  /** Nodes of the pool told to apply `revision`. */
  const given = async (pool: string, revision: string) =>
    (await h.nodes(`pool=${pool}`)).filter(
      (n) => n.metadata.annotations?.[DESIRED_REVISION_ANNOTATION] === revision,
    ).length;

  /** Three pools of two nodes sharing the NodeConfig `config`; prefix-a waits for the canary, -b for -a. */
  async function createWave(prefix: string, spec: NodeConfigSpec, soakSeconds: number) {
    const names = [`${prefix}-canary`, `${prefix}-a`, `${prefix}-b`] as const;
    for (const name of names) await h.fleet.add(2, { labels: { pool: name } });
    await h.applyConfig(`${prefix}-config`, spec, { wave: prefix });
    const strategy = (after?: string): NodeConfigPoolSpec['updateStrategy'] => ({
      type: 'RollingUpdate',
      ...(after ? { wave: { after: [after], soakSeconds } } : {}),
      rollingUpdate: {
        maxUnavailable: 1,
        progressDeadlineSeconds: 20,
        failurePolicy: { action: 'Rollback', maxFailures: 0 },
      },
    });
    for (const [i, name] of names.entries()) {
      await h.createPool(name, {
        nodeSelector: { matchLabels: { pool: name } },
        configSelector: { matchLabels: { wave: prefix } },
        updateStrategy: strategy(i === 0 ? undefined : names[i - 1]),
      });
    }
    for (const name of names) await completeOn(name, revisionNameFor(name, { [`${prefix}-config`]: spec }));
    return names;
  }

  clusterPerSuite((started) => {
    h = started;
  });

  test('a change rolls canary, then a, then b: each after the one before completed and soaked', async () => {
    const [canary, a, b] = await createWave('happy', kubeletConfig('v1'), 2);
    await h.applyConfig('happy-config', kubeletConfig('v2'), { wave: 'happy' });
    const v2 = (pool: string) => revisionNameFor(pool, { 'happy-config': kubeletConfig('v2') });

    const done = new Map<string, PoolObject>();
    for (const pool of [canary, a, b]) done.set(pool, await completeOn(pool, v2(pool)));
    const record = (pool: string) => done.get(pool)!.status?.history?.find((r) => r.name === v2(pool));
    // Timestamps have whole seconds: a 2 s soak shows as at least 1 s between them.
    for (const [before, next] of [
      [canary, a],
      [a, b],
    ] as const) {
      const finished = seconds(record(before)?.finishedAt);
      const started = seconds(record(next)?.startedAt);
      assert.ok(
        started - finished >= 1,
        `${next} started ${record(next)?.startedAt}, ${before} finished ${record(before)?.finishedAt}`,
      );
    }
    // While waiting, each follower said for whom (condition changes are Events on the pool).
    const waited = (await h.events('NodeConfigPool', b)).filter((e) => e.reason === 'WaitingForPools');
    assert.ok(waited.length > 0, 'b recorded WaitingForPools');
    assert.match(
      waited[0]!.message,
      new RegExp(`${v2(b)} \\(revision 2\\) waits: waiting for 1 pool: ${a} `),
    );
    for (const pool of [a, b]) {
      assert.equal(condition(done.get(pool)!, 'Progressing')?.reason, 'RolloutComplete');
    }
  });

  test('a canary that fails and rolls back holds the wave: a and b never start the new revision', async () => {
    const [canary, a, b] = await createWave('failing', kubeletConfig('v1'), 0);
    const v1 = (pool: string) => revisionNameFor(pool, { 'failing-config': kubeletConfig('v1') });
    const bad = (pool: string) => revisionNameFor(pool, { 'failing-config': brokenConfig('v2') });
    await h.applyConfig('failing-config', brokenConfig('v2'), { wave: 'failing' });

    const rolledBack = await poolWhere(
      canary,
      'rolled back',
      (p) => condition(p, 'RolledBack')?.status === 'True' && condition(p, 'Complete')?.status === 'True',
    );
    assert.equal(rolledBack.status?.targetRevision, v1(canary));
    const held = await poolWhere(a, 'held by the canary', (p) =>
      /rolled back/.test(condition(p, 'Progressing')?.message ?? ''),
    );
    assert.equal(condition(held, 'Progressing')?.reason, 'WaitingForPools');
    assert.equal(condition(held, 'Progressing')?.status, 'False');
    assert.equal(condition(held, 'Complete')?.status, 'False');
    assert.match(condition(held, 'Progressing')?.message ?? '', new RegExp(`${canary} rolled back: `));
    const heldB = await poolWhere(b, 'held by a', (p) =>
      (condition(p, 'Progressing')?.message ?? '').includes(`${a} has not started rolling out ${bad(a)}`),
    );
    assert.equal(condition(heldB, 'Progressing')?.reason, 'WaitingForPools');

    // Some time later: still nothing of the bad revision on a or b.
    await new Promise((r) => setTimeout(r, 2_000));
    for (const pool of [a, b]) {
      const p = await h.getPool(pool);
      assert.equal(p.status?.targetRevision, v1(pool));
      assert.equal(await given(pool, bad(pool)), 0, `${pool} nodes given the bad revision`);
      assert.equal(await given(pool, v1(pool)), 2);
    }

    // A fixed config ends the canary's rollback; the wave goes on, in order.
    await h.applyConfig('failing-config', kubeletConfig('v3'), { wave: 'failing' });
    for (const pool of [canary, a, b])
      await completeOn(pool, revisionNameFor(pool, { 'failing-config': kubeletConfig('v3') }));
  });

  test('a pool waiting for a pool that does not exist holds, and goes once it does', async () => {
    await h.fleet.add(1, { labels: { pool: 'lonely' } });
    await h.applyConfig('lonely-config', kubeletConfig('v1'), { wave: 'lonely' });
    const pool = (name: string, after?: string): NodeConfigPoolSpec => ({
      nodeSelector: { matchLabels: { pool: name } },
      configSelector: { matchLabels: { wave: 'lonely' } },
      updateStrategy: { type: 'RollingUpdate', ...(after ? { wave: { after: [after] } } : {}) },
    });
    await h.createPool('lonely', pool('lonely', 'ghost'));
    // Its first revision does not wait: joining is not an update.
    await completeOn('lonely', revisionNameFor('lonely', { 'lonely-config': kubeletConfig('v1') }));
    await h.applyConfig('lonely-config', kubeletConfig('v2'), { wave: 'lonely' });
    const held = await poolWhere(
      'lonely',
      'held',
      (p) => condition(p, 'Progressing')?.reason === 'WaitingForPools',
    );
    assert.match(condition(held, 'Progressing')?.message ?? '', /ghost does not exist/);

    // A pool with no node is never Complete (issue 33), so it would hold lonely for ever: ghost has one.
    await h.fleet.add(1, { labels: { pool: 'ghost' } });
    await h.createPool('ghost', pool('ghost'));
    await completeOn('lonely', revisionNameFor('lonely', { 'lonely-config': kubeletConfig('v2') }));
  });

  test('pools that wait for each other in a cycle hold, naming the cycle', async () => {
    // A pool with no node is never Complete (issue 33): each has one.
    for (const name of ['cycle-x', 'cycle-y']) await h.fleet.add(1, { labels: { pool: name } });
    await h.applyConfig('cycle-config', kubeletConfig('v1'), { wave: 'cycle' });
    const pool = (name: string, after: string): NodeConfigPoolSpec => ({
      nodeSelector: { matchLabels: { pool: name } },
      configSelector: { matchLabels: { wave: 'cycle' } },
      updateStrategy: { type: 'RollingUpdate', wave: { after: [after] } },
    });
    await h.createPool('cycle-x', pool('cycle-x', 'cycle-y'));
    await h.createPool('cycle-y', pool('cycle-y', 'cycle-x'));
    for (const name of ['cycle-x', 'cycle-y'])
      await completeOn(name, revisionNameFor(name, { 'cycle-config': kubeletConfig('v1') }));
    await h.applyConfig('cycle-config', kubeletConfig('v2'), { wave: 'cycle' });
    for (const [name, other] of [
      ['cycle-x', 'cycle-y'],
      ['cycle-y', 'cycle-x'],
    ] as const) {
      const held = await poolWhere(
        name,
        'held by the cycle',
        (p) => condition(p, 'Progressing')?.reason === 'WaveCycle',
      );
      assert.match(
        condition(held, 'Progressing')?.message ?? '',
        new RegExp(`\\(${name} → ${other} → ${name}\\)`),
      );
      assert.equal(
        held.status?.targetRevision,
        revisionNameFor(name, { 'cycle-config': kubeletConfig('v1') }),
      );
    }
  });
});
