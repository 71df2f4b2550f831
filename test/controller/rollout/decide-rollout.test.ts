import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { decideRollout } from '../../../src/controller/rollout/decide.ts';
import type { NodeSnapshot } from '../../../src/controller/rollout/types.ts';
import { input, NOW, node, settings, updated, updating } from '../../support/rollout-fixtures.ts';

const started = (d: ReturnType<typeof decideRollout>) => d.starts.map((s) => s.node);
const phases = (d: ReturnType<typeof decideRollout>) =>
  Object.fromEntries(d.verdicts.map((v) => [v.name, v.phase]));

describe('maxUnavailable', () => {
  const five = ['a', 'b', 'c', 'd', 'e'].map((n) => node(n));
  const table: { value: number | string; nodes: number; starts: number }[] = [
    { value: 1, nodes: 5, starts: 1 },
    { value: 2, nodes: 5, starts: 2 },
    { value: '40%', nodes: 5, starts: 2 },
    { value: '50%', nodes: 5, starts: 2 }, // 2.5 rounds down
    { value: '10%', nodes: 5, starts: 1 }, // 0.5 rounds down to 0, but at least 1
    { value: '100%', nodes: 5, starts: 5 },
    { value: 9, nodes: 5, starts: 5 },
  ];
  for (const row of table) {
    test(`${JSON.stringify(row.value)} of ${row.nodes} nodes starts ${row.starts}`, () => {
      const d = decideRollout(
        input(five.slice(0, row.nodes), { settings: settings({ maxUnavailable: row.value }) }),
      );
      assert.equal(d.starts.length, row.starts);
      assert.deepEqual(started(d), ['a', 'b', 'c', 'd', 'e'].slice(0, row.starts));
      assert.equal(d.budget.unavailable, row.starts);
    });
  }

  test('counts nodes unavailable for any reason: cordoned, applying, failed, not config-ready', () => {
    const reasons = [
      node('x1', { cordoned: true }),
      updating('x2'),
      node('x3', { configReady: false }),
      node('x4', { podsReady: false }),
      node('x5', { agentState: 'Applying', desiredRevision: 'r1' }),
    ];
    for (const unavailable of reasons) {
      const d = decideRollout(
        input([unavailable, node('p1'), node('p2')], { settings: settings({ maxUnavailable: 1 }) }),
      );
      assert.ok(
        !started(d).includes('p1') && !started(d).includes('p2'),
        `${unavailable.name} must use the budget`,
      );
      assert.equal(d.blocked?.reason, 'BudgetExhausted', unavailable.name);
      assert.equal(d.blocked?.message, '1 of at most 1 node unavailable', unavailable.name);
    }
  });

  test('a node that is already unavailable is updated first and at no cost', () => {
    const d = decideRollout(input([node('a'), node('b'), node('z', { cordoned: true })]));
    assert.deepEqual(d.starts, [{ node: 'z', revision: 'r2', drain: false, free: true }]);
    assert.equal(d.blocked?.reason, 'BudgetExhausted');
  });

  test('nodes NotReady before their turn are skipped: neither counted nor blocking', () => {
    const d = decideRollout(input([node('a', { ready: false }), node('b'), node('c')]));
    assert.equal(phases(d).a, 'Skipped');
    assert.deepEqual(started(d), ['b']);
    assert.equal(d.budget.unavailable, 1);
  });

  test('a skipped node is updated once Ready again', () => {
    const d = decideRollout(input([node('a'), updated('b'), updated('c')]));
    assert.deepEqual(started(d), ['a']);
  });

  test('a node that turns NotReady after its update counts and is a failure', () => {
    const d = decideRollout(
      input([updated('a', 60_000, { ready: false }), node('b'), node('c')], {
        settings: settings({ maxUnavailable: 2 }),
      }),
    );
    assert.equal(phases(d).a, 'Failed');
    assert.equal(d.failures[0]?.failure?.reason, 'BecameUnhealthy');
    assert.equal(d.failures[0]?.failure?.message, 'became unhealthy after its update: NotReady');
    assert.equal(d.failureAction?.action, 'Pause');
    assert.deepEqual(d.starts, []);
    assert.equal(d.blocked?.reason, 'FailurePolicy');
  });

  test("a failure names the Ready condition's reason: a kubelet that stopped posting is not a crash", () => {
    const d = decideRollout(
      input([updated('a', 60_000, { ready: false, notReadyReason: 'NodeStatusUnknown' }), node('b')]),
    );
    assert.equal(
      d.failures[0]?.failure?.message,
      'became unhealthy after its update: NotReady (NodeStatusUnknown)',
    );
  });

  test('a NotReady node on the target not touched by this rollout is skipped, not a failure', () => {
    const stale = updated('a', 60_000, { ready: false, updateStartedAt: NOW - 7_200_000 });
    const d = decideRollout(input([stale, node('b')]));
    assert.equal(phases(d).a, 'Skipped');
    assert.equal(d.failureAction, undefined);
  });
});

describe('zones and order', () => {
  test('zones interleave: a1, b1, c1, a2, b2', () => {
    const nodes = [
      node('n4', { zone: 'b' }),
      node('n1', { zone: 'a' }),
      node('n2', { zone: 'a' }),
      node('n5', { zone: 'c' }),
      node('n3', { zone: 'b' }),
    ];
    const d = decideRollout(input(nodes, { settings: settings({ maxUnavailable: 5 }) }));
    assert.deepEqual(started(d), ['n1', 'n3', 'n5', 'n2', 'n4']);
  });

  test('maxUnavailablePerZone caps each zone; other zones go on', () => {
    const nodes = [
      updating('a1', 1_000, { zone: 'a' }),
      node('a2', { zone: 'a' }),
      node('a3', { zone: 'a' }),
      node('b1', { zone: 'b' }),
      node('b2', { zone: 'b' }),
    ];
    const d = decideRollout(
      input(nodes, { settings: settings({ maxUnavailable: 4, maxUnavailablePerZone: 1 }) }),
    );
    assert.deepEqual(started(d), ['b1']);
    assert.equal(d.blocked?.reason, 'ZoneBudgetExhausted');
    assert.deepEqual(d.budget.zones, { a: { max: 1, unavailable: 1 }, b: { max: 1, unavailable: 1 } });
  });

  test('percent per zone is of the zone size', () => {
    const nodes = ['1', '2', '3', '4'].flatMap((i) => [
      node(`a${i}`, { zone: 'a' }),
      node(`b${i}`, { zone: 'b' }),
    ]);
    const d = decideRollout(
      input(nodes, { settings: settings({ maxUnavailable: 8, maxUnavailablePerZone: '50%' }) }),
    );
    assert.deepEqual(started(d).sort(), ['a1', 'a2', 'b1', 'b2']);
  });

  test('the decision does not depend on the order of its input', () => {
    const nodes = ['d', 'a', 'c', 'b', 'e'].map((n, i) => node(n, { zone: i % 2 ? 'x' : 'y' }));
    const one = decideRollout(input(nodes, { settings: settings({ maxUnavailable: 2 }) }));
    const two = decideRollout(input([...nodes].reverse(), { settings: settings({ maxUnavailable: 2 }) }));
    assert.deepEqual(one, two);
  });
});

describe('canary, soak and deadlines', () => {
  test('the canary batch alone goes first, then the rest within the budget', () => {
    const nodes = ['a', 'b', 'c', 'd', 'e'].map((n) => node(n));
    const s = settings({ maxUnavailable: 3, canary: { nodes: 1 } });
    const first = decideRollout(input(nodes, { settings: s }));
    assert.deepEqual(started(first), ['a']);
    const during = decideRollout(input([updating('a'), ...nodes.slice(1)], { settings: s }));
    assert.deepEqual(started(during), []);
    assert.equal(during.blocked?.reason, 'WaitingForCanary');
    assert.equal(during.blocked?.message, 'waiting for the canary (1 node) to be updated and soaked');
    const after = decideRollout(input([updated('a'), ...nodes.slice(1)], { settings: s }));
    assert.deepEqual(started(after), ['b', 'c', 'd']);
    assert.deepEqual(after.budget.canary, { size: 1, passed: true });
  });

  test('a canary percentage rounds up', () => {
    const nodes = ['a', 'b', 'c', 'd', 'e'].map((n) => node(n));
    const d = decideRollout(
      input(nodes, { settings: settings({ maxUnavailable: 5, canary: { nodes: '30%' } }) }),
    );
    assert.deepEqual(started(d), ['a', 'b']);
  });

  test('minReadySeconds: a healthy node soaks (and uses budget) before it counts as updated', () => {
    const s = settings({ minReadySeconds: 10 });
    const soaking = decideRollout(input([updated('a', 4_000), node('b')], { settings: s }));
    assert.equal(phases(soaking).a, 'Soaking');
    assert.deepEqual(started(soaking), []);
    assert.equal(soaking.requeueAfterMs, 6_000);
    const soaked = decideRollout(input([updated('a', 10_001), node('b')], { settings: s }));
    assert.equal(phases(soaked).a, 'Updated');
    assert.deepEqual(started(soaked), ['b']);
  });

  test('a node not healthy within progressDeadlineSeconds fails', () => {
    const s = settings({ progressDeadlineSeconds: 30 });
    const within = decideRollout(input([updating('a', 29_000)], { settings: s }));
    assert.equal(phases(within).a, 'Updating');
    assert.equal(within.requeueAfterMs, 1_000);
    const late = decideRollout(input([updating('a', 31_000)], { settings: s }));
    assert.equal(late.failures[0]?.failure?.reason, 'ProgressDeadlineExceeded');
  });

  test('the deadline counts only time this controller watched: an outage is not the node blamed', () => {
    const s = settings({ progressDeadlineSeconds: 30 });
    // Started 500 s ago (within the episode), stale NotReady; this controller first saw it 10 s ago (restart after an outage).
    const rows: { name: string; seenAgoMs?: number; phase: string; requeue?: number }[] = [
      { name: 'no later sight: the stamp rules', phase: 'Failed' },
      { name: 'seen 10 s ago', seenAgoMs: 10_000, phase: 'Updating', requeue: 20_000 },
      { name: 'seen 31 s ago', seenAgoMs: 31_000, phase: 'Failed' },
    ];
    for (const row of rows) {
      const over = row.seenAgoMs === undefined ? {} : { deadlineFrom: NOW - row.seenAgoMs };
      const d = decideRollout(input([updating('a', 500_000, { ready: false, ...over })], { settings: s }));
      assert.equal(phases(d).a, row.phase, row.name);
      if (row.requeue !== undefined) assert.equal(d.requeueAfterMs, row.requeue, row.name);
    }
    // A drain that began before the outage gets the same grace.
    const draining = updating('a', 500_000, {
      desiredRevision: 'r1',
      currentRevision: 'r1',
      agentState: 'Done',
      drainingFor: 'r2',
      deadlineFrom: NOW - 5_000,
    });
    assert.equal(phases(decideRollout(input([draining], { settings: s }))).a, 'Draining');
  });

  test('a node mid-update going NotReady (kubelet restart) is in flight, not failed', () => {
    const d = decideRollout(input([updating('a', 1_000, { ready: false })]));
    assert.equal(phases(d).a, 'Updating');
    assert.equal(d.failures.length, 0);
  });
});

describe('failure policy', () => {
  const failedNode = (name: string) =>
    updating(name, 5_000, { agentState: 'Failed', agentMessage: 'unit x failed' });

  test('failures up to maxFailures are tolerated', () => {
    const s = settings({ maxUnavailable: 3, failurePolicy: { action: 'Pause', maxFailures: 1 } });
    const d = decideRollout(input([failedNode('a'), node('b'), node('c')], { settings: s }));
    assert.equal(d.failureAction, undefined);
    assert.deepEqual(started(d), ['b', 'c']);
  });

  test('one more failure pauses, and says why', () => {
    const s = settings({ maxUnavailable: 3, failurePolicy: { action: 'Pause', maxFailures: 1 } });
    const d = decideRollout(input([failedNode('a'), failedNode('b'), node('c')], { settings: s }));
    assert.equal(d.failureAction?.action, 'Pause');
    assert.match(
      d.failureAction!.message,
      /2 nodes failed revision r2 \(maxFailures 1\): a \(agent failed: unit x failed\)/,
    );
    assert.deepEqual(d.starts, []);
  });

  test('Rollback returns to the last completed revision', () => {
    const s = settings({ failurePolicy: { action: 'Rollback', maxFailures: 0 } });
    const d = decideRollout(input([failedNode('a'), node('b')], { settings: s }));
    assert.deepEqual(d.failureAction?.action, 'Rollback');
    assert.deepEqual(d.failureAction?.to, { name: 'r1', number: 1 });
  });

  test('Rollback without a completed revision pauses instead', () => {
    const s = settings({ failurePolicy: { action: 'Rollback', maxFailures: 0 } });
    const d = decideRollout(input([failedNode('a'), node('b')], { settings: s, lastComplete: undefined }));
    assert.equal(d.failureAction?.action, 'Pause');
    assert.match(d.failureAction!.message, /no earlier revision completed/);
  });

  test('after a rollback, failed and NotReady nodes of the bad revision go back at no cost', () => {
    // The pool now targets r1 again; r2 was given to a, b (failed) and c (updated, healthy).
    const rollback = {
      target: { name: 'r1', number: 1 },
      lastComplete: { name: 'r1', number: 1 },
      episodeStart: NOW - 600_000,
    };
    const nodes = [
      updating('a', 60_000, { agentState: 'Failed' }),
      updating('b', 60_000, { ready: false, currentRevision: 'r2', agentState: 'Done' }),
      updated('c'),
      node('d'),
    ];
    const d = decideRollout(input(nodes, rollback));
    // a and b were Waiting (unavailable): started for free; their verdicts show them in flight.
    assert.deepEqual(phases(d), { a: 'Updating', b: 'Updating', c: 'Pending', d: 'Updated' });
    assert.deepEqual(d.starts, [
      { node: 'a', revision: 'r1', drain: false, free: true },
      { node: 'b', revision: 'r1', drain: false, free: true },
    ]);
    assert.equal(d.blocked?.reason, 'BudgetExhausted');
  });

  test('no failure policy outside a rollout, and none while paused', () => {
    const complete = decideRollout(input([failedNode('a'), node('b')], { episodeStart: undefined }));
    assert.equal(complete.failureAction, undefined);
    assert.equal(complete.failures.length, 1);
    const paused = decideRollout(input([failedNode('a'), node('b')], { paused: true }));
    assert.equal(paused.failureAction, undefined);
    assert.equal(paused.blocked?.reason, 'Paused');
  });
});

describe('control', () => {
  test('paused: nothing starts, nodes in flight finish, bootstrap still happens', () => {
    const d = decideRollout(
      input(
        [updating('a'), node('b'), node('new', { currentRevision: undefined, desiredRevision: undefined })],
        {
          paused: true,
          settings: settings({ maxUnavailable: 3 }),
        },
      ),
    );
    assert.deepEqual(d.starts, []);
    assert.deepEqual(d.bootstrap, ['new']);
    assert.equal(phases(d).a, 'Updating');
    assert.equal(d.blocked?.reason, 'Paused');
  });

  test('paused by the failure policy: drained nodes given the target and not yet applying it stay in flight until they land or fail, and lose our cordon either way', () => {
    // What the randomised rollouts (seed 1795633841) saw: two nodes drained and given r2 in one
    // decision, their agents still Done on r1, cordoned by us; the pool paused meanwhile.
    const given = (name: string, over: Partial<NodeSnapshot> = {}) =>
      updating(name, 2_000, { agentState: 'Done', cordoned: true, cordonedByUs: true, ...over });
    const paused = { paused: true, settings: settings({ progressDeadlineSeconds: 8, maxUnavailable: 2 }) };
    const failed = node('f', { desiredRevision: 'r2', agentState: 'Failed', updateStartedAt: NOW - 9_000 });

    const waiting = decideRollout(input([given('a'), given('b'), failed, node('c')], paused));
    assert.deepEqual(phases(waiting), { a: 'Updating', b: 'Updating', f: 'Failed', c: 'Pending' });
    assert.deepEqual(waiting.starts, []);
    assert.deepEqual(waiting.uncordon, [], 'the cordon holds while the node is in flight');
    assert.equal(waiting.requeueAfterMs, 6_000, 'the pool is looked at again at their deadline');

    const landed = decideRollout(
      input(
        [given('a', { currentRevision: 'r2' }), given('b', { updateStartedAt: NOW - 9_000 }), failed],
        paused,
      ),
    );
    assert.deepEqual(landed.uncordon, [
      { node: 'a', reason: 'Healthy' },
      { node: 'b', reason: 'Failed' },
    ]);
    assert.equal(landed.failures.find((f) => f.name === 'b')?.failure?.reason, 'ProgressDeadlineExceeded');
    assert.deepEqual(landed.starts, []);
  });

  test('new nodes get the target at once, whatever the budget', () => {
    const d = decideRollout(
      input([
        updating('a'),
        node('fresh', { currentRevision: undefined, desiredRevision: undefined, ready: false }),
      ]),
    );
    assert.deepEqual(d.bootstrap, ['fresh']);
    assert.equal(d.budget.unavailable, 1);
  });

  test('maintenance windows: closed blocks and wakes at the next opening, open lets nodes start', () => {
    // NOW is Monday 10:00 UTC; the window opens daily at 12:00 Europe/Berlin (10:00 UTC in June).
    const windows = [{ schedule: '0 12 * * *', duration: '1h', timeZone: 'Europe/Berlin' }];
    const open = decideRollout(input([node('a')], { settings: settings({ maintenanceWindows: windows }) }));
    assert.deepEqual(started(open), ['a']);
    assert.equal(open.window.closesAt, NOW + 3_600_000);
    const early = decideRollout(
      input([node('a')], { now: NOW - 60_000, settings: settings({ maintenanceWindows: windows }) }),
    );
    assert.deepEqual(started(early), []);
    assert.equal(early.blocked?.reason, 'OutsideMaintenanceWindow');
    assert.equal(early.requeueAfterMs, 60_000);
    // The next opening in UTC and as the window's users read it.
    assert.match(
      early.blocked?.message ?? '',
      /next opens at \S+Z \(\w{3} \d{4}-\d\d-\d\d 12:00 Europe\/Berlin\)/,
    );
    // Open or not, with nodes waiting or not, the pool wakes when the window closes or opens again.
    const idle = decideRollout(input([], { settings: settings({ maintenanceWindows: windows }) }));
    assert.equal(idle.window.nextOpening, NOW + 24 * 3_600_000);
    assert.equal(idle.requeueAfterMs, 3_600_000);
  });

  test('an unreadable window fails closed', () => {
    const windows = [{ schedule: '0 12 * * *', duration: '1h', timeZone: 'Mars/Olympus' }];
    const d = decideRollout(input([node('a')], { settings: settings({ maintenanceWindows: windows }) }));
    assert.deepEqual(d.starts, []);
    assert.match(d.window.error ?? '', /Mars\/Olympus/);
  });
});

describe('drain and cordon', () => {
  test('a change that needs a drain starts with a drain', () => {
    const d = decideRollout(input([node('a', { needsDrain: true })]));
    assert.deepEqual(d.starts, [{ node: 'a', revision: 'r2', drain: true, free: false }]);
  });

  test('a drain in progress continues; overdue it fails and the cordon goes', () => {
    const draining = node('a', {
      drainingFor: 'r2',
      cordoned: true,
      cordonedByUs: true,
      updateStartedAt: NOW - 5_000,
    });
    const on = decideRollout(input([draining]));
    assert.deepEqual(on.drain, ['a']);
    assert.equal(phases(on).a, 'Draining');
    const late = decideRollout(
      input(
        [{ ...draining, drainBlocked: "Cannot evict pod as it would violate the pod's disruption budget." }],
        {
          settings: settings({ progressDeadlineSeconds: 2 }),
        },
      ),
    );
    assert.equal(late.failures[0]?.failure?.reason, 'DrainTimeout');
    assert.match(late.failures[0]!.failure!.message, /disruption budget/);
    assert.deepEqual(late.uncordon, [{ node: 'a', reason: 'Failed' }]);
  });

  test('a drain for a revision that is no longer the target is aborted and uncordoned', () => {
    const d = decideRollout(
      input([
        node('a', { drainingFor: 'r9', cordoned: true, cordonedByUs: true, updateStartedAt: NOW - 5_000 }),
      ]),
    );
    assert.deepEqual(d.abortDrain, ['a']);
    assert.deepEqual(d.uncordon, [{ node: 'a', reason: 'Aborted' }]);
    assert.deepEqual(d.starts, []);
  });

  test('a node we cordoned is uncordoned once healthy on the target, then soaks', () => {
    const d = decideRollout(input([updated('a', 1_000, { cordoned: true, cordonedByUs: true })]));
    assert.deepEqual(d.uncordon, [{ node: 'a', reason: 'Healthy' }]);
    assert.equal(phases(d).a, 'Soaking');
    assert.equal(d.complete, false);
  });

  test('a node cordoned by someone else is never uncordoned', () => {
    const d = decideRollout(input([updated('a', 1_000, { cordoned: true })]));
    assert.deepEqual(d.uncordon, []);
  });

  test('a failed node we cordoned is uncordoned', () => {
    const d = decideRollout(
      input([updating('a', 1_000, { agentState: 'Failed', cordoned: true, cordonedByUs: true })]),
    );
    assert.deepEqual(d.uncordon, [{ node: 'a', reason: 'Failed' }]);
  });
});

describe('progress', () => {
  test('complete when every node is updated; NotReady stragglers do not hold it back', () => {
    assert.equal(decideRollout(input([updated('a'), updated('b')])).complete, true);
    assert.equal(decideRollout(input([updated('a'), node('b', { ready: false })])).complete, true);
    // ... once they have been down for progressDeadlineSeconds; a restart or a flap is waited for.
    const flapping = decideRollout(
      input([updated('a'), node('b', { ready: false, readyChangedAt: NOW - 5_000 })]),
    );
    assert.equal(flapping.complete, false);
    assert.equal(flapping.requeueAfterMs, 595_001);
    const dead = decideRollout(
      input([updated('a'), node('b', { ready: false, readyChangedAt: NOW - 700_000 })]),
    );
    assert.equal(dead.complete, true);
    assert.equal(decideRollout(input([updated('a'), node('b')])).complete, false);
    assert.equal(decideRollout(input([updated('a'), updating('b')])).complete, false);
  });

  test('a node still applying an older revision finishes first (Busy), then is updated', () => {
    const busy = node('a', {
      desiredRevision: 'r1',
      currentRevision: 'r0',
      agentState: 'Applying',
      updateStartedAt: NOW - 1_000,
    });
    const d = decideRollout(input([busy, node('b')], { settings: settings({ maxUnavailable: 2 }) }));
    assert.equal(phases(d).a, 'Busy');
    assert.deepEqual(started(d), ['b']);
  });
});
