// Table tests of OnDelete's marks: the outdated taint.

import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { StrategyNode } from '../../../../src/controller/strategies/strategy-node.ts';
import { marks, strategyNode } from '../../../support/strategy-fixtures.ts';

function n(name: string, over: Partial<StrategyNode> = {}): StrategyNode {
  return strategyNode(name, over);
}

describe('OnDelete marks', () => {
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
});
