// A drain blocked by a PodDisruptionBudget under each of spec.drain's escalations, on the embedded API
// server with real evictions (its disruption controller answers 429 with the budget in the causes):
// Fail keeps trying until the progress deadline fails the node; Skip leaves the node cordoned,
// marked and counted while the rollout goes on, and lets it finish once the budget allows; Force deletes the refused pods after
// the timeout but never those a budget protects, unless forceDeleteBudgetedPods; a pod with emptyDir
// data blocks when deleteEmptyDirData is false, and Force deletes it; pods the skip selector picks
// are left on the node.

import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { NodeConfigPoolSpec } from '../../../src/api/types.ts';
import type { Node } from '../../../src/kube/types.ts';
import {
  type ClusterHarness,
  completeAfter,
  condition,
  drainingConfig,
  eventually,
  type PoolObject,
  rollingUpdate,
} from '../../support/cluster-harness.ts';
import { clusterPerSuite } from '../../support/suite-cluster.ts';
import { deleteBudget, disruptionBudget, podsOn, runningPod } from '../../support/workloads.ts';

describe('drain escalations', () => {
  let h: ClusterHarness;
  const poolWhere = (name: string, what: string, ok: (p: PoolObject) => boolean, ms = 40_000) =>
    h.poolWhere(name, what, ok, ms);
  const podsOnNode = (node: string) => podsOn(h.admin, node);

  /** A pool of `count` nodes on its first revision (drainingConfig), draining as `spec` says. */
  async function rollout(
    name: string,
    spec: Partial<NodeConfigPoolSpec>,
    progressDeadlineSeconds: number,
    count = 1,
  ) {
    await h.startNodes(name, count);
    const first = await h.poolOnFirstRevision(
      name,
      `${name}-kubelet`,
      drainingConfig('one'),
      { updateStrategy: rollingUpdate({ progressDeadlineSeconds }), ...spec },
      40_000,
    );
    return { node: `${name}-0`, first: first.status?.targetRevision };
  }

  /** A running pod labelled app=`name` on `node`, and a budget over it that keeps it. */
  async function budgetedPod(name: string, node: string): Promise<void> {
    await runningPod(h.admin, name, node);
    await disruptionBudget(h.admin, name);
  }

  clusterPerSuite((started) => {
    h = started;
  });

  test('Fail: the budget holds the drain until the deadline fails the node', async () => {
    const { node } = await rollout('esc-fail', { drain: { timeoutSeconds: 1, onTimeout: 'Fail' } }, 4);
    await budgetedPod('fail-db', node);
    await h.applyConfig('esc-fail-kubelet', drainingConfig('two'), { pool: 'esc-fail' });
    const paused = await poolWhere(
      'esc-fail',
      'paused',
      (p) => condition(p, 'Paused')?.reason === 'FailurePolicy',
    );
    assert.match(
      condition(paused, 'Paused')?.message ?? '',
      /esc-fail-0 \(drain did not finish within 4s: evicting default\/fail-db: PodDisruptionBudget default\/fail-db: The disruption budget fail-db needs 1 healthy pods/,
    );
    assert.deepEqual(await podsOnNode(node), ['fail-db']);
  });

  test('Skip: the node stays cordoned, marked and counted, the rollout goes on, and it finishes when the budget allows', async () => {
    const name = 'esc-skipped';
    const { node: stuck, first } = await rollout(
      name,
      { drain: { timeoutSeconds: 1, onTimeout: 'Skip', maxSkipped: 1 } },
      8,
      3,
    );
    await budgetedPod('skipped-db', stuck);
    await h.applyConfig(`${name}-kubelet`, drainingConfig('two'), { pool: name });
    const target = (await poolWhere(name, 'the new target', (p) => p.status?.targetRevision !== first)).status
      ?.targetRevision;
    // The rollout goes on without the skipped node: the other two get the target, one at a time.
    const degraded = await poolWhere(
      name,
      'the others updated while the first is skipped',
      (p) => condition(p, 'Degraded')?.reason === 'DrainSkipped' && (p.status?.updated ?? 0) >= 2,
      60_000,
    );
    const message = condition(degraded, 'Degraded')?.message ?? '';
    assert.match(message, new RegExp(`${stuck} \\(skipped: drain did not finish within 1s`));
    assert.match(message, /evicting default\/skipped-db: PodDisruptionBudget default\/skipped-db/);
    assert.equal(condition(degraded, 'Complete')?.status, 'False');
    assert.equal(condition(degraded, 'Paused')?.status, 'False', 'a skip trips no failure policy');
    const [skippedNode] = (await h.nodes(`pool=${name},nodeherd.io/drain-skipped=true`)) as Node[];
    assert.equal(skippedNode?.metadata.name, stuck, 'marked with the label');
    assert.equal(skippedNode?.spec?.unschedulable, true, 'still cordoned');
    assert.match(
      skippedNode?.metadata.annotations?.['nodeherd.io/drain-skipped'] ?? '',
      /PodDisruptionBudget default\/skipped-db/,
    );
    const skipCondition = skippedNode?.status?.conditions?.find((c) => c.type === 'NodeConfigDrainSkipped');
    assert.equal(skipCondition?.status, 'True');
    assert.notEqual(skippedNode?.metadata.annotations?.['nodeherd.io/current-revision'], target);
    assert.ok(
      (await h.events('Node', stuck)).some((e) => e.reason === 'DrainSkipped' && e.type === 'Warning'),
    );
    // Past the progress deadline the skipped node has not failed.
    await new Promise((resolve) => setTimeout(resolve, 9_000));
    const later = await h.getPool(name);
    assert.equal(condition(later, 'Degraded')?.reason, 'DrainSkipped');
    assert.equal(later.status?.failed ?? 0, 0);
    assert.deepEqual(await podsOnNode(stuck), ['skipped-db']);
    // The budget lets go: the drain, still going, finishes; the node is updated and the marks go.
    await deleteBudget(h.admin, 'skipped-db');
    await poolWhere(
      name,
      'complete on the new revision',
      (p) => p.status?.targetRevision === target && condition(p, 'Complete')?.status === 'True',
      60_000,
    );
    const done = await h.getPool(name);
    assert.equal(condition(done, 'Degraded')?.status, 'False');
    const [after] = (await h.nodes(`pool=${name}`)).filter((n) => n.metadata.name === stuck) as Node[];
    assert.equal(after?.metadata.labels?.['nodeherd.io/drain-skipped'], undefined);
    assert.equal(after?.metadata.annotations?.['nodeherd.io/drain-skipped'], undefined);
    assert.equal(
      after?.status?.conditions?.find((c) => c.type === 'NodeConfigDrainSkipped')?.status,
      'False',
    );
    assert.notEqual(after?.spec?.unschedulable, true);
  });

  test('Force: refused pods go after the timeout, but never those a budget protects', async () => {
    const { node } = await rollout(
      'esc-force',
      { drain: { timeoutSeconds: 1, onTimeout: 'Force', deleteEmptyDirData: false } },
      6,
    );
    await budgetedPod('force-db', node);
    await runningPod(h.admin, 'force-cache', node, { emptyDir: true }); // emptyDir data, no budget
    await h.applyConfig('esc-force-kubelet', drainingConfig('two'), { pool: 'esc-force' });
    const held = await poolWhere('esc-force', 'held by the budget alone', (p) =>
      /Force does not delete pods a PodDisruptionBudget protects/.test(
        condition(p, 'Progressing')?.message ?? '',
      ),
    );
    assert.match(condition(held, 'Progressing')?.message ?? '', /PodDisruptionBudget default\/force-db/);
    await eventually(
      'the emptyDir pod deleted',
      async () => !(await podsOnNode(node)).includes('force-cache'),
    );
    const forced = (await h.events('Node', node)).filter((e) => e.reason === 'ForceDeleted');
    assert.deepEqual(
      forced.map((e) => e.message.split(':')[0]),
      ['deleted pod default/force-cache'],
    );
    // Before the timeout the emptyDir pod blocked like any refusal, and was named.
    const blockedEvents = (await h.events('Node', node)).filter((e) => e.reason === 'DrainBlocked');
    assert.ok(
      blockedEvents.some((e) => /default\/force-cache: it has emptyDir data/.test(e.message)),
      JSON.stringify(blockedEvents),
    );
    const paused = await poolWhere(
      'esc-force',
      'paused at the deadline',
      (p) => condition(p, 'Paused')?.reason === 'FailurePolicy',
    );
    assert.match(condition(paused, 'Paused')?.message ?? '', /drain did not finish within 6s/);
    assert.deepEqual(await podsOnNode(node), ['force-db']);
  });

  test('Force with forceDeleteBudgetedPods: the protected pod goes too, and the rollout completes', async () => {
    const { node, first } = await rollout(
      'esc-override',
      {
        drain: {
          timeoutSeconds: 1,
          onTimeout: 'Force',
          forceDeleteBudgetedPods: true,
          gracePeriodSeconds: 0,
        },
      },
      30,
    );
    await budgetedPod('override-db', node);
    await h.applyConfig('esc-override-kubelet', drainingConfig('two'), { pool: 'esc-override' });
    await poolWhere('esc-override', 'second revision complete', completeAfter(first));
    assert.deepEqual(await podsOnNode(node), []);
    const events = await h.events('Node', node);
    assert.ok(
      events.some(
        (e) => e.reason === 'DrainBlocked' && /PodDisruptionBudget default\/override-db/.test(e.message),
      ),
    );
    assert.ok(events.some((e) => e.reason === 'ForceDeleted' && /default\/override-db/.test(e.message)));
  });

  test('skipPodSelector: the pods it picks stay, and the drain finishes without them', async () => {
    const { node, first } = await rollout(
      'esc-skip',
      { drain: { skipPodSelector: { matchLabels: { app: 'skip-db' } } } },
      30,
    );
    await budgetedPod('skip-db', node);
    await runningPod(h.admin, 'skip-web', node);
    await h.applyConfig('esc-skip-kubelet', drainingConfig('two'), { pool: 'esc-skip' });
    await poolWhere('esc-skip', 'second revision complete', completeAfter(first));
    assert.deepEqual(await podsOnNode(node), ['skip-db']);
  });
});
