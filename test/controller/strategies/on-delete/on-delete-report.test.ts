// OnDelete's report: older revisions in use, upgrades on request.

import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { StrategyNode } from '../../../../src/controller/strategies/strategy-node.ts';
import { report, strategyNode } from '../../../support/strategy-fixtures.ts';

function n(name: string, over: Partial<StrategyNode> = {}): StrategyNode {
  return strategyNode(name, { desired: 'r2', ...over });
}

describe('OnDelete report', () => {
  test('OnDelete lists the older revisions in use and waits for replacements', () => {
    const r = report({
      type: 'OnDelete',
      nodes: [n('a', { desired: 'r1' }), n('b', { desired: 'r1' }), n('c', { current: 'r2' })],
      upgrade: { requested: [] },
    });
    assert.equal(r.progressing.status, 'False');
    assert.equal(r.progressing.reason, 'WaitingForNodeReplacement');
    assert.match(r.progressing.message, /older revisions in use \(revision 1: 2 nodes\)/);
    assert.equal(r.complete.reason, 'OlderRevisionsInUse');
    const upgrading = report({ type: 'OnDelete', nodes: [n('a')], upgrade: { requested: ['a'] } });
    assert.equal(upgrading.progressing.status, 'True');
    assert.match(upgrading.progressing.message, /upgrading on request: a/);
  });
});
