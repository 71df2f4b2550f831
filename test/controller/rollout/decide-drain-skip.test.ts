// spec.drain.onTimeout Skip in the pure rollout decision (issue 34.2): a drain past its timeout leaves
// the node cordoned, draining and unavailable, and the rollout goes on without it (outside
// maxUnavailable), up to maxSkipped; a
// drain timing out beyond the bound fails at the progress deadline as with Fail.

import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { decideRollout, judgeRollout } from '../../../src/controller/rollout/decide.ts';
import type { NodeSnapshot, RolloutInput } from '../../../src/controller/rollout/types.ts';
import { input, NOW, node, settings } from '../../support/rollout-fixtures.ts';

const BLOCKED = 'evicting default/db-0: PodDisruptionBudget default/db: needs 1 healthy pods';

/** Cordoned by us and draining for r2 since `agoMs`, held by a budget. */
const draining = (name: string, agoMs: number, over: Partial<NodeSnapshot> = {}) =>
  node(name, {
    drainingFor: 'r2',
    cordoned: true,
    cordonedByUs: true,
    updateStartedAt: NOW - agoMs,
    needsDrain: true,
    drainBlocked: BLOCKED,
    ...over,
  });
const pending = (name: string) => node(name, { needsDrain: true });
const skipping = (over: Partial<RolloutInput> = {}, maxSkipped = 1): RolloutInput =>
  input([], { drainSkip: { timeoutSeconds: 30, maxSkipped }, ...over });
const phases = (d: { verdicts: { name: string; phase: string }[] }) =>
  Object.fromEntries(d.verdicts.map((v) => [v.name, v.phase]));

describe('drain onTimeout Skip', () => {
  test('before the timeout the node drains and holds the budget', () => {
    const d = decideRollout({ ...skipping(), nodes: [draining('a', 10_000), pending('b')] });
    assert.equal(phases(d).a, 'Draining');
    assert.deepEqual(d.starts, []);
    assert.equal(d.blocked?.reason, 'BudgetExhausted');
    assert.equal(d.requeueAfterMs, 20_000, 'woken when the timeout passes');
  });

  test('past the timeout it is skipped: still cordoned, draining, unavailable; the rollout goes on', () => {
    const d = decideRollout({
      ...skipping(),
      nodes: [draining('a', 31_000), pending('b'), pending('c')],
    });
    assert.equal(phases(d).a, 'DrainSkipped');
    const a = d.verdicts.find((v) => v.name === 'a')!;
    assert.equal(a.available, false, 'unavailable (the status counts it)');
    assert.equal(a.counted, false, 'outside maxUnavailable: maxSkipped bounds it');
    assert.match(
      a.detail ?? '',
      /skipped: drain did not finish within 30s .*PodDisruptionBudget default\/db/,
    );
    assert.deepEqual(d.drain, ['a'], 'its drain goes on');
    assert.deepEqual(d.uncordon, [], 'it stays cordoned');
    assert.deepEqual(
      d.starts.map((s) => s.node),
      ['b'],
      'the next starts within the budget of 1',
    );
    assert.equal(d.budget.unavailable, 1);
    assert.deepEqual(d.failures, []);
    assert.equal(d.failureAction, undefined);
    assert.equal(d.complete, false);
  });

  test('a skipped node is not failed at the progress deadline', () => {
    const d = decideRollout({ ...skipping(), nodes: [draining('a', 700_000)] });
    assert.equal(phases(d).a, 'DrainSkipped');
    assert.equal(judgeRollout({ ...skipping(), nodes: [draining('a', 700_000)] }).failureAction, undefined);
  });

  test('beyond maxSkipped the later timeout waits for the deadline and fails as with Fail', () => {
    const nodes = [draining('a', 100_000), draining('b', 40_000)];
    const before = decideRollout({ ...skipping({ settings: settings({ maxUnavailable: 2 }) }), nodes });
    assert.deepEqual(phases(before), { a: 'DrainSkipped', b: 'Draining' });
    const late = [draining('a', 700_000), draining('b', 640_000)];
    const after = decideRollout({
      ...skipping({ settings: settings({ maxUnavailable: 2 }), episodeStart: NOW - 1_000_000 }),
      nodes: late,
    });
    assert.deepEqual(phases(after), { a: 'DrainSkipped', b: 'Failed' });
    assert.equal(after.failures[0]?.failure?.reason, 'DrainTimeout');
    assert.equal(after.failureAction?.action, 'Pause');
    const two = decideRollout({ ...skipping({ settings: settings({ maxUnavailable: 2 }) }, 2), nodes: late });
    assert.deepEqual(phases(two), { a: 'DrainSkipped', b: 'DrainSkipped' });
  });

  test('a node that failed beyond the bound (uncordoned) is not skipped later', () => {
    const failedEarlier = draining('b', 640_000, { cordoned: false, cordonedByUs: false });
    const d = decideRollout({ ...skipping(), nodes: [failedEarlier] });
    assert.equal(phases(d).b, 'Failed');
  });

  test('a rollback (another target) aborts the skipped drain and lifts the cordon', () => {
    const d = decideRollout({
      ...skipping({ target: { name: 'r1', number: 1 }, lastComplete: { name: 'r1', number: 1 } }),
      nodes: [draining('a', 100_000)],
    });
    assert.deepEqual(d.abortDrain, ['a']);
    assert.deepEqual(
      d.uncordon.map((u) => u.node),
      ['a'],
    );
    assert.notEqual(phases(d).a, 'DrainSkipped');
  });

  test('without Skip the same drain is Draining until the deadline fails it', () => {
    assert.equal(phases(decideRollout(input([draining('a', 100_000)]))).a, 'Draining');
    assert.equal(phases(decideRollout(input([draining('a', 700_000)]))).a, 'Failed');
  });
});
