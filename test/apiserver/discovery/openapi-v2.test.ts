import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  acceptsOpenApiV2Protobuf,
  openApiV2Json,
  openApiV2Protobuf,
} from '../../../src/apiserver/discovery/openapi-v2.ts';

/** Reads length-delimited protobuf fields (the only wire type the document uses). */
function readFields(buffer: Buffer): [number, Buffer][] {
  const out: [number, Buffer][] = [];
  let offset = 0;
  const varint = (): number => {
    let value = 0;
    let shift = 0;
    for (;;) {
      const byte = buffer[offset++]!;
      value |= (byte & 0x7f) << shift;
      if (byte < 0x80) return value;
      shift += 7;
    }
  };
  while (offset < buffer.length) {
    const key = varint();
    assert.equal(key & 7, 2, 'length-delimited');
    const length = varint();
    out.push([key >>> 3, buffer.subarray(offset, offset + length)]);
    offset += length;
  }
  return out;
}

test('the protobuf v2 document decodes to swagger 2.0, its info and empty paths', () => {
  const fields = readFields(openApiV2Protobuf());
  assert.deepEqual(
    fields.map(([n]) => n),
    [1, 2, 8],
  );
  assert.equal(fields[0]![1].toString(), '2.0');
  const info = readFields(fields[1]![1]);
  assert.deepEqual(
    info.map(([n, b]) => [n, b.toString()]),
    [
      [1, 'Kubernetes'],
      [2, 'v1.32.0'],
    ],
  );
  assert.equal(fields[2]![1].length, 0);
});

test('the JSON form says the same, and client-go Accept selects protobuf', () => {
  assert.deepEqual(openApiV2Json(), {
    swagger: '2.0',
    info: { title: 'Kubernetes', version: 'v1.32.0' },
    paths: {},
    definitions: {},
  });
  assert.equal(acceptsOpenApiV2Protobuf('application/com.github.proto-openapi.spec.v2@v1.0+protobuf'), true);
  assert.equal(acceptsOpenApiV2Protobuf('application/json'), false);
  assert.equal(acceptsOpenApiV2Protobuf(undefined), false);
});
