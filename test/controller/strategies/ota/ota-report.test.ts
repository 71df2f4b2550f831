// OTA's report: the nodes with an update available.

import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { StrategyNode } from '../../../../src/controller/strategies/strategy-node.ts';
import { report, strategyNode } from '../../../support/strategy-fixtures.ts';

function n(name: string, over: Partial<StrategyNode> = {}): StrategyNode {
  return strategyNode(name, { desired: 'r2', ...over });
}

describe('OTA report', () => {
  test('OTA counts the nodes with an update available', () => {
    const r = report({
      type: 'OTA',
      nodes: [n('a', { desired: 'r1' }), n('b', { desired: 'r1' }), n('c', { current: 'r2' })],
    });
    assert.match(r.progressing.message, /2 nodes have an update available/);
    assert.equal(r.progressing.reason, 'WaitingForNodeOwners');
    assert.equal(r.updateAvailable, 2);
    assert.equal(r.waiting, 0);
    const pulling = report({
      type: 'OTA',
      nodes: [
        n('a', { desired: 'r1', available: 'r2' }),
        n('b', { state: 'Applying', stateRevision: 'r2' }),
        n('c', { current: undefined, desired: undefined }),
      ],
    });
    assert.equal(
      pulling.updateAvailable,
      1,
      'the applying node and the node with no revision are not offers',
    );
    assert.match(pulling.progressing.message, /1 node has an update available; 1 node applying/);
  });
});
