// The protobuf wire format, read generically: a message is a sequence of (field number, wire type,
// payload) records. Nothing here knows about Kubernetes types; src/apiserver/protobuf/message.ts
// gives the records meaning from field tables.

import { chargeDecode, FIELD_UNITS } from './decode-budget.ts';

/** Wire types of the protobuf encoding (groups, 3 and 4, are long deprecated and never used by kube). */
export const WIRE_VARINT = 0;
export const WIRE_FIXED64 = 1;
export const WIRE_BYTES = 2;
export const WIRE_FIXED32 = 5;

/** A malformed message: the caller turns it into a 400 BadRequest. */
export class WireError extends Error {}

export interface WireField {
  number: number;
  wireType: number;
  /** Varint and fixed payloads, as unsigned 64-bit values. */
  value: bigint;
  /** Length-delimited payloads (a view into the message, not a copy). */
  bytes: Buffer;
}

const EMPTY = Buffer.alloc(0);
const MAX_FIELD_NUMBER = 2 ** 29 - 1;

/** Reads one varint at `offset`; returns its unsigned 64-bit value and the offset after it. */
export function readVarint(buf: Buffer, offset: number): { value: bigint; next: number } {
  let result = 0n;
  let shift = 0n;
  for (let i = 0; i < 10; i++) {
    const pos = offset + i;
    if (pos >= buf.length) throw new WireError('unexpected end of data inside a varint');
    const byte = buf[pos]!;
    if (i === 9 && byte > 1) throw new WireError('varint overflows 64 bits');
    result |= BigInt(byte & 0x7f) << shift;
    if ((byte & 0x80) === 0) return { value: result, next: pos + 1 };
    shift += 7n;
  }
  throw new WireError('varint longer than 10 bytes');
}

/** Splits a message into its fields, in wire order. Throws WireError when the bytes are not a message. */
export function readFields(buf: Buffer): WireField[] {
  const fields: WireField[] = [];
  let offset = 0;
  while (offset < buf.length) {
    const tag = readVarint(buf, offset);
    offset = tag.next;
    if (tag.value > BigInt(MAX_FIELD_NUMBER) * 8n + 7n) throw new WireError('field number out of range');
    const number = Number(tag.value >> 3n);
    const wireType = Number(tag.value & 7n);
    if (number === 0) throw new WireError('illegal field number 0');
    chargeDecode(FIELD_UNITS);
    switch (wireType) {
      case WIRE_VARINT: {
        const v = readVarint(buf, offset);
        offset = v.next;
        fields.push({ number, wireType, value: v.value, bytes: EMPTY });
        break;
      }
      case WIRE_FIXED64: {
        if (offset + 8 > buf.length) throw new WireError('unexpected end of data inside a 64-bit field');
        fields.push({ number, wireType, value: buf.readBigUInt64LE(offset), bytes: EMPTY });
        offset += 8;
        break;
      }
      case WIRE_BYTES: {
        const len = readVarint(buf, offset);
        offset = len.next;
        if (len.value > BigInt(buf.length - offset)) {
          throw new WireError('length-delimited field runs past the end of the data');
        }
        const end = offset + Number(len.value);
        fields.push({ number, wireType, value: 0n, bytes: buf.subarray(offset, end) });
        offset = end;
        break;
      }
      case WIRE_FIXED32: {
        if (offset + 4 > buf.length) throw new WireError('unexpected end of data inside a 32-bit field');
        fields.push({ number, wireType, value: BigInt(buf.readUInt32LE(offset)), bytes: EMPTY });
        offset += 4;
        break;
      }
      default:
        throw new WireError(`unsupported wire type ${wireType} for field ${number}`);
    }
  }
  return fields;
}

/** The values of a packed repeated varint field (wire type 2 holding consecutive varints). */
export function readPackedVarints(buf: Buffer): bigint[] {
  const values: bigint[] = [];
  let offset = 0;
  while (offset < buf.length) {
    const v = readVarint(buf, offset);
    values.push(v.value);
    offset = v.next;
  }
  return values;
}

/**
 * Whether a field carries its type's zero value, as gogo-protobuf writes every non-pointer field
 * even when unset: a zero number, an empty string, or a nested message whose own fields are all zero
 * (a struct field nobody filled in). A payload that only parses as such a message is taken for one.
 */
export function isZeroField(field: WireField, depth = 0): boolean {
  if (field.wireType !== WIRE_BYTES) return field.value === 0n;
  if (field.bytes.length === 0) return true;
  if (depth >= 8) return false;
  try {
    return readFields(field.bytes).every((f) => isZeroField(f, depth + 1));
  } catch {
    return false;
  }
}
