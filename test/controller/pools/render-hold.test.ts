// The conflict hold (issue 33): whatever the strategy decided, no hand-out of a revision other than
// the last complete one survives while the NodeConfigs do not render or settle.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  AVAILABLE_REVISION_ANNOTATION,
  DESIRED_REVISION_ANNOTATION,
} from '../../../src/api/node-protocol.ts';
import { holdDecision, renderHold } from '../../../src/controller/pools/render-hold.ts';
import type { StrategyDecision } from '../../../src/controller/strategies/strategy.ts';
import type { StrategyNode } from '../../../src/controller/strategies/strategy-node.ts';

const conflict = { conflicts: [], problem: { reason: 'ConfigConflict', message: 'a and b write /etc/x' } };

test('held only while the configs do not render or settle, and the target is not the last complete one', () => {
  assert.equal(renderHold({ conflicts: [] }, 'r2', 'r1'), undefined);
  assert.equal(renderHold(conflict, 'r1', 'r1'), undefined, 'the last complete revision is never held');
  assert.equal(renderHold(conflict, undefined, 'r1'), undefined);
  const held = renderHold(conflict, 'r2', 'r1');
  assert.deepEqual([held?.revision, held?.allowed, held?.reason], ['r2', 'r1', 'ConfigConflict']);
  assert.match(held?.message ?? '', /rollout of r2 held .*ConfigConflict.*stay on r1/);
  const settling = renderHold({ conflicts: [], settling: 'waiting' }, 'r2', undefined);
  assert.equal(settling?.reason, 'Settling');
  assert.equal(settling?.allowed, undefined);
});

test('starts, hand-outs (a joining node too) and offers of the held revision go; offers made are withdrawn', () => {
  const hold = renderHold(conflict, 'r2', 'r1')!;
  const nodes = [
    { name: 'joining' },
    { name: 'gated', current: 'r1' },
    { name: 'offered', current: 'r1', available: 'r2' },
    { name: 'quiet', current: 'r1', available: 'r2' },
    { name: 'back', current: 'r0' },
  ] as StrategyNode[];
  const decision: StrategyDecision = {
    marks: [
      { node: 'joining', annotations: { [DESIRED_REVISION_ANNOTATION]: 'r2' }, kind: 'bootstrap' },
      {
        node: 'gated',
        annotations: { [DESIRED_REVISION_ANNOTATION]: 'r2', 'x/gate': 'closed' },
        kind: 'handout',
      },
      { node: 'offered', annotations: { [AVAILABLE_REVISION_ANNOTATION]: 'r2' }, kind: 'marks' },
      { node: 'back', annotations: { [DESIRED_REVISION_ANNOTATION]: 'r1' }, kind: 'handout' },
    ],
    upgrades: {
      starts: [{ node: 'gated' }],
    } as unknown as StrategyDecision['upgrades'],
  };
  const out = holdDecision(decision, hold, nodes);
  const by = new Map(out.marks.map((m) => [m.node, m]));
  assert.deepEqual(by.get('joining'), { node: 'joining', annotations: {}, kind: 'marks' });
  assert.deepEqual(by.get('gated'), { node: 'gated', annotations: { 'x/gate': 'closed' }, kind: 'marks' });
  assert.deepEqual(by.get('offered')?.annotations, { [AVAILABLE_REVISION_ANNOTATION]: null });
  assert.deepEqual(by.get('quiet')?.annotations, { [AVAILABLE_REVISION_ANNOTATION]: null });
  // The last complete revision may still be handed out.
  assert.deepEqual(by.get('back'), decision.marks[3]);
  assert.deepEqual(out.upgrades?.starts, []);
  assert.equal(out.rollout, undefined);
});
