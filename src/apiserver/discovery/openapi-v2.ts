// /openapi/v2: a deliberately empty Swagger 2.0 document (no paths, no definitions).
//
// kubectl 1.27+ works from /openapi/v3 and only asks for v2 while computing an apply patch, where it
// tolerates anything. Older kubectl (Debian bookworm ships 1.20) knows nothing but v2: with a 404
// every `apply`/`create` fails validation unless run with --validate=false; with this empty
// document it finds no schema for the kind, skips client-side validation and lets the server judge.
// `kubectl explain` in those versions still needs real v2 schemas and reports the kind as unknown.
//
// client-go asks for the gnostic protobuf encoding and parses the answer as protobuf whatever its
// Content-Type, which must be a MIME type Go can parse (the "@" in the requested type is not), so
// it is served as application/octet-stream. Plain JSON is offered for other clients.

import { KUBE_MAJOR, KUBE_MINOR, KUBE_PATCH } from './version-info.ts';

export const OPENAPI_V2_PROTOBUF_CONTENT_TYPE = 'application/octet-stream';

const TITLE = 'Kubernetes';
const VERSION = `v${KUBE_MAJOR}.${KUBE_MINOR}.${KUBE_PATCH}`;

function varint(value: number): Buffer {
  const bytes: number[] = [];
  let rest = value;
  while (rest > 0x7f) {
    bytes.push((rest & 0x7f) | 0x80);
    rest >>>= 7;
  }
  bytes.push(rest);
  return Buffer.from(bytes);
}

/** A length-delimited protobuf field (wire type 2): strings and embedded messages. */
function field(number: number, payload: Buffer | string): Buffer {
  const bytes = typeof payload === 'string' ? Buffer.from(payload, 'utf8') : payload;
  return Buffer.concat([varint((number << 3) | 2), varint(bytes.length), bytes]);
}

/**
 * gnostic openapi_v2.Document { swagger = 1; info = 2 (Info { title = 1; version = 2 }); paths = 8 }.
 */
export function openApiV2Protobuf(): Buffer {
  return Buffer.concat([
    field(1, '2.0'),
    field(2, Buffer.concat([field(1, TITLE), field(2, VERSION)])),
    field(8, Buffer.alloc(0)),
  ]);
}

export function openApiV2Json() {
  return { swagger: '2.0', info: { title: TITLE, version: VERSION }, paths: {}, definitions: {} };
}

/** Whether a request for /openapi/v2 wants the protobuf encoding (client-go always does). */
export function acceptsOpenApiV2Protobuf(accept: string | undefined): boolean {
  return accept?.includes('application/com.github.proto-openapi.spec.v2') === true;
}
