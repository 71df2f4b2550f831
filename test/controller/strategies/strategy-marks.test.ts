// Table tests of the node marks each strategy wants (Serial gates, Spread not-before, holds, OTA
// offers, OnDelete taints), of the Spread schedule, the Serial slots and OnDelete's upgrade subset.

import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import {
  AVAILABLE_REVISION_ANNOTATION,
  DESIRED_REVISION_ANNOTATION,
  HOLD_ANNOTATION,
  NOT_BEFORE_ANNOTATION,
  SERIAL_GATE_ANNOTATION,
  UPGRADE_REQUESTED_ANNOTATION,
} from '../../../src/api/node-protocol.ts';
import {
  type MarksInput,
  type NodeMarks,
  planNodeMarks,
} from '../../../src/controller/strategies/node-marks.ts';
import { planUpgrades } from '../../../src/controller/strategies/on-delete/on-delete-upgrades.ts';
import { serialSlots } from '../../../src/controller/strategies/serial/serial-slots.ts';
import {
  handoutLeadMs,
  spreadSchedule,
  spreadWindowStart,
} from '../../../src/controller/strategies/spread/spread-schedule.ts';
import type { StrategyNode } from '../../../src/controller/strategies/strategy-node.ts';
import { NOW, node as snapshot } from '../../support/rollout-fixtures.ts';

function n(name: string, over: Partial<StrategyNode> = {}): StrategyNode {
  return { name, zone: '', desired: 'r1', current: 'r1', state: 'Done', cordonedByUs: false, ...over };
}

function marks(over: Partial<MarksInput>): Map<string, NodeMarks> {
  const result = planNodeMarks({
    type: 'Serial',
    target: { name: 'r2', number: 2 },
    revisionNumbers: new Map([
      ['r1', 1],
      ['r2', 2],
    ]),
    nodes: [],
    serial: { pool: 'p', slots: 1, leaseDurationSeconds: 600 },
    outdatedTaint: 'None',
    slotHolders: new Set(),
    now: NOW,
    ...over,
  });
  return new Map(result.map((m) => [m.node, m]));
}

const GATE = JSON.stringify({ pool: 'p', slots: 1, leaseDurationSeconds: 600 });

describe('Serial marks', () => {
  test('every node not on the target gets the target and the gate at once', () => {
    const m = marks({ nodes: [n('a'), n('b'), n('c', { current: 'r2', desired: 'r2' })] });
    assert.deepEqual(m.get('a')?.annotations, {
      [DESIRED_REVISION_ANNOTATION]: 'r2',
      [SERIAL_GATE_ANNOTATION]: GATE,
    });
    assert.equal(m.get('a')?.kind, 'handout');
    assert.ok(m.get('b'));
    assert.equal(m.get('c'), undefined, 'a node on the target is left alone');
  });

  test('the gate leaves a node that reached the target', () => {
    const m = marks({ nodes: [n('a', { current: 'r2', desired: 'r2', serialGate: GATE })] });
    assert.deepEqual(m.get('a')?.annotations, { [SERIAL_GATE_ANNOTATION]: null });
  });

  test('more slots rewrite the gate of waiting nodes, not of the node in its slot', () => {
    const serial = { pool: 'p', slots: 3, leaseDurationSeconds: 600 };
    const m = marks({
      serial,
      slotHolders: new Set(['a']),
      nodes: [
        n('a', { desired: 'r2', state: 'Applying', stateRevision: 'r2', serialGate: GATE }),
        n('b', { desired: 'r2', serialGate: GATE }),
      ],
    });
    assert.equal(m.get('a'), undefined);
    assert.deepEqual(m.get('b')?.annotations, { [SERIAL_GATE_ANNOTATION]: JSON.stringify(serial) });
  });

  test('paused: a hold on nodes that have not started; none on slot holders, applying or failed nodes', () => {
    const m = marks({
      hold: 'paused',
      slotHolders: new Set(['b']),
      nodes: [
        n('a', { desired: 'r2', serialGate: GATE }),
        n('b', { desired: 'r2', serialGate: GATE }),
        n('c', { desired: 'r2', serialGate: GATE, state: 'Failed', stateRevision: 'r2' }),
        n('d', { desired: 'r2', serialGate: GATE, state: 'Applying', stateRevision: 'r2' }),
      ],
    });
    assert.deepEqual(m.get('a')?.annotations, { [HOLD_ANNOTATION]: 'paused' });
    assert.equal(m.get('b'), undefined);
    assert.equal(m.get('c'), undefined);
    assert.equal(m.get('d'), undefined);
  });

  test('unpaused: the hold goes', () => {
    const m = marks({ nodes: [n('a', { desired: 'r2', serialGate: GATE, hold: 'paused' })] });
    assert.deepEqual(m.get('a')?.annotations, { [HOLD_ANNOTATION]: null });
  });

  test('a joining node gets the target at once, without a gate', () => {
    const m = marks({ nodes: [n('new', { current: undefined, desired: undefined, state: undefined })] });
    assert.deepEqual(m.get('new')?.annotations, { [DESIRED_REVISION_ANNOTATION]: 'r2' });
    assert.equal(m.get('new')?.kind, 'bootstrap');
  });

  test('a cordon or drain left by RollingUpdate is released', () => {
    const m = marks({ nodes: [n('a', { current: 'r2', desired: 'r2', cordonedByUs: true })] });
    assert.equal(m.get('a')?.release, true);
  });
});

describe('Spread marks and schedule', () => {
  // The window opens now (a time that has passed at the first hand-out is late: see below).
  const start = NOW;
  test('times are evenly spaced over the window in zone-interleaved order', () => {
    const times = spreadSchedule(
      [
        { name: 'a1', zone: 'a' },
        { name: 'a2', zone: 'a' },
        { name: 'b1', zone: 'b' },
        { name: 'b2', zone: 'b' },
      ],
      start,
      400,
    );
    assert.deepEqual(
      [...times.entries()],
      [
        ['a1', start],
        ['b1', start + 100_000],
        ['a2', start + 200_000],
        ['b2', start + 300_000],
      ],
    );
  });

  const spread = { windowStart: start, windowSeconds: 300 };
  const iso = (ms: number) => new Date(ms).toISOString();

  test('every node not on the target gets the target and its not-before', () => {
    const m = marks({ type: 'Spread', spread, nodes: [n('a'), n('b'), n('c')] });
    assert.deepEqual(m.get('a')?.annotations, {
      [DESIRED_REVISION_ANNOTATION]: 'r2',
      [NOT_BEFORE_ANNOTATION]: iso(start),
    });
    assert.equal(m.get('b')?.annotations[NOT_BEFORE_ANNOTATION], iso(start + 100_000));
    assert.equal(m.get('c')?.annotations[NOT_BEFORE_ANNOTATION], iso(start + 200_000));
  });

  test('a node joining moves future times, never a time already passed', () => {
    const nodes = [
      n('a', { desired: 'r2', notBefore: iso(start) }),
      n('b', { desired: 'r2', notBefore: iso(start + 150_000) }),
      n('c', { desired: 'r2', notBefore: iso(start + 300_000) }),
      n('d', { current: undefined, desired: undefined, state: undefined }),
    ];
    const m = marks({ type: 'Spread', spread: { windowStart: start, windowSeconds: 400 }, nodes });
    assert.equal(m.get('a'), undefined, 'a passed time stays');
    assert.equal(m.get('b')?.annotations[NOT_BEFORE_ANNOTATION], iso(start + 100_000));
    assert.equal(m.get('c')?.annotations[NOT_BEFORE_ANNOTATION], iso(start + 200_000));
    assert.deepEqual(m.get('d')?.annotations, { [DESIRED_REVISION_ANNOTATION]: 'r2' });
  });

  test('the window opens a hand-out lead after the rollout started: whole seconds, bounded', () => {
    assert.equal(handoutLeadMs(4), 0, 'a small pool is written in well under a second');
    assert.equal(handoutLeadMs(1000), 5000);
    assert.equal(handoutLeadMs(100_000), 30_000);
    assert.equal(spreadWindowStart(start, 1000), start + 5000);
  });

  test('gates are written earliest time first', () => {
    const nodes = ['a', 'b', 'c', 'd', 'e'].map((name) => n(name));
    const result = planNodeMarks({
      type: 'Spread',
      target: { name: 'r2', number: 2 },
      revisionNumbers: new Map(),
      nodes: nodes.reverse(),
      spread: { windowStart: start, windowSeconds: 500 },
      serial: { pool: 'p', slots: 1, leaseDurationSeconds: 600 },
      outdatedTaint: 'None',
      slotHolders: new Set(),
      now: NOW,
    });
    const times = result.map((m) => Date.parse(String(m.annotations[NOT_BEFORE_ANNOTATION])));
    assert.deepEqual(
      times,
      [...times].sort((a, b) => a - b),
    );
    assert.equal(times.length, 5);
  });

  test('nodes first gated after their time has passed start after the window, one spacing apart, not beside the nodes on time', () => {
    // The window opened 250 s ago (controller restarted mid hand-out): a, b and c are late.
    const opened = NOW - 250_000;
    const nodes = [
      n('a'),
      n('b'),
      n('c'),
      n('d'),
      n('e', { desired: 'r2', notBefore: iso(opened + 200_000) }),
    ];
    const m = marks({ type: 'Spread', spread: { windowStart: opened, windowSeconds: 500 }, nodes });
    // The window (500 s) ends 250 s from now; d starts 50 s from now as planned, so a and b starting
    // from now too would put two starts in a spacing (issue 17: Spread above its budget).
    assert.equal(m.get('a')?.annotations[NOT_BEFORE_ANNOTATION], iso(NOW + 250_000));
    assert.equal(m.get('b')?.annotations[NOT_BEFORE_ANNOTATION], iso(NOW + 350_000));
    assert.equal(
      m.get('c')?.annotations[NOT_BEFORE_ANNOTATION],
      iso(opened + 200_000),
      'less than a spacing late: at once (d follows 50 s later)',
    );
    assert.equal(
      m.get('d')?.annotations[NOT_BEFORE_ANNOTATION],
      iso(opened + 300_000),
      'on time: as planned',
    );
    assert.equal(m.get('e'), undefined, 'a time handed out before stays');
  });

  test('once the window is over, late nodes start from now, one spacing apart, the first at once', () => {
    const opened = NOW - 600_000;
    const m = marks({
      type: 'Spread',
      spread: { windowStart: opened, windowSeconds: 500 },
      nodes: [n('a'), n('b'), n('c')],
    });
    assert.equal(m.get('a')?.annotations[NOT_BEFORE_ANNOTATION], iso(opened));
    assert.equal(m.get('b')?.annotations[NOT_BEFORE_ANNOTATION], iso(NOW + 166_666));
    assert.equal(m.get('c')?.annotations[NOT_BEFORE_ANNOTATION], iso(NOW + 333_333));
  });

  test('a late time handed out stays on the next reconcile, though its planned time has passed', () => {
    const opened = NOW - 250_000;
    const nodes = [n('a', { desired: 'r2', notBefore: iso(NOW + 100_000) }), n('b'), n('c'), n('d')];
    const m = marks({ type: 'Spread', spread: { windowStart: opened, windowSeconds: 400 }, nodes });
    assert.equal(m.get('a'), undefined);
  });

  test('a new target replaces the not-before of the previous one, even if it has passed', () => {
    const m = marks({ type: 'Spread', spread, nodes: [n('a', { notBefore: iso(start - 999_000) })] });
    assert.equal(m.get('a')?.annotations[NOT_BEFORE_ANNOTATION], iso(start));
  });

  test('on the target: not-before and hold go', () => {
    const m = marks({
      type: 'Spread',
      spread,
      nodes: [n('a', { current: 'r2', desired: 'r2', notBefore: iso(start), hold: 'x' })],
    });
    assert.deepEqual(m.get('a')?.annotations, { [NOT_BEFORE_ANNOTATION]: null, [HOLD_ANNOTATION]: null });
  });
});

describe('OTA and OnDelete marks', () => {
  test('OTA: nodes not on the target are offered it; desired-revision is theirs', () => {
    const m = marks({
      type: 'OTA',
      nodes: [
        n('a'),
        n('b', { desired: 'r2', state: 'Applying', stateRevision: 'r2' }),
        n('c', { current: 'r2', desired: 'r2', available: 'r2' }),
      ],
    });
    assert.deepEqual(m.get('a')?.annotations, { [AVAILABLE_REVISION_ANNOTATION]: 'r2' });
    assert.deepEqual(m.get('b')?.annotations, { [AVAILABLE_REVISION_ANNOTATION]: 'r2' });
    assert.deepEqual(m.get('c')?.annotations, { [AVAILABLE_REVISION_ANNOTATION]: null });
  });

  test('OnDelete: existing nodes keep their revision; outdated ones are tainted with their revision number', () => {
    const m = marks({
      type: 'OnDelete',
      outdatedTaint: 'NoSchedule',
      nodes: [
        n('a'),
        n('b', { current: 'r2', desired: 'r2', outdatedTaint: { effect: 'NoSchedule', value: '1' } }),
      ],
    });
    assert.deepEqual(m.get('a')?.annotations, {});
    assert.deepEqual(m.get('a')?.taint, { effect: 'NoSchedule', value: '1' });
    assert.equal(m.get('b')?.taint, null, 'updated: the taint goes');
  });

  test('OnDelete with outdatedTaint None removes our taint', () => {
    const m = marks({
      type: 'OnDelete',
      nodes: [n('a', { outdatedTaint: { effect: 'NoSchedule', value: '1' } })],
    });
    assert.equal(m.get('a')?.taint, null);
  });

  test('RollingUpdate removes every artefact and finished upgrade requests', () => {
    const m = marks({
      type: 'RollingUpdate',
      nodes: [
        n('a', {
          serialGate: GATE,
          notBefore: 'x',
          hold: 'y',
          available: 'r2',
          outdatedTaint: { effect: 'NoSchedule', value: '1' },
        }),
        n('b', { current: 'r2', desired: 'r2', upgradeRequested: 'now' }),
      ],
    });
    assert.deepEqual(m.get('a')?.annotations, {
      [SERIAL_GATE_ANNOTATION]: null,
      [NOT_BEFORE_ANNOTATION]: null,
      [HOLD_ANNOTATION]: null,
      [AVAILABLE_REVISION_ANNOTATION]: null,
    });
    assert.equal(m.get('a')?.taint, null);
    assert.deepEqual(m.get('b')?.annotations, { [UPGRADE_REQUESTED_ANNOTATION]: null });
  });
});

describe('Serial slots', () => {
  const lease = (name: string, holder?: string) => ({
    metadata: { name, resourceVersion: '7' },
    spec: holder ? { holderIdentity: holder } : {},
  });
  test('holders with their states; a slot whose node is gone is released by compare-and-swap', () => {
    const view = serialSlots(
      [lease('s-1', 'b'), lease('s-0', 'a'), lease('s-2')],
      (node) => (node === 'a' ? 'Failed' : undefined),
      (node) => node === 'a',
    );
    assert.deepEqual(view.holders, [
      { lease: 's-0', node: 'a', state: 'Failed' },
      { lease: 's-1', node: 'b', state: 'Gone' },
    ]);
    assert.deepEqual(view.release, [{ lease: 's-1', node: 'b', resourceVersion: '7' }]);
  });
});

describe('OnDelete upgrades', () => {
  const base = {
    target: { name: 'r3', number: 3 },
    revisionNumbers: new Map([
      ['r1', 1],
      ['r2', 2],
      ['r3', 3],
    ]),
    snapshots: new Map(),
    episodeStart: NOW - 600_000,
    progressDeadlineSeconds: 600,
    minReadySeconds: 0,
    now: NOW,
  };
  test('a node asked for, and every node of the requested revision', () => {
    const plan = planUpgrades({
      ...base,
      revisionRequest: '1',
      nodes: [
        n('a', { current: 'r2', desired: 'r2', upgradeRequested: 'now' }),
        n('b', { current: 'r1' }),
        n('c', { current: 'r1' }),
        n('d', { current: 'r2', desired: 'r2' }),
        n('e', { current: undefined, desired: undefined }),
      ],
    });
    assert.deepEqual(plan.requested, ['a', 'b', 'c']);
    assert.deepEqual(plan.nodes, ['a', 'b', 'c']);
    assert.equal(plan.clearRevisionRequest, false);
  });

  test('the revision request is done when no node is left on it; a bad one is refused', () => {
    const done = planUpgrades({ ...base, revisionRequest: '1', nodes: [n('a', { current: 'r2' })] });
    assert.equal(done.clearRevisionRequest, true);
    const bad = planUpgrades({ ...base, revisionRequest: 'two', nodes: [] });
    assert.equal(bad.clearRevisionRequest, true);
    assert.match(bad.invalidRequest ?? '', /not a revision number/);
  });

  test('nodes on their way stay covered: given the target, or just arrived', () => {
    const plan = planUpgrades({
      ...base,
      snapshots: new Map([['b', snapshot('b', { updateStartedAt: NOW - 1_000 })]]),
      nodes: [
        n('a', { current: 'r2', desired: 'r3' }),
        n('b', { current: 'r3', desired: 'r3' }),
        n('c', { current: 'r3', desired: 'r3' }),
      ],
    });
    assert.deepEqual(plan.nodes, ['a', 'b']);
    assert.deepEqual(plan.requested, []);
  });
});
