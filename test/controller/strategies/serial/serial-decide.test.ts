// Serial's decision at the start of a rollout: the nodes its marks give the target with the gate are
// handed the free slots in the same decision (created where no Lease exists yet), and their marks are
// written first, so the first nodes start without waiting for every node's marks and another reconcile.

import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import {
  DESIRED_REVISION_ANNOTATION,
  HOLD_ANNOTATION,
  SERIAL_GATE_ANNOTATION,
  serialLeaseName,
} from '../../../../src/api/node-protocol.ts';
import type { NodeSnapshot } from '../../../../src/controller/rollout/types.ts';
import { serial } from '../../../../src/controller/strategies/serial/serial.ts';
import type { SlotView } from '../../../../src/controller/strategies/serial/serial-slots.ts';
import type { StrategySnapshot } from '../../../../src/controller/strategies/strategy.ts';
import { NOW, settings } from '../../../support/rollout-fixtures.ts';
import { strategyNode } from '../../../support/strategy-fixtures.ts';

const NAMES = ['a', 'b', 'c', 'd', 'e'];

function snapshot(over: Partial<StrategySnapshot<SlotView>> = {}): StrategySnapshot<SlotView> {
  const readyNode = (name: string) => ({ name, ready: true }) as NodeSnapshot;
  return {
    pool: { metadata: { name: 'p' } },
    spec: { updateStrategy: { type: 'Serial', serial: { slots: 2, leaseDurationSeconds: 600 } } },
    settings: settings(),
    target: { name: 'r2', number: 2 },
    history: [],
    paused: false,
    nodes: NAMES.map((name) => strategyNode(name)),
    snapshots: NAMES.map(readyNode),
    revisionNumbers: new Map([
      ['r1', 1],
      ['r2', 2],
    ]),
    own: { holders: [], release: [], free: [], held: [] },
    now: NOW,
    ...over,
  } as unknown as StrategySnapshot<SlotView>;
}

describe('Serial decision when a rollout begins', () => {
  test('the first nodes given the gate are handed the slots at once, and their marks go first', () => {
    const decision = serial.decide(snapshot());
    const handed = decision.handOverSlots ?? [];
    assert.deepEqual(
      handed.map((h) => [h.lease, h.create]),
      [
        [serialLeaseName('p', 0), true],
        [serialLeaseName('p', 1), true],
      ],
    );
    const first = handed.map((h) => h.node).sort();
    assert.equal(first.length, 2);
    assert.deepEqual(
      decision.marks
        .slice(0, 2)
        .map((m) => m.node)
        .sort(),
      first,
      'the handed nodes’ marks are written first',
    );
    for (const m of decision.marks) {
      assert.equal(m.annotations[DESIRED_REVISION_ANNOTATION], 'r2');
      assert.ok(m.annotations[SERIAL_GATE_ANNOTATION]);
    }
    assert.deepEqual(
      decision.slotQueue?.nodes.sort(),
      NAMES.filter((n) => !first.includes(n)),
      'the others wait in order',
    );
  });

  test('a paused pool hands out no slot, and a node not Ready is passed over', () => {
    assert.equal(serial.decide(snapshot({ paused: true })).handOverSlots, undefined);
    const decision = serial.decide(
      snapshot({
        snapshots: NAMES.map((name) => ({ name, ready: name !== 'a' && name !== 'b' }) as NodeSnapshot),
      }),
    );
    const handed = (decision.handOverSlots ?? []).map((h) => h.node);
    assert.equal(handed.length, 2);
    assert.ok(!handed.includes('a') && !handed.includes('b'), String(handed));
  });

  test('a node whose marks hold it is not handed a slot', () => {
    const decision = serial.decide(snapshot({ paused: true }));
    assert.ok(decision.marks.every((m) => m.annotations[HOLD_ANNOTATION] !== undefined));
    assert.equal(decision.slotQueue, undefined);
  });
});

describe('Serial honours rollingUpdate.canary (as Spread does)', () => {
  const withCanary = (over: Partial<StrategySnapshot<SlotView>> = {}) =>
    snapshot({
      settings: settings({ minReadySeconds: 30, canary: { nodes: 1 } }),
      ...over,
    });
  const given = (d: ReturnType<typeof serial.decide>) =>
    d.marks.filter((m) => m.annotations[DESIRED_REVISION_ANNOTATION] === 'r2').map((m) => m.node);

  test('until the canary is updated and soaked only it is given the target, and only it gets a slot', () => {
    const decision = serial.decide(withCanary());
    assert.deepEqual(given(decision), ['a']);
    assert.deepEqual(
      (decision.handOverSlots ?? []).map((h) => h.node),
      ['a'],
    );
    assert.deepEqual(decision.slotQueue?.nodes ?? [], []);
    assert.equal(decision.canaryPassedAt, undefined);
  });

  test('a canary that broke (agent Failed) keeps every other node off the target', () => {
    const nodes = NAMES.map((name) =>
      name === 'a' ? strategyNode(name, { desired: 'r2', state: 'Failed' }) : strategyNode(name),
    );
    const decision = serial.decide(withCanary({ nodes }));
    assert.deepEqual(
      given(decision).filter((n) => n !== 'a'),
      [],
    );
  });

  test('healthy on the target for minReadySeconds: the canary passes, recorded, and the others go', () => {
    const nodes = NAMES.map((name) =>
      name === 'a' ? strategyNode(name, { desired: 'r2', current: 'r2' }) : strategyNode(name),
    );
    const healthy = (name: string, since: number) =>
      ({
        name,
        ready: true,
        deleting: false,
        desiredRevision: name === 'a' ? 'r2' : 'r1',
        currentRevision: name === 'a' ? 'r2' : 'r1',
        agentState: 'Done',
        configReady: true,
        podsReady: true,
        healthySince: since,
      }) as NodeSnapshot;
    // Soaking: not passed yet, and the decision wakes when the soak ends.
    let decision = serial.decide(
      withCanary({ nodes, snapshots: NAMES.map((n) => healthy(n, NOW - 10_000)) }),
    );
    assert.equal(decision.canaryPassedAt, undefined);
    assert.equal(decision.requeueAfterMs, 20_000);
    assert.deepEqual(given(decision), []);
    decision = serial.decide(withCanary({ nodes, snapshots: NAMES.map((n) => healthy(n, NOW - 40_000)) }));
    assert.equal(decision.canaryPassedAt, Math.floor(NOW / 1000) * 1000);
    assert.deepEqual(given(decision).sort(), ['b', 'c', 'd', 'e']);
  });
});
