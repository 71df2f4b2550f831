// Serial's marks: every node not on the target gets it with the Serial gate (the pool, its slots and
// their Lease duration); a node already in its slot keeps the gate it started with. A node the
// controller made the holder of a slot is told so on its Node (SERIAL_SLOT_ANNOTATION, written by the
// hand-over itself; the marks write it again if that write was lost, say the controller stopped between
// the Lease and the Node) and keeps it until it is on the target, when it goes with the gate. The gate
// says when it was given (handedOutAt): for a lease duration from then a Ready waiter trusts this
// controller to hand it a slot and reads no slot Lease (1,000 waiters listing and watching them at the
// start of a rollout got every hand-over of its first turn); a gate already carried with the same pool,
// slots and duration is kept as it is, so a reconcile rewrites no gate.

import {
  SERIAL_GATE_ANNOTATION,
  SERIAL_SLOT_ANNOTATION,
  type SerialGate,
  type SerialSlotHandover,
} from '../../../api/node-protocol.ts';
import { bootstrap, gatedHandout, type MarksInput, type StrategyMarks } from '../node-marks.ts';
import { startedOn } from '../strategy-node.ts';
import { serialGateOf, serialSlotOf } from './serial-annotations.ts';

function serialGateValue(gate: SerialGate, handedOutAt?: string): string {
  return JSON.stringify({
    pool: gate.pool,
    slots: gate.slots,
    leaseDurationSeconds: gate.leaseDurationSeconds,
    ...(handedOutAt !== undefined ? { handedOutAt } : {}),
  });
}

/** Whether the gate a Node carries is `gate` (the same pool, slots and duration, whenever given). */
function sameGate(text: string | undefined, gate: SerialGate): boolean {
  if (text === undefined) return false;
  try {
    const carried = JSON.parse(text) as Partial<SerialGate> | null;
    return (
      carried?.pool === gate.pool &&
      carried.slots === gate.slots &&
      carried.leaseDurationSeconds === gate.leaseDurationSeconds
    );
  } catch {
    return false;
  }
}

/** The Node's SERIAL_SLOT_ANNOTATION for a hand-over (the same text for the same hand-over). */
export function serialSlotValue(handover: SerialSlotHandover): string {
  return JSON.stringify({ lease: handover.lease, handedOverAt: handover.handedOverAt });
}

export interface SerialMarksInput extends MarksInput {
  /** The gate every node not on the target gets: the pool, its slots and their Lease duration. */
  serial: SerialGate;
  /** Nodes holding a slot. */
  slotHolders: ReadonlySet<string>;
  /**
   * Nodes the controller made the holder of a slot (its mark on the Lease), with their
   * SERIAL_SLOT_ANNOTATION value.
   */
  slotHandovers?: ReadonlyMap<string, string>;
}

export const serialMarks: StrategyMarks<SerialMarksInput> = (input) => {
  const T = input.target.name;
  const gate = serialGateValue(input.serial, new Date(input.now).toISOString());
  return (node) => {
    const joining = bootstrap(node, T);
    if (joining) return { ...joining, releaseDrain: true };
    if (node.current === undefined || node.current === T) return { annotations: {}, releaseDrain: true };
    const started = startedOn(node, T, input.slotHolders.has(node.name));
    const carried = serialGateOf(node);
    const wanted = gatedHandout(node, input, started, {
      key: SERIAL_GATE_ANNOTATION,
      value: carried !== undefined && (started || sameGate(carried, input.serial)) ? carried : gate,
    });
    const slot = input.slotHandovers?.get(node.name) ?? serialSlotOf(node);
    return { ...wanted, annotations: { ...wanted.annotations, [SERIAL_SLOT_ANNOTATION]: slot } };
  };
};
