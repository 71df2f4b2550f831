// Serial's marks: every node not on the target gets it with the Serial gate (the pool, its slots and
// their Lease duration); a node already in its slot keeps the gate it started with.

import { SERIAL_GATE_ANNOTATION, type SerialGate } from '../../../api/node-protocol.ts';
import { bootstrap, gatedHandout, type StrategyMarks } from '../node-marks.ts';
import { startedOn } from '../strategy-node.ts';

export function serialGateValue(gate: SerialGate): string {
  return JSON.stringify({
    pool: gate.pool,
    slots: gate.slots,
    leaseDurationSeconds: gate.leaseDurationSeconds,
  });
}

export const serialMarks: StrategyMarks = (input) => {
  const T = input.target.name;
  const gate = serialGateValue(input.serial);
  return (node) => {
    const joining = bootstrap(node, T);
    if (joining) return { ...joining, releaseDrain: true };
    if (node.current === undefined || node.current === T) return { annotations: {}, releaseDrain: true };
    const started = startedOn(node, T, input.slotHolders.has(node.name));
    return gatedHandout(node, input, started, {
      key: SERIAL_GATE_ANNOTATION,
      value: started && node.serialGate !== undefined ? node.serialGate : gate,
    });
  };
};
