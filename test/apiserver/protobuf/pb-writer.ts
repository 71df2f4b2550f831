// A tiny protobuf writer for building test fixtures by hand: each helper returns the bytes of one
// field (tag and payload), and a message is the concatenation of its fields.

export function varint(value: bigint | number): Buffer {
  let v = BigInt.asUintN(64, BigInt(value));
  const out: number[] = [];
  while (v >= 0x80n) {
    out.push(Number(v & 0x7fn) | 0x80);
    v >>= 7n;
  }
  out.push(Number(v));
  return Buffer.from(out);
}

function tag(number: number, wireType: number): Buffer {
  return varint((BigInt(number) << 3n) | BigInt(wireType));
}

/** A varint field (int32, int64, bool, enum); negative numbers take ten bytes, as in Go. */
export function int(number: number, value: bigint | number | boolean): Buffer {
  const v = typeof value === 'boolean' ? (value ? 1 : 0) : value;
  return Buffer.concat([tag(number, 0), varint(v)]);
}

export function bytes(number: number, payload: Buffer): Buffer {
  return Buffer.concat([tag(number, 2), varint(payload.length), payload]);
}

export function str(number: number, value: string): Buffer {
  return bytes(number, Buffer.from(value, 'utf8'));
}

/** A nested message field made of the given fields. */
export function msg(number: number, ...fields: Buffer[]): Buffer {
  return bytes(number, Buffer.concat(fields));
}

export function fixed64(number: number, value: bigint): Buffer {
  const b = Buffer.alloc(8);
  b.writeBigUInt64LE(value);
  return Buffer.concat([tag(number, 1), b]);
}

export function fixed32(number: number, value: number): Buffer {
  const b = Buffer.alloc(4);
  b.writeUInt32LE(value);
  return Buffer.concat([tag(number, 5), b]);
}

/** A packed repeated varint field. */
export function packed(number: number, values: Array<bigint | number>): Buffer {
  return bytes(number, Buffer.concat(values.map((v) => varint(v))));
}

/** One map entry {key = 1, value = 2}; `value` is the already encoded value field (number 2). */
export function entry(number: number, key: string, value: Buffer): Buffer {
  return msg(number, str(1, key), value);
}

/** map<string, string> entries. */
export function stringMap(number: number, values: Record<string, string>): Buffer {
  return Buffer.concat(Object.entries(values).map(([k, v]) => entry(number, k, str(2, v))));
}

/** A metav1.Time / MicroTime message. */
export function time(number: number, seconds: number, nanos = 0): Buffer {
  return msg(number, int(1, seconds), int(2, nanos));
}

/** The full body: `k8s\0` and a runtime.Unknown carrying the typed message. */
export function kubeProtobuf(apiVersion: string, kind: string, raw: Buffer, extra: Buffer[] = []): Buffer {
  return Buffer.concat([
    Buffer.from([0x6b, 0x38, 0x73, 0x00]),
    msg(1, str(1, apiVersion), str(2, kind)),
    bytes(2, raw),
    str(3, ''),
    str(4, ''),
    ...extra,
  ]);
}
