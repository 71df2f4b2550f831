// Table tests of OnDelete's upgrades on demand: which nodes move to the target now.

import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { planUpgrades } from '../../../../src/controller/strategies/on-delete/on-delete-upgrades.ts';
import type { StrategyNode } from '../../../../src/controller/strategies/strategy-node.ts';
import { NOW, node as snapshot } from '../../../support/rollout-fixtures.ts';
import { strategyNode } from '../../../support/strategy-fixtures.ts';

function n(name: string, over: Partial<StrategyNode> = {}): StrategyNode {
  return strategyNode(name, over);
}

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
