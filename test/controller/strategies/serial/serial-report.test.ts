// Serial's report: the slot holders; a failed holder degrades the pool.

import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { StrategyNode } from '../../../../src/controller/strategies/strategy-node.ts';
import { report, strategyNode } from '../../../support/strategy-fixtures.ts';

function n(name: string, over: Partial<StrategyNode> = {}): StrategyNode {
  return strategyNode(name, { desired: 'r2', ...over });
}

describe('Serial report', () => {
  test('Serial names the slot holders; a failed holder degrades the pool', () => {
    const r = report({
      nodes: [
        n('a', { state: 'Failed', stateRevision: 'r2', message: 'revision r2 failed: probe' }),
        n('b'),
        n('c', { current: 'r2' }),
      ],
      slots: { count: 1, holders: [{ lease: 's-0', node: 'a', state: 'Failed' }] },
    });
    assert.equal(r.progressing.status, 'True');
    assert.match(r.progressing.message, /^1\/3 nodes on r2; 1\/1 slots held: a \(Failed\)$/);
    assert.equal(r.degraded?.reason, 'SlotHolderFailed');
    assert.match(r.degraded?.message ?? '', /a bad change stops after 1 node/);
    assert.deepEqual(r.failed, ['a']);
    assert.equal(r.done, false);
  });
});
