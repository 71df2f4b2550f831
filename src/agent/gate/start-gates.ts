// The gates the controller puts on a Node for strategies where agents decide timing themselves:
// HOLD (do not start), NOT_BEFORE (Spread: not before this time) and SERIAL_GATE (Serial: take a slot
// Lease first). Read from the Node's annotations, in the order the agent passes them. Pure.

import {
  HOLD_ANNOTATION,
  NOT_BEFORE_ANNOTATION,
  SERIAL_GATE_ANNOTATION,
  SERIAL_SLOT_ANNOTATION,
  type SerialGate,
  type SerialSlotHandover,
} from '../../api/node-protocol.ts';

export type StartGates =
  | { kind: 'open' }
  | { kind: 'hold'; reason: string }
  | { kind: 'not-before'; at: number; text: string }
  /** The gates cannot be read: the agent does not start (starting would ignore what the controller meant). */
  | { kind: 'invalid'; problem: string }
  | { kind: 'serial'; serial: SerialGate };

/** RFC 3339 date-time with a zone (what kube and the controller write). */
const RFC3339 = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/i;

/** The first gate not passed at `now` (epoch ms), or open; a Serial gate is passed by taking a slot. */
export function readStartGates(annotations: Record<string, string> | undefined, now: number): StartGates {
  const a = annotations ?? {};
  const hold = a[HOLD_ANNOTATION];
  if (hold !== undefined) return { kind: 'hold', reason: hold.trim() === '' ? 'no reason given' : hold };
  const notBefore = a[NOT_BEFORE_ANNOTATION];
  if (notBefore !== undefined && notBefore !== '') {
    const at = RFC3339.test(notBefore) ? Date.parse(notBefore) : Number.NaN;
    if (Number.isNaN(at))
      return {
        kind: 'invalid',
        problem: `annotation ${NOT_BEFORE_ANNOTATION} is not an RFC 3339 time: ${JSON.stringify(notBefore)}`,
      };
    if (at > now) return { kind: 'not-before', at, text: notBefore };
  }
  const serial = a[SERIAL_GATE_ANNOTATION];
  if (serial !== undefined && serial !== '') {
    const parsed = parseSerialGate(serial);
    if (typeof parsed === 'string')
      return { kind: 'invalid', problem: `annotation ${SERIAL_GATE_ANNOTATION}: ${parsed}` };
    return { kind: 'serial', serial: parsed };
  }
  return { kind: 'open' };
}

/** The SerialGate in `text`, or what is wrong with it. */
export function parseSerialGate(text: string): SerialGate | string {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return `not JSON: ${JSON.stringify(text.slice(0, 200))}`;
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return 'must be a JSON object';
  const { pool, slots, leaseDurationSeconds, handedOutAt } = value as Record<string, unknown>;
  // Lease names embed the pool: it must be a DNS-1123 label-ish name.
  if (typeof pool !== 'string' || !/^[a-z0-9]([-a-z0-9.]*[a-z0-9])?$/.test(pool))
    return `pool must be a lower-case DNS name, got ${JSON.stringify(pool)}`;
  if (typeof slots !== 'number' || !Number.isInteger(slots) || slots < 1)
    return `slots must be an integer ≥ 1, got ${JSON.stringify(slots)}`;
  if (
    typeof leaseDurationSeconds !== 'number' ||
    !Number.isInteger(leaseDurationSeconds) ||
    leaseDurationSeconds < 1
  )
    return `leaseDurationSeconds must be an integer ≥ 1, got ${JSON.stringify(leaseDurationSeconds)}`;
  if (handedOutAt === undefined) return { pool, slots, leaseDurationSeconds };
  if (typeof handedOutAt !== 'string' || !RFC3339.test(handedOutAt) || Number.isNaN(Date.parse(handedOutAt)))
    return `handedOutAt must be an RFC 3339 time, got ${JSON.stringify(handedOutAt)}`;
  return { pool, slots, leaseDurationSeconds, handedOutAt };
}

/**
 * The slot hand-over the controller wrote on the Node (SERIAL_SLOT_ANNOTATION), or undefined: absent or
 * unreadable. Only a hint (the Lease it names is read, and counts only if it names this node), so an
 * unreadable one is ignored rather than gating the node.
 */
export function readSerialSlot(
  annotations: Record<string, string> | undefined,
): SerialSlotHandover | undefined {
  const text = annotations?.[SERIAL_SLOT_ANNOTATION];
  if (!text) return undefined;
  try {
    const { lease, handedOverAt } = JSON.parse(text) as Record<string, unknown>;
    return typeof lease === 'string' && lease !== '' && typeof handedOverAt === 'string'
      ? { lease, handedOverAt }
      : undefined;
  } catch {
    return undefined;
  }
}
