// Table tests of Spread's schedule and marks: not-before times over the window, times that stay,
// late hand-outs spaced from now.

import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import {
  DESIRED_REVISION_ANNOTATION,
  HOLD_ANNOTATION,
  NOT_BEFORE_ANNOTATION,
} from '../../../../src/api/node-protocol.ts';
import { planNodeMarks } from '../../../../src/controller/strategies/node-marks.ts';
import { spreadMarks } from '../../../../src/controller/strategies/spread/spread-marks.ts';
import {
  handoutLeadMs,
  spreadSchedule,
  spreadWindowStart,
} from '../../../../src/controller/strategies/spread/spread-schedule.ts';
import type { StrategyNode } from '../../../../src/controller/strategies/strategy-node.ts';
import { NOW } from '../../../support/rollout-fixtures.ts';
import { marks, strategyNode } from '../../../support/strategy-fixtures.ts';

function n(name: string, over: Partial<StrategyNode> = {}): StrategyNode {
  return strategyNode(name, over);
}

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
    // A second for startedAt's rounding to whole seconds and the reaction, then the writes, rounded up.
    assert.equal(handoutLeadMs(0), 1000);
    assert.equal(handoutLeadMs(4), 2000, 'a second for the reaction, one for the writes');
    assert.equal(handoutLeadMs(100), 2000);
    assert.equal(handoutLeadMs(1000), 6000);
    assert.equal(handoutLeadMs(100_000), 30_000);
    assert.equal(spreadWindowStart(start, 1000), start + 6000);
  });

  test('gates are written earliest time first', () => {
    const nodes = ['a', 'b', 'c', 'd', 'e'].map((name) => n(name));
    const result = planNodeMarks(
      {
        target: { name: 'r2', number: 2 },
        revisionNumbers: new Map(),
        nodes: nodes.reverse(),
        spread: { windowStart: start, windowSeconds: 500 },
        serial: { pool: 'p', slots: 1, leaseDurationSeconds: 600 },
        outdatedTaint: 'None',
        slotHolders: new Set(),
        now: NOW,
      },
      spreadMarks,
    );
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
