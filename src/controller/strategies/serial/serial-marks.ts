// Serial's marks: every node not on the target gets it with the Serial gate (the pool, its slots and
// their Lease duration); a node already in its slot keeps the gate it started with. A node the
// controller made the holder of a slot is told so on its Node (SERIAL_SLOT_ANNOTATION, written by the
// hand-over itself; the marks write it again if that write was lost, say the controller stopped between
// the Lease and the Node) and keeps it until it is on the target, when it goes with the gate.

import {
  SERIAL_GATE_ANNOTATION,
  SERIAL_SLOT_ANNOTATION,
  type SerialGate,
  type SerialSlotHandover,
} from '../../../api/node-protocol.ts';
import { bootstrap, gatedHandout, type StrategyMarks } from '../node-marks.ts';
import { startedOn } from '../strategy-node.ts';

export function serialGateValue(gate: SerialGate): string {
  return JSON.stringify({
    pool: gate.pool,
    slots: gate.slots,
    leaseDurationSeconds: gate.leaseDurationSeconds,
  });
}

/** The Node's SERIAL_SLOT_ANNOTATION for a hand-over (the same text for the same hand-over). */
export function serialSlotValue(handover: SerialSlotHandover): string {
  return JSON.stringify({ lease: handover.lease, handedOverAt: handover.handedOverAt });
}

export const serialMarks: StrategyMarks = (input) => {
  const T = input.target.name;
  const gate = serialGateValue(input.serial);
  return (node) => {
    const joining = bootstrap(node, T);
    if (joining) return { ...joining, releaseDrain: true };
    if (node.current === undefined || node.current === T) return { annotations: {}, releaseDrain: true };
    const started = startedOn(node, T, input.slotHolders.has(node.name));
    const wanted = gatedHandout(node, input, started, {
      key: SERIAL_GATE_ANNOTATION,
      value: started && node.serialGate !== undefined ? node.serialGate : gate,
    });
    const slot = input.slotHandovers?.get(node.name) ?? node.serialSlot;
    return { ...wanted, annotations: { ...wanted.annotations, [SERIAL_SLOT_ANNOTATION]: slot } };
  };
};
