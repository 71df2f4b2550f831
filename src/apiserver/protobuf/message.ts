// Table-driven decoding of protobuf messages into the JSON kube's encoding/json would produce for
// the same Go value. A message table lists, in Go struct order, each field's number (from
// k8s.io/api's generated.proto), its JSON name, its type, and how Go's JSON encoding treats it:
//
// - 'omitempty': a non-pointer field tagged omitempty — left out when it holds its zero value.
// - 'always':    a field without omitempty (or a non-pointer struct, which omitempty never drops) —
//                written even when absent from the wire, as its zero value.
// - 'pointer':   a pointer field — written exactly when present on the wire, even when zero.
//
// gogo-protobuf, which kube's clients use, writes every non-pointer field (empty strings, zero
// numbers, empty structs), so absent and zero are the same thing for non-pointer fields, and only
// pointer fields can tell "unset" from "zero". Maps and lists are never written as null: an empty
// one is left out, as a nil map or slice decoded by Go marshals to null, which means the same.
//
// Times follow metav1.Time and metav1.MicroTime: empty bytes are the zero time, which marshals to
// null and is left out here; anything else is seconds+nanos rendered as RFC 3339 in UTC (whole
// seconds for Time, microseconds for MicroTime).
//
// Fields the tables name as unsupported, and field numbers they do not know, are accepted while
// they hold their zero value (newer clients write every non-pointer field) and refused otherwise,
// so an object is never stored with part of it silently dropped. Fields named as ignored
// (managedFields) are dropped whatever they hold.

import { chargeDecode } from './decode-budget.ts';
import {
  isZeroField,
  readFields,
  readPackedVarints,
  WIRE_BYTES,
  WIRE_FIXED32,
  WIRE_FIXED64,
  WIRE_VARINT,
  WireError,
  type WireField,
} from './wire.ts';

export type Presence = 'omitempty' | 'always' | 'pointer';

export type ValueType =
  | { kind: 'string' }
  | { kind: 'bytes' }
  | { kind: 'bool' }
  | { kind: 'int32' }
  | { kind: 'int64' }
  | { kind: 'double' }
  | { kind: 'time' }
  | { kind: 'microTime' }
  | { kind: 'quantity' }
  | { kind: 'intOrString' }
  | { kind: 'message'; spec: MessageSpec };

export interface FieldSpec {
  number: number;
  /** JSON name; unused for inline fields. */
  json: string;
  type: ValueType;
  presence: Presence;
  shape: 'single' | 'list' | 'map' | 'inline' | 'unsupported' | 'ignored';
}

export interface MessageSpec {
  /** Proto name, for error messages: `k8s.io.api.core.v1.PodSpec`. */
  readonly name: string;
  fields(): ReadonlyMap<number, FieldSpec>;
}

/** A field the server does not decode, or an unknown field number, carrying a value. */
export class UnsupportedFieldError extends Error {
  readonly path: string;
  constructor(path: string, message: string) {
    super(message);
    this.path = path;
  }
}

/** Malformed input at a known place in the object. */
export class MalformedError extends Error {
  readonly path: string;
  constructor(path: string, message: string) {
    super(message);
    this.path = path;
  }
}

// ---- table builders ----

export const STRING: ValueType = { kind: 'string' };
export const BYTES: ValueType = { kind: 'bytes' };
export const BOOL: ValueType = { kind: 'bool' };
export const INT32: ValueType = { kind: 'int32' };
export const INT64: ValueType = { kind: 'int64' };
export const DOUBLE: ValueType = { kind: 'double' };
export const TIME: ValueType = { kind: 'time' };
export const MICRO_TIME: ValueType = { kind: 'microTime' };
export const QUANTITY: ValueType = { kind: 'quantity' };
export const INT_OR_STRING: ValueType = { kind: 'intOrString' };

export function msg(spec: MessageSpec): ValueType {
  return { kind: 'message', spec };
}

/** Declares a message; `define` runs on first use, so tables may refer to messages declared later. */
export function message(name: string, define: () => FieldSpec[]): MessageSpec {
  let cache: Map<number, FieldSpec> | undefined;
  return {
    name,
    fields() {
      if (!cache) {
        cache = new Map();
        for (const f of define()) {
          if (cache.has(f.number)) throw new Error(`${name}: field ${f.number} declared twice`);
          cache.set(f.number, f);
        }
      }
      return cache;
    },
  };
}

/** A singular field; non-pointer with omitempty unless told otherwise. */
export function field(
  number: number,
  json: string,
  type: ValueType,
  presence: Presence = 'omitempty',
): FieldSpec {
  return { number, json, type, presence, shape: 'single' };
}

/** A pointer field: present in JSON exactly when present on the wire. */
export function ptr(number: number, json: string, type: ValueType): FieldSpec {
  return field(number, json, type, 'pointer');
}

/** A non-pointer struct field: always written (Go's omitempty never drops structs). */
export function struct(number: number, json: string, spec: MessageSpec): FieldSpec {
  return field(number, json, msg(spec), 'always');
}

/** A repeated field (packed or not, for numbers). Empty lists are left out. */
export function list(number: number, json: string, type: ValueType): FieldSpec {
  return { number, json, type, presence: 'omitempty', shape: 'list' };
}

/** A map<string, V>, sent as repeated entries {key = 1, value = 2}. Empty maps are left out. */
export function map(number: number, json: string, value: ValueType): FieldSpec {
  return { number, json, type: value, presence: 'omitempty', shape: 'map' };
}

/** An embedded Go struct (`json:",inline"`), a nested message whose fields join the parent's. */
export function inline(number: number, spec: MessageSpec): FieldSpec {
  return { number, json: '', type: msg(spec), presence: 'always', shape: 'inline' };
}

/** A field that exists in the kube type but that this server does not decode. */
export function unsupported(number: number, json: string): FieldSpec {
  return { number, json, type: BYTES, presence: 'omitempty', shape: 'unsupported' };
}

/** A field whose content is dropped whatever it holds (as Go drops fields it does not know). */
export function ignored(number: number, json: string): FieldSpec {
  return { number, json, type: BYTES, presence: 'omitempty', shape: 'ignored' };
}

// ---- decoding ----

// Messages decoded by hand below; named here for error messages.
const TIMESTAMP_NAME = message('k8s.io.apimachinery.pkg.apis.meta.v1.Time', () => []);
const QUANTITY_SPEC = message('k8s.io.apimachinery.pkg.api.resource.Quantity', () => []);
const INT_OR_STRING_SPEC = message('k8s.io.apimachinery.pkg.util.intstr.IntOrString', () => []);
const MAP_ENTRY = message('map entry', () => []);

function join(path: string, name: string): string {
  return path === '' ? name : `${path}.${name}`;
}

function wireTypeOf(type: ValueType): number {
  switch (type.kind) {
    case 'bool':
    case 'int32':
    case 'int64':
      return WIRE_VARINT;
    case 'double':
      return WIRE_FIXED64;
    default:
      return WIRE_BYTES;
  }
}

const WIRE_NAMES: Record<number, string> = {
  [WIRE_VARINT]: 'varint',
  [WIRE_FIXED64]: '64-bit',
  [WIRE_BYTES]: 'length-delimited',
  [WIRE_FIXED32]: '32-bit',
};

function parse(buf: Buffer, path: string, spec: MessageSpec): WireField[] {
  try {
    return readFields(buf);
  } catch (err) {
    if (err instanceof WireError) throw new MalformedError(path, `${spec.name}: ${err.message}`);
    throw err;
  }
}

function toSafeNumber(value: bigint, path: string): number {
  if (value > BigInt(Number.MAX_SAFE_INTEGER) || value < BigInt(Number.MIN_SAFE_INTEGER)) {
    throw new MalformedError(path, `integer ${value} is beyond what JSON numbers can carry exactly`);
  }
  return Number(value);
}

/** Seconds and nanos of a google.protobuf.Timestamp-shaped message, or undefined for the zero time. */
function readTimestamp(buf: Buffer, path: string): { seconds: bigint; nanos: bigint } | undefined {
  if (buf.length === 0) return undefined;
  let seconds = 0n;
  let nanos = 0n;
  for (const f of parse(buf, path, TIMESTAMP_NAME)) {
    if (f.number === 1 && f.wireType === WIRE_VARINT) seconds = BigInt.asIntN(64, f.value);
    else if (f.number === 2 && f.wireType === WIRE_VARINT) nanos = BigInt.asIntN(32, f.value);
    else if (f.number === 1 || f.number === 2) throw new MalformedError(path, 'Timestamp: wrong wire type');
  }
  // Normalise like Go's time.Unix: nanos outside [0, 1e9) carry into the seconds.
  const total = seconds * 1_000_000_000n + nanos;
  let secs = total / 1_000_000_000n;
  let rem = total % 1_000_000_000n;
  if (rem < 0n) {
    rem += 1_000_000_000n;
    secs -= 1n;
  }
  // 0001-01-01T00:00:00Z is Go's zero time: it marshals to null.
  if (secs === -62_135_596_800n && rem === 0n) return undefined;
  return { seconds: secs, nanos: rem };
}

function formatTime(ts: { seconds: bigint; nanos: bigint }, micro: boolean, path: string): string {
  const millis = ts.seconds * 1000n;
  if (millis < -62_135_596_800_000n || millis > 253_402_300_799_000n) {
    throw new MalformedError(path, `time ${ts.seconds}s is outside the years 0001-9999 that RFC 3339 allows`);
  }
  const iso = new Date(Number(millis)).toISOString(); // yyyy-mm-ddThh:mm:ss.000Z
  const base = iso.slice(0, 19);
  if (!micro) return `${base}Z`;
  const micros = (ts.nanos / 1000n).toString().padStart(6, '0');
  return `${base}.${micros}Z`;
}

function decodeScalar(type: ValueType, f: WireField, path: string): unknown {
  switch (type.kind) {
    case 'string':
      chargeDecode(f.bytes.length + 2);
      return f.bytes.toString('utf8');
    case 'bytes':
      chargeDecode(Math.ceil(f.bytes.length / 3) * 4 + 2);
      return f.bytes.toString('base64');
    case 'bool':
      return f.value !== 0n;
    case 'int32':
      return Number(BigInt.asIntN(32, f.value));
    case 'int64':
      return toSafeNumber(BigInt.asIntN(64, f.value), path);
    case 'double': {
      const b = Buffer.alloc(8);
      b.writeBigUInt64LE(f.value);
      return b.readDoubleLE(0);
    }
    case 'time':
    case 'microTime': {
      const ts = readTimestamp(f.bytes, path);
      return ts === undefined ? undefined : formatTime(ts, type.kind === 'microTime', path);
    }
    case 'quantity':
      return decodeQuantity(f.bytes, path);
    case 'intOrString':
      return decodeIntOrString(f.bytes, path);
    case 'message':
      return decodeMessage(f.bytes, type.spec, path);
  }
}

/** resource.Quantity is `{string = 1}` on the wire and a plain string in JSON. */
function decodeQuantity(buf: Buffer, path: string): string {
  let value: string | undefined;
  for (const f of parse(buf, path, QUANTITY_SPEC)) {
    if (f.number !== 1) continue;
    if (f.wireType !== WIRE_BYTES) throw new MalformedError(path, 'Quantity: wrong wire type for field 1');
    value = f.bytes.toString('utf8');
  }
  // Go leaves a Quantity without its string at zero ("0"); an empty string fails ParseQuantity.
  if (value === undefined) return '0';
  if (value === '')
    throw new MalformedError(
      path,
      "unable to parse quantity's String field: quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'",
    );
  return value;
}

/** intstr.IntOrString is `{type = 1, intVal = 2, strVal = 3}`; JSON is the int or the string by type. */
function decodeIntOrString(buf: Buffer, path: string): number | string {
  let type = 0n;
  let intVal = 0;
  let strVal = '';
  for (const f of parse(buf, path, INT_OR_STRING_SPEC)) {
    const expected = f.number === 3 ? WIRE_BYTES : WIRE_VARINT;
    if (f.number >= 1 && f.number <= 3 && f.wireType !== expected) {
      throw new MalformedError(path, `IntOrString: wrong wire type for field ${f.number}`);
    }
    if (f.number === 1) type = BigInt.asIntN(64, f.value);
    else if (f.number === 2) intVal = Number(BigInt.asIntN(32, f.value));
    else if (f.number === 3) strVal = f.bytes.toString('utf8');
  }
  return type === 1n ? strVal : intVal;
}

function zeroOf(type: ValueType, path: string): unknown {
  switch (type.kind) {
    case 'string':
    case 'bytes':
      return '';
    case 'bool':
      return false;
    case 'int32':
    case 'int64':
    case 'double':
    case 'intOrString':
      return 0;
    case 'quantity':
      return '0';
    case 'time':
    case 'microTime':
      return undefined;
    case 'message':
      return decodeMessage(Buffer.alloc(0), type.spec, path);
  }
}

function isEmptyValue(value: unknown): boolean {
  return value === '' || value === 0 || value === false;
}

function checkWireType(f: WireField, type: ValueType, path: string, spec: MessageSpec, json: string): void {
  const expected = wireTypeOf(type);
  if (f.wireType !== expected) {
    throw new MalformedError(
      path,
      `${spec.name}: field ${f.number} (${json}) has wire type ${WIRE_NAMES[f.wireType] ?? f.wireType}, expected ${WIRE_NAMES[expected]}`,
    );
  }
}

function decodeList(fs: FieldSpec, occurrences: WireField[], path: string, spec: MessageSpec): unknown[] {
  const out: unknown[] = [];
  const numeric = wireTypeOf(fs.type) === WIRE_VARINT;
  for (const f of occurrences) {
    const at = `${path}[${out.length}]`;
    if (numeric && f.wireType === WIRE_BYTES) {
      // Packed: one length-delimited run of varints.
      let values: bigint[];
      try {
        values = readPackedVarints(f.bytes);
      } catch (err) {
        if (err instanceof WireError) throw new MalformedError(path, `${spec.name}: ${err.message}`);
        throw err;
      }
      for (const v of values) out.push(decodeScalar(fs.type, { ...f, wireType: WIRE_VARINT, value: v }, at));
      continue;
    }
    checkWireType(f, fs.type, at, spec, fs.json);
    const value = decodeScalar(fs.type, f, at);
    // A zero Time in a list marshals to null in Go.
    out.push(value === undefined ? null : value);
  }
  return out;
}

function decodeMap(
  fs: FieldSpec,
  occurrences: WireField[],
  path: string,
  spec: MessageSpec,
): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const entry of occurrences) {
    checkWireType(entry, msg(MAP_ENTRY), path, spec, fs.json);
    let key = '';
    let valueField: WireField | undefined;
    for (const f of parse(entry.bytes, path, MAP_ENTRY)) {
      if (f.number === 1) {
        if (f.wireType !== WIRE_BYTES)
          throw new MalformedError(path, `${spec.name}: ${fs.json} has a non-string key`);
        key = f.bytes.toString('utf8');
      } else if (f.number === 2) {
        valueField = f;
      }
    }
    const at = `${path}[${key}]`;
    let value: unknown;
    if (valueField === undefined) {
      value = zeroOf(fs.type, at);
    } else {
      checkWireType(valueField, fs.type, at, spec, fs.json);
      value = decodeScalar(fs.type, valueField, at);
    }
    Object.defineProperty(out, key, {
      value: value ?? null,
      enumerable: true,
      writable: true,
      configurable: true,
    });
  }
  return out;
}

function describeUnknown(spec: MessageSpec, number: number, fs: FieldSpec | undefined, path: string): string {
  if (fs) return `field "${join(path, fs.json)}"`;
  return `field number ${number} of ${spec.name}${path ? ` (at "${path}")` : ''}`;
}

/** Decodes one message into a JSON object following its table. */
export function decodeMessage(buf: Buffer, spec: MessageSpec, path: string): Record<string, unknown> {
  const byNumber = new Map<number, WireField[]>();
  for (const f of parse(buf, path, spec)) {
    const list = byNumber.get(f.number);
    if (list) list.push(f);
    else byNumber.set(f.number, [f]);
  }
  const table = spec.fields();
  for (const [number, occurrences] of byNumber) {
    const fs = table.get(number);
    if (fs && fs.shape !== 'unsupported') continue;
    if (occurrences.every(isZeroField)) continue;
    const where = describeUnknown(spec, number, fs, path);
    throw new UnsupportedFieldError(join(path, fs?.json ?? `#${number}`), where);
  }
  const out: Record<string, unknown> = {};
  for (const fs of table.values()) {
    if (fs.shape === 'unsupported' || fs.shape === 'ignored') continue;
    const occurrences = byNumber.get(fs.number) ?? [];
    // The key and its punctuation, for what is written even when absent from the wire.
    if (occurrences.length > 0 || fs.presence === 'always') chargeDecode(fs.json.length + 4);
    const at = fs.shape === 'inline' ? path : join(path, fs.json);
    switch (fs.shape) {
      case 'list': {
        const values = decodeList(fs, occurrences, at, spec);
        if (values.length > 0) out[fs.json] = values;
        break;
      }
      case 'map': {
        const entries = decodeMap(fs, occurrences, at, spec);
        if (Object.keys(entries).length > 0) out[fs.json] = entries;
        break;
      }
      case 'inline':
      case 'single': {
        let value: unknown;
        if (occurrences.length === 0) {
          if (fs.presence !== 'always') break;
          value = zeroOf(fs.type, at);
        } else {
          for (const f of occurrences) checkWireType(f, fs.type, at, spec, fs.json || '(inline)');
          // Repeated occurrences of a message merge, which is what decoding their concatenation does;
          // for scalars the last one wins.
          const last =
            fs.type.kind === 'message' && occurrences.length > 1
              ? { ...occurrences[0]!, bytes: Buffer.concat(occurrences.map((o) => o.bytes)) }
              : occurrences[occurrences.length - 1]!;
          value = decodeScalar(fs.type, last, at);
          if (fs.presence === 'omitempty' && isEmptyValue(value)) break;
        }
        if (value === undefined) break;
        if (fs.shape === 'inline') Object.assign(out, value as Record<string, unknown>);
        else out[fs.json] = value;
        break;
      }
    }
  }
  return out;
}
