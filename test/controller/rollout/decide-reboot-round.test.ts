// Reboot rounds in the pure rollout decision (issue 34.1): nodes whose OS asks for a reboot, in a pool
// whose policy is Reboot, go through the same batches as a config change; docs/controller.md,
// "Reboot rounds".

import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { nodesWaitingForReboot, rebootRoundToBegin } from '../../../src/controller/pools/reboot-round.ts';
import { decideRollout } from '../../../src/controller/rollout/decide.ts';
import type { NodeSnapshot, RolloutInput } from '../../../src/controller/rollout/types.ts';
import { input, NOW, node, settings, updated } from '../../support/rollout-fixtures.ts';

const R2 = { name: 'r2', number: 2 };
/** A pool complete on r2: a reboot round is a rollout of r2 again. */
function round(nodes: NodeSnapshot[], over: Partial<RolloutInput> = {}): RolloutInput {
  return input(nodes, { lastComplete: R2, osReboots: true, episodeStart: NOW - 60_000, ...over });
}
/** Healthy on r2 long before this round began. */
const done = (name: string, over: Partial<NodeSnapshot> = {}) =>
  updated(name, 3_600_000, { updateStartedAt: NOW - 7_200_000, ...over });
const asks = (name: string, over: Partial<NodeSnapshot> = {}) => done(name, { rebootWanted: true, ...over });
const phases = (d: ReturnType<typeof decideRollout>) =>
  Object.fromEntries(d.verdicts.map((v) => [v.name, v.phase]));

describe('reboot round', () => {
  test('nodes the OS asks to reboot are drained and rebooted two at a time; the others stay', () => {
    const d = decideRollout(
      round([asks('a'), done('b'), asks('c'), asks('d')], { settings: settings({ maxUnavailable: 2 }) }),
    );
    assert.deepEqual(d.starts, [
      { node: 'a', revision: 'r2', drain: true, free: false, reboot: true },
      { node: 'c', revision: 'r2', drain: true, free: false, reboot: true },
    ]);
    assert.equal(phases(d).b, 'Updated');
    assert.equal(phases(d).d, 'Pending');
    assert.equal(d.blocked?.reason, 'BudgetExhausted');
    assert.equal(d.complete, false);
  });

  test('with policy Report (no osReboots) nothing starts and the pool is complete', () => {
    const d = decideRollout(round([asks('a'), done('b')], { osReboots: false }));
    assert.deepEqual(d.starts, []);
    assert.equal(d.complete, true);
  });

  test('a drain for the reboot goes on and ends in a reboot request', () => {
    const draining = asks('a', {
      drainingFor: 'r2',
      cordoned: true,
      cordonedByUs: true,
      updateStartedAt: NOW - 10_000,
    });
    const d = decideRollout(round([draining, asks('b')]));
    assert.equal(phases(d).a, 'Draining');
    assert.deepEqual(d.drain, ['a']);
    assert.deepEqual(d.rebootAfterDrain, ['a']);
    assert.deepEqual(d.uncordon, []);
    assert.deepEqual(d.starts, [], 'the drain uses the budget of 1');
  });

  test('a drain for a reboot the OS no longer asks for stops, and the cordon goes', () => {
    const d = decideRollout(
      round([
        done('a', { drainingFor: 'r2', cordoned: true, cordonedByUs: true, updateStartedAt: NOW - 10_000 }),
      ]),
    );
    assert.deepEqual(d.abortDrain, ['a']);
    assert.deepEqual(d.uncordon, [{ node: 'a', reason: 'Healthy' }]);
  });

  test('an unanswered request is an update in flight; answered and soaked, the node is Updated', () => {
    const requested = '2025-06-02T09:59:00.000Z';
    const rebooting = asks('a', {
      rebootWanted: false,
      rebootRequested: requested,
      ready: false,
      cordoned: true,
      cordonedByUs: true,
      updateStartedAt: NOW - 30_000,
      wasHealthy: false,
    });
    let d = decideRollout(round([rebooting, asks('b')]));
    assert.equal(phases(d).a, 'Updating');
    assert.deepEqual(d.starts, []);
    // Back with the answer: uncordoned, soaked, then Updated; b goes next.
    const back = { ...rebooting, ready: true, rebooted: requested, healthySince: NOW - 1_000 };
    d = decideRollout(round([back, asks('b')], { settings: settings({ minReadySeconds: 60 }) }));
    assert.deepEqual(d.uncordon, [{ node: 'a', reason: 'Healthy' }]);
    const soaked = {
      ...back,
      cordoned: false,
      cordonedByUs: false,
      healthySince: NOW - 61_000,
      updateStartedAt: NOW - 62_000,
    };
    d = decideRollout(round([soaked, asks('b')], { settings: settings({ minReadySeconds: 60 }) }));
    assert.equal(phases(d).a, 'Updated');
    assert.deepEqual(
      d.starts.map((s) => s.node),
      ['b'],
    );
  });

  test('a reboot that does not come back within progressDeadlineSeconds fails and pauses, even with Rollback', () => {
    const lost = asks('a', {
      rebootWanted: false,
      rebootRequested: 'x',
      ready: false,
      notReadyReason: 'NodeStatusUnknown',
      updateStartedAt: NOW - 700_000,
      // Health seen before the request is not health after it (node-snapshot's update key).
      wasHealthy: false,
    });
    const d = decideRollout(
      round([lost, asks('b')], {
        episodeStart: NOW - 800_000,
        settings: settings({ failurePolicy: { action: 'Rollback', maxFailures: 0 } }),
      }),
    );
    assert.equal(d.failures[0]?.failure?.reason, 'ProgressDeadlineExceeded');
    assert.match(d.failures[0]?.failure?.message ?? '', /NotReady \(NodeStatusUnknown\)/);
    assert.equal(d.failureAction?.action, 'Pause');
    assert.match(d.failureAction?.message ?? '', /a reboot cannot be rolled back/);
    assert.deepEqual(d.starts, []);
  });

  test('a node back Ready whose agent has not answered is not healthy (still rebooting)', () => {
    const d = decideRollout(
      round(
        [
          asks('a', {
            rebootWanted: false,
            rebootRequested: 'x',
            updateStartedAt: NOW - 700_000,
            wasHealthy: false,
          }),
        ],
        {
          episodeStart: NOW - 800_000,
        },
      ),
    );
    assert.equal(d.failures[0]?.failure?.reason, 'ProgressDeadlineExceeded');
    assert.match(d.failures[0]?.failure?.message ?? '', /rebooting \(requested x\)/);
  });

  test('the canary of a round is its own first nodes, not the nodes already on the target', () => {
    const nodes = [done('a'), done('b'), done('c'), asks('d'), asks('e'), asks('f')];
    let d = decideRollout(round(nodes, { settings: settings({ maxUnavailable: 3, canary: { nodes: 1 } }) }));
    assert.deepEqual(
      d.starts.map((s) => s.node),
      ['d'],
    );
    assert.equal(d.blocked?.reason, 'WaitingForCanary');
    // d rebooted and soaked in this round: the rest go.
    const rebootedD = done('d', {
      updateStartedAt: NOW - 30_000,
      healthySince: NOW - 20_000,
      rebooted: 'x',
      rebootRequested: 'x',
    });
    d = decideRollout(
      round([done('a'), done('b'), done('c'), rebootedD, asks('e'), asks('f')], {
        settings: settings({ maxUnavailable: 3, canary: { nodes: 1 } }),
      }),
    );
    assert.deepEqual(
      d.starts.map((s) => s.node),
      ['e', 'f'],
    );
  });

  test('a rollback to the last completed revision is no reboot round: its canary is the usual one', () => {
    const canary = settings({ maxUnavailable: 2, canary: { nodes: 1 } });
    // All on r2: a round, whose canary is its own first node (a), not c, which was on r2 already.
    let d = decideRollout(round([asks('a'), done('c')], { settings: canary }));
    assert.equal(d.budget.canary?.passed, false);
    // b was given r3 and the pool is pinned back to r2: a rollback, where c being Updated passes the canary.
    const onR3 = done('b', { desiredRevision: 'r3', currentRevision: 'r3', updateStartedAt: NOW - 10_000 });
    d = decideRollout(round([asks('a'), onR3, done('c')], { settings: canary }));
    assert.equal(d.budget.canary?.passed, true);
  });

  test('a closed maintenance window holds the round', () => {
    const d = decideRollout(
      round([asks('a')], {
        settings: settings({
          maintenanceWindows: [{ schedule: '0 2 * * *', duration: '1h', timeZone: 'UTC' }],
        }),
      }),
    );
    assert.deepEqual(d.starts, []);
    assert.equal(d.blocked?.reason, 'OutsideMaintenanceWindow');
  });

  test('a node whose next revision changes gets the revision and the reboot in one start', () => {
    // A config rollout of r2 (last complete r1): b asks for a reboot and is not on r2 yet.
    const d = decideRollout(input([node('b', { rebootWanted: true })], { osReboots: true }));
    assert.deepEqual(d.starts, [{ node: 'b', revision: 'r2', drain: true, free: false, reboot: true }]);
  });
});

describe('when a reboot round begins', () => {
  const base = {
    osReboots: true,
    paused: false,
    target: R2,
    lastComplete: R2,
    history: [{ revision: 2, name: 'r2', startedAt: '2025-06-02T08:00:00Z', result: 'Complete' as const }],
  };
  test('a complete pool with nodes asking begins one, naming them', () => {
    assert.deepEqual(rebootRoundToBegin({ ...base, nodes: [asks('b'), done('c'), asks('a')] }), ['a', 'b']);
  });
  test('not with policy Report, paused, mid-rollout, or when every request is handed out', () => {
    assert.equal(rebootRoundToBegin({ ...base, osReboots: false, nodes: [asks('a')] }), undefined);
    assert.equal(rebootRoundToBegin({ ...base, paused: true, nodes: [asks('a')] }), undefined);
    assert.equal(
      rebootRoundToBegin({ ...base, lastComplete: { name: 'r1', number: 1 }, nodes: [asks('a')] }),
      undefined,
    );
    assert.equal(
      rebootRoundToBegin({
        ...base,
        history: [{ ...base.history[0]!, result: 'InProgress' }],
        nodes: [asks('a')],
      }),
      undefined,
    );
    assert.equal(rebootRoundToBegin({ ...base, nodes: [asks('a', { rebootRequested: 'x' })] }), undefined);
    assert.deepEqual(nodesWaitingForReboot([asks('a', { rebootRequested: 'x', rebooted: 'x' })]), ['a']);
  });
});
