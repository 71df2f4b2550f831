// Table tests of Spread's hand-out with a budget (spread.maxUnavailable) and a canary: who gets a
// time now, which times, when the controller wakes, and the marks that follow from it.

import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import {
  DESIRED_REVISION_ANNOTATION,
  HOLD_ANNOTATION,
  NOT_BEFORE_ANNOTATION,
} from '../../../../src/api/node-protocol.ts';
import type { NodeSnapshot } from '../../../../src/controller/rollout/types.ts';
import {
  countsAgainstBudget,
  handoutLookaheadMs,
  type SpreadHandoutInput,
  spreadHandout,
} from '../../../../src/controller/strategies/spread/spread-handout.ts';
import {
  handoutLeadMs,
  spreadSchedule,
} from '../../../../src/controller/strategies/spread/spread-schedule.ts';
import type { StrategyNode } from '../../../../src/controller/strategies/strategy-node.ts';
import { NOW, node as snapshotOf } from '../../../support/rollout-fixtures.ts';
import { marks, strategyNode } from '../../../support/strategy-fixtures.ts';

const iso = (ms: number) => new Date(ms).toISOString();

/** A node in both views: the strategy's (annotations) and the rollout's (health). */
interface Both {
  node: StrategyNode;
  snapshot: NodeSnapshot;
}

function both(name: string, over: Partial<StrategyNode> = {}, health: Partial<NodeSnapshot> = {}): Both {
  const node = strategyNode(name, over);
  const snapshot = snapshotOf(name, {
    ...(node.desired !== undefined ? { desiredRevision: node.desired } : {}),
    ...(node.current !== undefined ? { currentRevision: node.current } : {}),
    ...(node.state !== undefined ? { agentState: node.state } : {}),
    ...health,
  });
  return { node, snapshot };
}

/** Given r2 with a time, not started. */
const given = (name: string, at: number) => both(name, { desired: 'r2', notBefore: iso(at) });
/** On r2 and healthy. */
const onTarget = (name: string, health: Partial<NodeSnapshot> = {}) =>
  both(name, { desired: 'r2', current: 'r2' }, health);
/** Restarting on r2: NotReady. */
const restarting = (name: string) => both(name, { desired: 'r2', current: 'r2' }, { ready: false });

function plan(nodes: Both[], over: Partial<SpreadHandoutInput> = {}) {
  return spreadHandout({
    target: 'r2',
    nodes: nodes.map((b) => b.node),
    snapshots: new Map(nodes.map((b) => [b.node.name, b.snapshot])),
    windowStart: NOW,
    windowSeconds: 100,
    minReadyMs: 0,
    paused: false,
    now: NOW,
    ...over,
  });
}

/** Ten nodes n0..n9 in one zone: the schedule order is the name order, 10 s apart over 100 s. */
const names = Array.from({ length: 10 }, (_, i) => `n${i}`);

describe('Spread hand-out: budget', () => {
  test('neither budget nor canary: the schedule, every node at once', () => {
    const p = plan(names.map((n) => both(n)));
    assert.equal(p.handOut, undefined);
    assert.deepEqual(
      p.times,
      spreadSchedule(
        names.map((name) => ({ name, zone: '' })),
        NOW,
        100,
      ),
    );
    assert.equal(p.budget, undefined);
  });

  test('a node gets its time only within the lookahead; the controller wakes for the next', () => {
    const p = plan(
      names.map((n) => both(n)),
      { maxUnavailable: 3, now: NOW + 10_000 },
    );
    // n0 (NOW) and n1 (NOW + 10 s) are due; n2 is 10 s away, beyond the lookahead (1 s).
    assert.deepEqual([...p.handOut!], ['n0', 'n1']);
    assert.equal(p.wakeAt, NOW + 20_000 - handoutLookaheadMs(10_000));
    assert.deepEqual(p.budget, { max: 3, unavailable: 2, waiting: 0 });
    assert.equal(p.times.get('n5'), NOW + 50_000, 'the times are the schedule’s');
  });

  test('the lookahead is a spacing, within 100 ms and 1 s', () => {
    assert.equal(handoutLookaheadMs(360), 360);
    assert.equal(handoutLookaheadMs(10), 100);
    assert.equal(handoutLookaheadMs(3_600), 1_000);
  });

  test('a full budget holds nodes whose time came; the earliest goes when a place frees', () => {
    // n0, n1 restarting on r2, n2 given and not started: 3 of 3. n3, n4 are due.
    const full = [
      restarting('n0'),
      restarting('n1'),
      given('n2', NOW + 20_000),
      ...names.slice(3).map((n) => both(n)),
    ];
    const p = plan(full, { maxUnavailable: 3, now: NOW + 40_500 });
    assert.deepEqual([...p.handOut!], []);
    assert.deepEqual(p.budget, { max: 3, unavailable: 3, waiting: 2 });
    // n0 is healthy again: one place, for n3 (the earliest), whose time has passed: it starts at once.
    const freed = [onTarget('n0'), ...full.slice(1)];
    const q = plan(freed, { maxUnavailable: 3, now: NOW + 40_500 });
    assert.deepEqual([...q.handOut!], ['n3']);
    assert.deepEqual(q.budget, { max: 3, unavailable: 3, waiting: 1 });
  });

  test('what counts: given and not on it, unavailable for any reason; not NotReady before its turn', () => {
    const count = (b: Both) => countsAgainstBudget(b.node, b.snapshot, 'r2');
    assert.equal(count(given('a', NOW)), true, 'given a time, not started');
    assert.equal(count(restarting('b')), true, 'NotReady on the target');
    assert.equal(count(onTarget('c')), false);
    assert.equal(count(both('d')), false, 'healthy on the old revision');
    assert.equal(count(both('e', {}, { cordoned: true })), true, 'cordoned');
    assert.equal(count(both('f', {}, { ready: false })), false, 'NotReady before its turn');
    assert.equal(count(both('g', { current: undefined, desired: undefined })), false, 'joining');
    assert.equal(count(both('h', { desired: 'r2', state: 'Failed' })), true, 'failed the target');
  });

  test('a node already unavailable costs nothing; one NotReady before its turn waits until Ready', () => {
    const nodes = [
      restarting('n0'),
      both('n1', {}, { ready: false }),
      both('n2', {}, { cordoned: true }),
      ...names.slice(3).map((n) => both(n)),
    ];
    // Budget 2: n0 and the cordoned n2 count; n2 goes at no cost, n1 (NotReady) is passed over.
    const p = plan(nodes, { maxUnavailable: 2, now: NOW + 20_000 });
    assert.deepEqual([...p.handOut!], ['n2']);
    assert.equal(p.budget?.unavailable, 2);
  });

  test('paused: no node gets a time', () => {
    const p = plan(
      names.map((n) => both(n)),
      { maxUnavailable: 3, now: NOW + 50_000, paused: true },
    );
    assert.deepEqual([...p.handOut!], []);
  });
});

describe('Spread hand-out: canary', () => {
  test('before the canary passed only its nodes have times, at once without a budget', () => {
    const p = plan(
      names.map((n) => both(n)),
      { canarySize: 2 },
    );
    assert.deepEqual([...p.times.keys()], ['n0', 'n1']);
    assert.deepEqual([...p.handOut!], ['n0', 'n1']);
    assert.deepEqual(p.canary, { size: 2, passed: false });
  });

  test('it passes once its nodes are updated; the others follow from then, spaced like the window', () => {
    const nodes = [onTarget('n0'), onTarget('n1'), ...names.slice(2).map((n) => both(n))];
    const now = NOW + 60_250;
    const p = plan(nodes, { canarySize: 2, now });
    const passed = NOW + 60_000;
    assert.deepEqual(p.canary, { size: 2, passed: true, passedNow: passed });
    const restStart = passed + handoutLeadMs(8);
    assert.equal(p.times.get('n2'), restStart);
    assert.equal(p.times.get('n9'), restStart + 70_000);
    assert.deepEqual([...p.handOut!], names.slice(2));
    // Recorded, the moment gives the same times (a restarted controller), and passes no more.
    const again = plan(nodes, { canarySize: 2, now: now + 5_000, canaryPassedAt: passed });
    assert.deepEqual(again.times, p.times);
    assert.equal(again.canary?.passedNow, undefined);
  });

  test('with a budget the others follow the canary a second after it passed, just in time', () => {
    const nodes = [onTarget('n0'), ...names.slice(1).map((n) => both(n))];
    const passed = NOW + 60_000;
    const p = plan(nodes, { canarySize: 1, canaryPassedAt: passed, maxUnavailable: 2, now: passed + 500 });
    assert.equal(p.times.get('n1'), passed + 1_000);
    assert.equal(p.times.get('n2'), passed + 11_000);
    assert.deepEqual([...p.handOut!], ['n1'], 'n1 within the lookahead, n2 not yet');
  });

  test('a canary node that failed or is still applying holds everyone else', () => {
    const nodes = [
      onTarget('n0'),
      both('n1', { desired: 'r2', state: 'Failed' }, { ready: false }),
      ...names.slice(2).map((n) => both(n)),
    ];
    const p = plan(nodes, { canarySize: 2, maxUnavailable: 5, now: NOW + 90_000 });
    assert.equal(p.canary?.passed, false);
    assert.deepEqual([...p.handOut!], []);
    assert.equal(p.times.has('n2'), false);
  });

  test('a canary node soaks minReadySeconds; the controller wakes when it is done', () => {
    const nodes = [onTarget('n0', { healthySince: NOW + 5_000 }), ...names.slice(1).map((n) => both(n))];
    const p = plan(nodes, { canarySize: 1, minReadyMs: 30_000, now: NOW + 10_000 });
    assert.equal(p.canary?.passed, false);
    assert.equal(p.wakeAt, NOW + 35_000);
  });

  test('a rest window never opens before the rest’s places in the window', () => {
    const nodes = [onTarget('n0'), ...names.slice(1).map((n) => both(n))];
    const p = plan(nodes, { canarySize: 1, canaryPassedAt: NOW - 60_000, now: NOW });
    assert.equal(p.times.get('n1'), NOW + 10_000);
  });
});

describe('Spread marks with a budget', () => {
  const spread = { windowStart: NOW - 100_000, windowSeconds: 100 };
  test('only the nodes handed out get the target; a late one keeps its passed time and starts at once', () => {
    const nodes = ['a', 'b', 'c'].map((n) => strategyNode(n));
    const times = new Map([
      ['a', NOW - 100_000],
      ['b', NOW - 50_000],
      ['c', NOW],
    ]);
    const m = marks({
      type: 'Spread',
      spread: { ...spread, times, handOut: new Set(['a']), budgeted: true },
      nodes,
    });
    assert.deepEqual(m.get('a')?.annotations, {
      [DESIRED_REVISION_ANNOTATION]: 'r2',
      [NOT_BEFORE_ANNOTATION]: iso(NOW - 100_000),
    });
    assert.equal(m.get('b'), undefined);
    assert.equal(m.get('c'), undefined);
  });

  test('a node still to apply a superseded revision is held until its turn', () => {
    const nodes = [strategyNode('a', { desired: 'r0', notBefore: iso(NOW + 5_000) })];
    const m = marks({
      type: 'Spread',
      spread: {
        ...spread,
        times: new Map([['a', NOW + 50_000]]),
        handOut: new Set(),
        budgeted: true,
        waitReason: 'budget',
      },
      nodes,
    });
    assert.deepEqual(m.get('a')?.annotations, { [HOLD_ANNOTATION]: 'budget' });
  });
});
