// The Node annotations Serial owns: its gate (the agent takes a slot Lease before it applies) and the
// slot the controller last handed the node. Declared here, collected in ../strategy-annotations.ts.

import { SERIAL_GATE_ANNOTATION, SERIAL_SLOT_ANNOTATION } from '../../../api/node-protocol.ts';
import type { StrategyNode } from '../strategy-node.ts';

export const serialAnnotations = [
  { key: SERIAL_GATE_ANNOTATION, gate: true },
  { key: SERIAL_SLOT_ANNOTATION, gate: false },
] as const;

/** The Serial gate the node carries (SERIAL_GATE_ANNOTATION, as written). */
export function serialGateOf(node: StrategyNode): string | undefined {
  return node.annotations?.[SERIAL_GATE_ANNOTATION];
}

/** The slot the controller last handed this node (SERIAL_SLOT_ANNOTATION, as written). */
export function serialSlotOf(node: StrategyNode): string | undefined {
  return node.annotations?.[SERIAL_SLOT_ANNOTATION];
}
