// Table tests of RollingUpdate's marks: none, so every artefact of another strategy goes.

import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import {
  AVAILABLE_REVISION_ANNOTATION,
  HOLD_ANNOTATION,
  NOT_BEFORE_ANNOTATION,
  PRESTAGE_ASKED_AT_ANNOTATION,
  PRESTAGE_REVISION_ANNOTATION,
  SERIAL_GATE_ANNOTATION,
  SERIAL_SLOT_ANNOTATION,
  UPGRADE_REQUESTED_ANNOTATION,
} from '../../../../src/api/node-protocol.ts';
import { planNodeMarks } from '../../../../src/controller/strategies/node-marks.ts';
import { rollingUpdateMarks } from '../../../../src/controller/strategies/rolling-update/rolling-update-marks.ts';
import type { StrategyNode } from '../../../../src/controller/strategies/strategy-node.ts';
import { NOW } from '../../../support/rollout-fixtures.ts';
import { marks, marksDefaults, type NodeOver, strategyNode } from '../../../support/strategy-fixtures.ts';

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

describe('RollingUpdate marks: the pre-stage ask and its time', () => {
  const EARLIER = new Date(NOW - 30_000).toISOString();
  const prestageMarks = (nodes: StrategyNode[], asked: string[]) =>
    new Map(
      planNodeMarks(
        { ...marksDefaults({ nodes }), now: NOW, prestage: new Set(asked) },
        rollingUpdateMarks,
      ).map((m) => [m.node, m.annotations]),
    );

  test('a new ask carries the time it was made; one that stands keeps its time; an ask that goes takes its time along', () => {
    const m = prestageMarks(
      [
        n('new'),
        n('kept', {
          annotations: { [PRESTAGE_REVISION_ANNOTATION]: 'r2', [PRESTAGE_ASKED_AT_ANNOTATION]: EARLIER },
        }),
        n('retarget', {
          annotations: { [PRESTAGE_REVISION_ANNOTATION]: 'r1', [PRESTAGE_ASKED_AT_ANNOTATION]: EARLIER },
        }),
        n('untimed', { annotations: { [PRESTAGE_REVISION_ANNOTATION]: 'r2' } }),
        n('gone', {
          annotations: { [PRESTAGE_REVISION_ANNOTATION]: 'r2', [PRESTAGE_ASKED_AT_ANNOTATION]: EARLIER },
        }),
      ],
      ['new', 'kept', 'retarget', 'untimed'],
    );
    const now = new Date(NOW).toISOString();
    assert.deepEqual(m.get('new'), {
      [PRESTAGE_REVISION_ANNOTATION]: 'r2',
      [PRESTAGE_ASKED_AT_ANNOTATION]: now,
    });
    assert.equal(m.get('kept'), undefined, 'nothing to write: the ask and its time stand');
    assert.deepEqual(
      m.get('retarget'),
      { [PRESTAGE_REVISION_ANNOTATION]: 'r2', [PRESTAGE_ASKED_AT_ANNOTATION]: now },
      'an ask for another revision is a new ask: its clock starts again',
    );
    assert.deepEqual(
      m.get('untimed'),
      { [PRESTAGE_ASKED_AT_ANNOTATION]: now },
      'an ask an older controller made gets its time',
    );
    assert.deepEqual(m.get('gone'), {
      [PRESTAGE_REVISION_ANNOTATION]: null,
      [PRESTAGE_ASKED_AT_ANNOTATION]: null,
    });
  });
});
