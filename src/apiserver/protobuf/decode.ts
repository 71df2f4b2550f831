// Decodes Kubernetes protobuf request bodies (Content-Type: application/vnd.kubernetes.protobuf)
// into the JSON objects the same request would carry as application/json.
//
// The body is the 4-byte magic `k8s\0` and a runtime.Unknown envelope:
//   typeMeta (1) {apiVersion (1), kind (2)}, raw (2): the typed message,
//   contentEncoding (3), contentType (4).
// The typed message is decoded by the field table its apiVersion and kind have in the table the caller
// gives (each built-in kind names its messages: src/apiserver/kinds/).

import { ApiError, badRequest } from '../errors.ts';
import { MAX_BODY_BYTES } from '../request-limits.ts';
import { DecodeBudgetExceeded, withDecodeBudget } from './decode-budget.ts';
import { decodeMessage, MalformedError, type MessageSpec, UnsupportedFieldError } from './message.ts';
import { DeleteOptions } from './meta-v1.ts';
import { readFields, WIRE_BYTES, WireError } from './wire.ts';

export const KUBERNETES_PROTOBUF_MEDIA_TYPE = 'application/vnd.kubernetes.protobuf';

/** The prefix of every Kubernetes protobuf body: "k8s" and a zero byte. */
const MAGIC = Buffer.from([0x6b, 0x38, 0x73, 0x00]);

/** Kinds registered in every group version (metav1.AddToGroupVersion), decoded whatever the apiVersion. */
const ANY_VERSION_DECODERS = new Map<string, MessageSpec>([['DeleteOptions', DeleteOptions]]);

/** Message specs by `<apiVersion>/<Kind>`. */
export type ProtobufMessages = ReadonlyMap<string, MessageSpec>;

/** The apiVersion/kind pairs with a decoder; DeleteOptions is accepted with any apiVersion. */
export function protobufKinds(messages: ProtobufMessages): Array<{ apiVersion: string; kind: string }> {
  const kinds = [...messages.keys()].map((key) => {
    const cut = key.lastIndexOf('/');
    return { apiVersion: key.slice(0, cut), kind: key.slice(cut + 1) };
  });
  for (const kind of ANY_VERSION_DECODERS.keys()) kinds.push({ apiVersion: '*', kind });
  return kinds;
}

interface Envelope {
  apiVersion: string;
  kind: string;
  raw: Buffer;
  contentEncoding: string;
}

function malformed(detail: string): ApiError {
  return badRequest(`unable to decode the protobuf request body: ${detail}`);
}

function readEnvelope(body: Buffer): Envelope {
  const envelope: Envelope = { apiVersion: '', kind: '', raw: Buffer.alloc(0), contentEncoding: '' };
  try {
    for (const f of readFields(body.subarray(MAGIC.length))) {
      if (f.number < 1 || f.number > 4) continue;
      if (f.wireType !== WIRE_BYTES)
        throw new WireError(`runtime.Unknown field ${f.number} has the wrong wire type`);
      if (f.number === 1) {
        for (const t of readFields(f.bytes)) {
          if (t.number !== 1 && t.number !== 2) continue;
          if (t.wireType !== WIRE_BYTES)
            throw new WireError(`runtime.TypeMeta field ${t.number} has the wrong wire type`);
          if (t.number === 1) envelope.apiVersion = t.bytes.toString('utf8');
          else envelope.kind = t.bytes.toString('utf8');
        }
      } else if (f.number === 2) {
        envelope.raw = f.bytes;
      } else if (f.number === 3) {
        envelope.contentEncoding = f.bytes.toString('utf8');
      }
    }
  } catch (err) {
    if (err instanceof WireError) throw malformed(err.message);
    throw err;
  }
  return envelope;
}

function useJson(what: string): ApiError {
  return new ApiError(
    415,
    'UnsupportedMediaType',
    `${what}; send the object as JSON instead (Content-Type: application/json)`,
  );
}

/**
 * Decodes a Kubernetes protobuf request body into the equivalent JSON object (apiVersion and kind
 * from the envelope, then the fields as kube's JSON encoding writes them). Throws ApiError 400
 * BadRequest for a body that is not well-formed, and 415 UnsupportedMediaType for a kind, or a field
 * holding a value, that this server cannot decode.
 */
export function decodeProtobufObject(
  body: Buffer,
  messages: ProtobufMessages,
  maxDecodedBytes = 2 * MAX_BODY_BYTES,
): Record<string, unknown> {
  try {
    return withDecodeBudget(maxDecodedBytes, () => decodeUnbounded(body, messages));
  } catch (err) {
    if (!(err instanceof DecodeBudgetExceeded)) throw err;
    throw new ApiError(
      413,
      'RequestEntityTooLarge',
      `the protobuf body decodes to more than ${err.limit} bytes (twice the request body limit)`,
    );
  }
}

function decodeUnbounded(body: Buffer, messages: ProtobufMessages): Record<string, unknown> {
  if (body.length < MAGIC.length || !body.subarray(0, MAGIC.length).equals(MAGIC)) {
    throw badRequest(
      `provided data does not appear to be a protobuf message, expected prefix [${[...MAGIC].join(' ')}]`,
    );
  }
  const envelope = readEnvelope(body);
  if (envelope.kind === '') throw badRequest("Object 'Kind' is missing in the protobuf request body");
  if (envelope.apiVersion === '')
    throw badRequest("Object 'apiVersion' is missing in the protobuf request body");
  if (envelope.contentEncoding !== '') {
    throw useJson(
      `this server cannot decode protobuf bodies with content encoding "${envelope.contentEncoding}"`,
    );
  }
  const spec =
    messages.get(`${envelope.apiVersion}/${envelope.kind}`) ?? ANY_VERSION_DECODERS.get(envelope.kind);
  if (!spec) {
    throw useJson(
      `this server cannot decode protobuf bodies of kind "${envelope.kind}" (apiVersion "${envelope.apiVersion}")`,
    );
  }
  let fields: Record<string, unknown>;
  try {
    fields = decodeMessage(envelope.raw, spec, '');
  } catch (err) {
    if (err instanceof UnsupportedFieldError) {
      throw useJson(`this server cannot decode ${err.message} in a protobuf ${envelope.kind} body`);
    }
    if (err instanceof MalformedError) {
      throw malformed(err.path === '' ? err.message : `${err.message} (at ${err.path})`);
    }
    throw err;
  }
  return { kind: envelope.kind, apiVersion: envelope.apiVersion, ...fields };
}
