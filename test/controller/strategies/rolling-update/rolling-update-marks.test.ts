// Table tests of RollingUpdate's marks: none, so every artefact of another strategy goes.

import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import {
  AVAILABLE_REVISION_ANNOTATION,
  HOLD_ANNOTATION,
  NOT_BEFORE_ANNOTATION,
  SERIAL_GATE_ANNOTATION,
  SERIAL_SLOT_ANNOTATION,
  UPGRADE_REQUESTED_ANNOTATION,
} from '../../../../src/api/node-protocol.ts';
import type { StrategyNode } from '../../../../src/controller/strategies/strategy-node.ts';
import { marks, type NodeOver, strategyNode } from '../../../support/strategy-fixtures.ts';

function n(name: string, over: NodeOver = {}): StrategyNode {
  return strategyNode(name, over);
}

const GATE = JSON.stringify({ pool: 'p', slots: 1, leaseDurationSeconds: 600 });

describe('RollingUpdate marks', () => {
  test('RollingUpdate removes every artefact and finished upgrade requests', () => {
    const m = marks({
      type: 'RollingUpdate',
      nodes: [
        n('a', {
          serialGate: GATE,
          serialSlot: '{"lease":"nodeherd-serial-p-0","handedOverAt":"t"}',
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
      [SERIAL_SLOT_ANNOTATION]: null,
      [NOT_BEFORE_ANNOTATION]: null,
      [HOLD_ANNOTATION]: null,
      [AVAILABLE_REVISION_ANNOTATION]: null,
    });
    assert.equal(m.get('a')?.taint, null);
    assert.deepEqual(m.get('b')?.annotations, { [UPGRADE_REQUESTED_ANNOTATION]: null });
  });
});
