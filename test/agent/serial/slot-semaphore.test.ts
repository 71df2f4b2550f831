// The Serial semaphore's decisions and the start gates, pure: which slot to take, when a holder counts
// as gone (by the agent's own clock), and how the Node's gate annotations read.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { readStartGates } from '../../../src/agent/gate/start-gates.ts';
import { SlotObserver } from '../../../src/agent/serial/slot-observer.ts';
import {
  decideSlot,
  type ObservedSlot,
  releasedLease,
  renewedLease,
  type SlotLease,
  slotIndex,
  slotTurns,
  takenLease,
  turnDelay,
} from '../../../src/agent/serial/slot-semaphore.ts';
import {
  HOLD_ANNOTATION,
  NOT_BEFORE_ANNOTATION,
  SERIAL_GATE_ANNOTATION,
  SERIAL_HANDED_OVER_ANNOTATION,
  type SerialGate,
  serialLeaseName,
} from '../../../src/api/node-protocol.ts';

const GATE: SerialGate = { pool: 'web', slots: 2, leaseDurationSeconds: 15 };
const T0 = Date.parse('2026-11-21T08:00:00Z');

function lease(slot: number, holder: string | undefined, rv = '1', renewedAt = T0): SlotLease {
  return {
    metadata: { name: serialLeaseName('web', slot), resourceVersion: rv },
    spec: {
      ...(holder !== undefined ? { holderIdentity: holder } : {}),
      leaseDurationSeconds: 15,
      renewTime: new Date(renewedAt).toISOString(),
    },
  };
}

function slots(...entries: [SlotLease, number][]): Map<string, ObservedSlot> {
  return new Map(entries.map(([l, at]) => [l.metadata?.name ?? '', { lease: l, observedAt: at }]));
}

describe('Serial slot decisions', () => {
  it('creates the first missing slot', () => {
    const d = decideSlot(GATE, 'n1', slots([lease(0, 'a'), T0]), T0 + 1000, T0);
    assert.deepEqual(d, { kind: 'take', slot: 1, lease: undefined });
  });

  it('takes a released slot by updating it', () => {
    const released = lease(1, undefined, '7');
    const d = decideSlot(GATE, 'n1', slots([lease(0, 'a'), T0], [released, T0]), T0 + 1000);
    assert.equal(d.kind, 'take');
    assert.equal(d.kind === 'take' && d.lease, released);
  });

  it('waits while every slot is held, until the earliest expiry', () => {
    const d = decideSlot(GATE, 'n1', slots([lease(0, 'a'), T0], [lease(1, 'b'), T0 + 5000]), T0 + 6000);
    assert.deepEqual(d, { kind: 'wait', holders: ['a', 'b'], recheckAt: T0 + 15_000 });
  });

  it('takes over a slot whose holder has not renewed for a lease duration', () => {
    const d = decideSlot(GATE, 'n1', slots([lease(0, 'a'), T0], [lease(1, 'b'), T0 + 5000]), T0 + 16_000);
    assert.equal(d.kind, 'take');
    assert.equal(d.kind === 'take' && d.slot, 0);
    assert.equal(d.kind === 'take' && d.expiredHolder, 'a');
  });

  it('prefers a free slot to an expired one', () => {
    const d = decideSlot(GATE, 'n1', slots([lease(0, 'a'), T0], [lease(1, undefined), T0]), T0 + 60_000);
    assert.equal(d.kind === 'take' && d.slot, 1);
  });

  it('adopts its own slot (after an agent restart), even one above a shrunk slot count', () => {
    const own = lease(3, 'n1');
    const d = decideSlot(GATE, 'n1', slots([lease(0, 'a'), T0], [lease(1, 'b'), T0], [own, T0]), T0);
    assert.deepEqual(d, { kind: 'held', slot: 3, lease: own });
  });

  it('never takes a slot at or above the slot count', () => {
    const d = decideSlot(
      { ...GATE, slots: 1 },
      'n1',
      slots([lease(0, 'a'), T0], [lease(1, undefined), T0]),
      T0 + 1000,
    );
    assert.deepEqual(d, { kind: 'wait', holders: ['a'], recheckAt: T0 + 15_000 });
  });

  it('takes a freed slot only on its turn: at once near its home slot, later the farther it is', () => {
    const gate: SerialGate = { pool: 'web', slots: 10, leaseDurationSeconds: 15 };
    const turns = slotTurns('n1', 10);
    const held = Array.from({ length: 10 }, (_, i) => lease(i, `h${i}`));
    for (const distance of [0, 1, 9]) {
      const slot = (turns.home + distance) % 10;
      const freedAt = T0 + 1000;
      const observed = slots(
        ...held.map((l, i): [SlotLease, number] =>
          i === slot ? [lease(i, undefined, '2'), freedAt] : [l, T0],
        ),
      );
      const turnAt = freedAt + turnDelay(turns, slot, 10);
      assert.equal(turnAt, freedAt + distance * turns.stepMs + turns.offsetMs);
      const early = decideSlot(gate, 'n1', observed, turnAt - 1, T0);
      assert.deepEqual(early, {
        kind: 'wait',
        holders: held
          .map((_, i) => `h${i}`)
          .filter((h) => h !== `h${slot}`)
          .sort(),
        recheckAt: turnAt,
      });
      assert.equal(decideSlot(gate, 'n1', observed, turnAt, T0).kind, 'take');
    }
  });

  it('while the controller hands slots out, leaves a freed slot to it for the grace, then takes turns', () => {
    const gate: SerialGate = { pool: 'web', slots: 1, leaseDurationSeconds: 15 };
    const turns = slotTurns('n1', 1);
    const freedAt = T0 + 1000;
    const observed = slots([lease(0, undefined, '2'), freedAt]);
    const turnAt = freedAt + 2000 + turnDelay(turns, 0, 1);
    assert.deepEqual(decideSlot(gate, 'n1', observed, turnAt - 1, T0, 2000), {
      kind: 'wait',
      holders: [],
      recheckAt: turnAt,
    });
    assert.equal(decideSlot(gate, 'n1', observed, turnAt, T0, 2000).kind, 'take');
    // A missing Lease too: the grace counts from when the watch began.
    const missing = decideSlot(gate, 'n1', new Map(), T0 + 1, T0, 2000);
    assert.deepEqual(missing, { kind: 'wait', holders: [], recheckAt: T0 + 2000 + turnDelay(turns, 0, 1) });
    // An expired holder is no hand-over the controller would make: no grace.
    const expired = slots([lease(0, 'gone', '3'), T0]);
    assert.equal(
      decideSlot(gate, 'n1', expired, T0 + 15_000 + turnDelay(turns, 0, 1), T0, 2000).kind,
      'take',
    );
  });

  it('spreads home slots over the pool, so a freed slot has few nodes on their turn at once', () => {
    const perSlot = new Array<number>(10).fill(0);
    for (let i = 0; i < 1000; i++) {
      const { home } = slotTurns(`node-${i}`, 10);
      perSlot[home] = (perSlot[home] ?? 0) + 1;
    }
    assert.ok(Math.max(...perSlot) < 150 && Math.min(...perSlot) > 50, `homes per slot ${perSlot}`);
    const turns = slotTurns('node-1', 10);
    assert.ok(turns.offsetMs >= 0 && turns.offsetMs < turns.stepMs);
  });

  it('knows slot names of its pool only', () => {
    assert.equal(slotIndex('web', serialLeaseName('web', 12)), 12);
    assert.equal(slotIndex('web', serialLeaseName('web-2', 1)), undefined);
    assert.equal(slotIndex('web', `${serialLeaseName('web', 1)}x`), undefined);
    assert.equal(slotIndex('web', serialLeaseName('web', 1).replace('-1', '-01')), undefined);
  });
});

describe('Serial slot expiry is timed by the agent’s own clock', () => {
  it('restarts the clock whenever the record changes, whatever renewTime says', () => {
    const observer = new SlotObserver();
    // The holder's clock runs an hour behind: its renewTime is far in the past, yet it renews.
    const behind = T0 - 3_600_000;
    observer.observe(lease(0, 'a', '1', behind), T0);
    observer.observe(lease(0, 'a', '2', behind + 5000), T0 + 5000);
    const seen = observer.slots.get(serialLeaseName('web', 0));
    assert.equal(seen?.observedAt, T0 + 5000);
    assert.equal(decideSlot({ ...GATE, slots: 1 }, 'n1', observer.slots, T0 + 10_000).kind, 'wait');
    assert.equal(decideSlot({ ...GATE, slots: 1 }, 'n1', observer.slots, T0 + 21_000).kind, 'take');
  });

  it('does not restart it for the same record seen again', () => {
    const observer = new SlotObserver();
    observer.observe(lease(0, 'a', '1', T0), T0);
    observer.observe(lease(0, 'a', '1', T0), T0 + 9000);
    assert.equal(observer.slots.get(serialLeaseName('web', 0))?.observedAt, T0);
  });

  it('at first sight trusts renewTime only to make a slot older, never younger', () => {
    const observer = new SlotObserver();
    observer.observe(lease(0, 'a', '1', T0 - 60_000), T0);
    assert.equal(observer.slots.get(serialLeaseName('web', 0))?.observedAt, T0 - 60_000);
    // A holder whose clock runs ahead cannot extend its slot beyond a duration from now.
    observer.observe(lease(1, 'b', '1', T0 + 3_600_000), T0);
    assert.equal(observer.slots.get(serialLeaseName('web', 1))?.observedAt, T0);
  });

  it('tells a hand-over by the controller: seen live at now, at first sight at its mark (capped)', () => {
    const handed = (slot: number, holder: string, rv: string, at: number): SlotLease => {
      const l = lease(slot, holder, rv, at);
      return {
        ...l,
        metadata: {
          ...l.metadata,
          annotations: { [SERIAL_HANDED_OVER_ANNOTATION]: new Date(at).toISOString() },
        },
      };
    };
    const observer = new SlotObserver();
    // First sight: the mark's time (a hand-over long ago is no sign the controller runs now).
    assert.equal(observer.observe(handed(0, 'a', '1', T0 - 60_000), T0).handedAt, T0 - 60_000);
    assert.equal(observer.observe(handed(1, 'b', '1', T0 + 60_000), T0).handedAt, T0);
    // Seen as it happens: this agent's clock, whatever the controller's says.
    assert.equal(observer.observe(handed(0, 'c', '2', T0 - 3_600_000), T0 + 5000).handedAt, T0 + 5000);
    // A renewal by the holder it was handed to is no new hand-over; an agent's own take is none.
    assert.equal(
      observer.observe(renewedLease(handed(0, 'c', '3', T0), T0 + 6000), T0 + 6000).handedAt,
      undefined,
    );
    assert.equal(
      observer.observe(
        { ...lease(0, 'd', '4'), metadata: { name: serialLeaseName('web', 0), resourceVersion: '4' } },
        T0 + 7000,
      ).handedAt,
      undefined,
    );
  });

  it('ignores a watch event older than what it already saw', () => {
    const observer = new SlotObserver();
    observer.observe(lease(0, 'n1', '5'), T0);
    observer.observe(lease(0, undefined, '4'), T0 + 1000);
    assert.equal(observer.slots.get(serialLeaseName('web', 0))?.lease.spec?.holderIdentity, 'n1');
  });
});

describe('Serial slot Lease bodies', () => {
  it('takes with the previous resourceVersion (a CAS) and counts transitions', () => {
    const previous = { ...lease(0, 'a', '42'), spec: { ...lease(0, 'a').spec, leaseTransitions: 3 } };
    const taken = takenLease(GATE, 0, 'n1', previous, { 'nodeherd.io/serial-pool': 'web' }, T0);
    assert.equal(taken.metadata?.resourceVersion, '42');
    assert.equal(taken.spec?.holderIdentity, 'n1');
    assert.equal(taken.spec?.leaseTransitions, 4);
    assert.equal(taken.spec?.renewTime, '2026-11-21T08:00:00.000000Z');
    const released = releasedLease(taken);
    assert.equal(released.spec?.holderIdentity, undefined);
    assert.equal(released.metadata?.resourceVersion, '42');
  });

  it('drops the controller’s hand-over mark on its own takes and releases, keeps it on renewals', () => {
    const marked = {
      ...lease(0, 'a', '42'),
      metadata: {
        name: serialLeaseName('web', 0),
        resourceVersion: '42',
        annotations: { [SERIAL_HANDED_OVER_ANNOTATION]: '2026-11-21T08:00:00.000000Z', keep: 'me' },
      },
    };
    const taken = takenLease(GATE, 0, 'n1', marked, {}, T0);
    assert.deepEqual(taken.metadata?.annotations, { keep: 'me' });
    assert.deepEqual(releasedLease(marked).metadata?.annotations, { keep: 'me' });
    assert.equal(releasedLease(marked).metadata?.resourceVersion, '42');
    assert.deepEqual(renewedLease(marked, T0).metadata?.annotations, marked.metadata.annotations);
  });
});

describe('start gates on the Node', () => {
  const serial = JSON.stringify(GATE);

  it('passes a Node without gates, and a Spread time that has come', () => {
    assert.deepEqual(readStartGates(undefined, T0), { kind: 'open' });
    assert.deepEqual(readStartGates({ [NOT_BEFORE_ANNOTATION]: '2026-11-21T07:59:59Z' }, T0), {
      kind: 'open',
    });
  });

  it('holds first, then waits for the Spread time, then asks for a Serial slot', () => {
    const all = {
      [HOLD_ANNOTATION]: 'pool web paused',
      [NOT_BEFORE_ANNOTATION]: '2026-11-21T08:10:00Z',
      [SERIAL_GATE_ANNOTATION]: serial,
    };
    assert.deepEqual(readStartGates(all, T0), { kind: 'hold', reason: 'pool web paused' });
    const { [HOLD_ANNOTATION]: _hold, ...spread } = all;
    assert.deepEqual(readStartGates(spread, T0), {
      kind: 'not-before',
      at: T0 + 600_000,
      text: '2026-11-21T08:10:00Z',
    });
    assert.deepEqual(readStartGates(spread, T0 + 600_000), { kind: 'serial', serial: GATE });
  });

  it('refuses gates it cannot read, naming the annotation and the problem', () => {
    const time = readStartGates({ [NOT_BEFORE_ANNOTATION]: 'tomorrow' }, T0);
    assert.equal(time.kind, 'invalid');
    assert.match(time.kind === 'invalid' ? time.problem : '', /nodeherd\.io\/not-before is not an RFC 3339/);
    const slotsWrong = readStartGates(
      { [SERIAL_GATE_ANNOTATION]: '{"pool":"web","slots":0,"leaseDurationSeconds":15}' },
      T0,
    );
    assert.match(
      slotsWrong.kind === 'invalid' ? slotsWrong.problem : '',
      /serial-gate: slots must be an integer ≥ 1/,
    );
    const notJson = readStartGates({ [SERIAL_GATE_ANNOTATION]: 'web' }, T0);
    assert.match(notJson.kind === 'invalid' ? notJson.problem : '', /not JSON/);
    const stampWrong = readStartGates(
      { [SERIAL_GATE_ANNOTATION]: JSON.stringify({ ...GATE, handedOutAt: 'now' }) },
      T0,
    );
    assert.match(
      stampWrong.kind === 'invalid' ? stampWrong.problem : '',
      /serial-gate: handedOutAt must be an RFC 3339 time, got "now"/,
    );
  });

  it('reads when the controller gave the gate, if it says', () => {
    const stamped = { ...GATE, handedOutAt: '2026-11-21T07:59:00.123Z' };
    assert.deepEqual(readStartGates({ [SERIAL_GATE_ANNOTATION]: JSON.stringify(stamped) }, T0), {
      kind: 'serial',
      serial: stamped,
    });
  });
});
