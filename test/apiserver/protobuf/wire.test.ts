import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  isZeroField,
  readFields,
  readPackedVarints,
  readVarint,
  WIRE_BYTES,
  WIRE_FIXED32,
  WIRE_FIXED64,
  WIRE_VARINT,
  WireError,
} from '../../../src/apiserver/protobuf/wire.ts';
import { bytes, fixed32, fixed64, int, msg, packed, str, varint } from './pb-writer.ts';

test('varints: one byte, several bytes, the 64-bit maximum and negative numbers in two’s complement', () => {
  assert.deepEqual(readVarint(Buffer.from([0x00]), 0), { value: 0n, next: 1 });
  assert.deepEqual(readVarint(Buffer.from([0x96, 0x01]), 0), { value: 150n, next: 2 });
  const max = Buffer.from([0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01]);
  assert.deepEqual(readVarint(max, 0), { value: 2n ** 64n - 1n, next: 10 });
  assert.equal(BigInt.asIntN(64, readVarint(varint(-1), 0).value), -1n);
  assert.equal(readVarint(Buffer.from([0x00, 0xac, 0x02]), 1).value, 300n);
});

test('varints that are cut short or run past 64 bits are malformed', () => {
  assert.throws(() => readVarint(Buffer.from([0x80]), 0), WireError);
  assert.throws(() => readVarint(Buffer.alloc(0), 0), WireError);
  const tooLong = Buffer.from([0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x02]);
  assert.throws(() => readVarint(tooLong, 0), /overflows 64 bits/);
  const eleven = Buffer.from([0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x00]);
  assert.throws(() => readVarint(eleven, 0), WireError);
});

test('fields of every wire type are read in order, with their numbers and payloads', () => {
  const buf = Buffer.concat([
    int(1, 150),
    str(2, 'héllo'),
    fixed64(3, 0x0102030405060708n),
    fixed32(4, 0xdeadbeef),
    int(536870911, 1),
  ]);
  const fields = readFields(buf);
  assert.deepEqual(
    fields.map((f) => [f.number, f.wireType]),
    [
      [1, WIRE_VARINT],
      [2, WIRE_BYTES],
      [3, WIRE_FIXED64],
      [4, WIRE_FIXED32],
      [536870911, WIRE_VARINT],
    ],
  );
  assert.equal(fields[0]!.value, 150n);
  assert.equal(fields[1]!.bytes.toString('utf8'), 'héllo');
  assert.equal(fields[2]!.value, 0x0102030405060708n);
  assert.equal(fields[3]!.value, 0xdeadbeefn);
});

test('nested messages are length-delimited payloads that parse as messages again', () => {
  const [outer] = readFields(msg(7, str(1, 'a'), int(2, 3)));
  assert.equal(outer!.number, 7);
  const inner = readFields(outer!.bytes);
  assert.equal(inner[0]!.bytes.toString(), 'a');
  assert.equal(inner[1]!.value, 3n);
});

test('truncated payloads, field number 0 and group wire types are malformed', () => {
  const truncated = bytes(1, Buffer.from('abcdef')).subarray(0, 5);
  assert.throws(() => readFields(truncated), /past the end/);
  assert.throws(() => readFields(fixed64(1, 1n).subarray(0, 6)), /64-bit/);
  assert.throws(() => readFields(fixed32(1, 1).subarray(0, 3)), /32-bit/);
  assert.throws(() => readFields(Buffer.from([0x00, 0x01])), /field number 0/);
  assert.throws(() => readFields(Buffer.from([0x0b])), /wire type 3/);
  assert.throws(() => readFields(Buffer.from([0x0c])), /wire type 4/);
  // A length that does not fit in the remaining data, however large.
  assert.throws(() => readFields(Buffer.concat([Buffer.from([0x0a]), varint(2n ** 40n)])), /past the end/);
});

test('packed varints decode to their values', () => {
  const [f] = readFields(packed(4, [1, 300, 0, -2]));
  assert.equal(f!.wireType, WIRE_BYTES);
  assert.deepEqual(readPackedVarints(f!.bytes), [1n, 300n, 0n, 2n ** 64n - 2n]);
  assert.throws(() => readPackedVarints(Buffer.from([0x80])), WireError);
});

test('zero fields: zero numbers, empty payloads and messages of nothing but zero fields', () => {
  const zero = (b: Buffer) => isZeroField(readFields(b)[0]!);
  assert.equal(zero(int(1, 0)), true);
  assert.equal(zero(int(1, 1)), false);
  assert.equal(zero(str(1, '')), true);
  assert.equal(zero(str(1, 'x')), false);
  assert.equal(zero(msg(1, str(1, ''), int(2, 0), msg(3, str(1, '')))), true);
  assert.equal(zero(msg(1, str(1, ''), msg(3, str(1, 'set')))), false);
  assert.equal(zero(fixed64(1, 0n)), true);
  assert.equal(zero(fixed32(1, 7)), false);
});
