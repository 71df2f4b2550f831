// Drains: a change whose plan says Drain cordons the node, evicts its pods through the Eviction API
// (DaemonSet pods stay), waits while a PodDisruptionBudget refuses, and uncordons once the node is
// healthy on the new revision; a drain that cannot finish in time fails the node and lifts the cordon.

import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { CORDONED_BY_ANNOTATION, DRAINING_FOR_ANNOTATION } from '../../../src/controller/annotations.ts';
import {
  type ClusterHarness,
  completeAfter,
  condition,
  drainingConfig,
  eventually,
  rollingUpdate,
} from '../../support/cluster-harness.ts';
import { clusterPerSuite } from '../../support/suite-cluster.ts';
import { disruptionBudget, podsOn, runningPod } from '../../support/workloads.ts';

describe('drain', () => {
  let h: ClusterHarness;
  clusterPerSuite((started) => {
    h = started;
  });

  test('cordon, evict through the Eviction API, wait for a PodDisruptionBudget, uncordon when healthy', async () => {
    await h.startNodes('drain', 2, { zones: ['zone-a', 'zone-b'] });
    const first = await h.poolOnFirstRevision('drain', 'drain-kubelet', drainingConfig('one'), {
      updateStrategy: rollingUpdate({ progressDeadlineSeconds: 60 }),
    });

    await runningPod(h.admin, 'web-1', 'drain-0', { labels: { app: 'web' } });
    await runningPod(h.admin, 'web-2', 'drain-0', { labels: { app: 'web' } });
    await runningPod(h.admin, 'node-agent', 'drain-0', { labels: { app: 'agent' }, daemonSet: true });
    await disruptionBudget(h.admin, 'web', 2);

    await h.applyConfig('drain-kubelet', drainingConfig('two'), { pool: 'drain' });
    const blocked = await h.poolWhere('drain', 'drain blocked by the budget', (p) =>
      /disruption budget/i.test(condition(p, 'Progressing')?.message ?? ''),
    );
    assert.match(condition(blocked, 'Progressing')?.message ?? '', /drain-0: evicting default\/web-\d/);
    const [cordoned] = await h.nodes('kubernetes.io/hostname=drain-0');
    assert.equal(cordoned?.spec?.unschedulable, true);
    assert.equal(cordoned?.metadata.annotations?.[CORDONED_BY_ANNOTATION], 'nodeherd-controller');
    assert.equal(cordoned?.metadata.annotations?.[DRAINING_FOR_ANNOTATION], blocked.status?.targetRevision);
    // Not given the revision yet, and the other node waits its turn (maxUnavailable 1).
    assert.equal(
      cordoned?.metadata.annotations?.['nodeherd.io/desired-revision'],
      first.status?.targetRevision,
    );
    const [other] = await h.nodes('kubernetes.io/hostname=drain-1');
    assert.equal(other?.metadata.annotations?.['nodeherd.io/desired-revision'], first.status?.targetRevision);
    await new Promise((r) => setTimeout(r, 1_000));
    assert.deepEqual(await podsOn(h.admin, 'drain-0'), ['node-agent', 'web-1', 'web-2']);

    await disruptionBudget(h.admin, 'web', 0);
    const done = await h.poolWhere(
      'drain',
      'second revision complete',
      completeAfter(first.status?.targetRevision),
    );
    assert.equal(done.status?.updated, 2);
    assert.deepEqual(await podsOn(h.admin, 'drain-0'), ['node-agent']);
    for (const n of await h.nodes('pool=drain')) {
      assert.notEqual(n.spec?.unschedulable, true, n.metadata.name);
      assert.equal(n.metadata.annotations?.[CORDONED_BY_ANNOTATION], undefined);
      assert.equal(n.metadata.annotations?.[DRAINING_FOR_ANNOTATION], undefined);
    }
    const reasons = (await h.events('Node', 'drain-0')).map((e) => e.reason);
    for (const reason of ['DrainStarted', 'Evicted', 'Drained', 'Uncordoned'])
      assert.ok(reasons.includes(reason), reasons.join());
  });

  test('a drain that cannot finish before the deadline fails the node, lifts the cordon and pauses', async () => {
    await h.startNodes('late', 2, { zones: ['zone-a', 'zone-b'] });
    await h.poolOnFirstRevision('late', 'late-kubelet', drainingConfig('one'), {
      updateStrategy: rollingUpdate({ progressDeadlineSeconds: 2 }),
    });
    await runningPod(h.admin, 'db-1', 'late-0', { labels: { app: 'db' } });
    await disruptionBudget(h.admin, 'db', 1);

    await h.applyConfig('late-kubelet', drainingConfig('two'), { pool: 'late' });
    const paused = await h.poolWhere(
      'late',
      'paused after the drain timeout',
      (p) => condition(p, 'Paused')?.reason === 'FailurePolicy',
    );
    assert.match(
      condition(paused, 'Paused')?.message ?? '',
      /late-0 \(drain did not finish within 2s: evicting default\/db-1/,
    );
    const [node] = await h.nodes('kubernetes.io/hostname=late-0');
    await eventually('uncordoned', async () => {
      const [n] = await h.nodes('kubernetes.io/hostname=late-0');
      return (
        n?.spec?.unschedulable !== true && n?.metadata.annotations?.[CORDONED_BY_ANNOTATION] === undefined
      );
    });
    assert.ok(node);
    assert.deepEqual(await podsOn(h.admin, 'late-0'), ['db-1']);
  });
});
