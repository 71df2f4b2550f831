// Spread's report: the next start; a pause or the failure policy stops it.

import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { StrategyNode } from '../../../../src/controller/strategies/strategy-node.ts';
import { NOW } from '../../../support/rollout-fixtures.ts';
import { report, strategyNode } from '../../../support/strategy-fixtures.ts';

function n(name: string, over: Partial<StrategyNode> = {}): StrategyNode {
  return strategyNode(name, { desired: 'r2', ...over });
}

describe('Spread report', () => {
  test('Spread shows the next start; a pause or the failure policy stops it', () => {
    const schedule = new Map([
      ['a', NOW - 1_000],
      ['b', NOW + 60_000],
    ]);
    const running = report({
      type: 'Spread',
      nodes: [n('a', { state: 'Applying', stateRevision: 'r2' }), n('b')],
      schedule,
    });
    assert.match(
      running.progressing.message,
      new RegExp(`next start ${new Date(NOW + 60_000).toISOString()} \\(b\\)`),
    );
    assert.equal(running.applying, 1);
    const paused = report({ type: 'Spread', nodes: [n('b')], schedule, paused: true });
    assert.equal(paused.progressing.reason, 'Paused');
    const stopped = report({
      type: 'Spread',
      nodes: [n('b')],
      schedule,
      paused: true,
      stoppedByFailure: '1 node failed',
    });
    assert.equal(stopped.progressing.reason, 'FailurePolicy');
  });
});
