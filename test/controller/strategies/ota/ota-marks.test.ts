// Table tests of OTA's marks: the offer.

import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { AVAILABLE_REVISION_ANNOTATION } from '../../../../src/api/node-protocol.ts';
import type { StrategyNode } from '../../../../src/controller/strategies/strategy-node.ts';
import { marks, strategyNode } from '../../../support/strategy-fixtures.ts';

function n(name: string, over: Partial<StrategyNode> = {}): StrategyNode {
  return strategyNode(name, over);
}

describe('OTA marks', () => {
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
});
