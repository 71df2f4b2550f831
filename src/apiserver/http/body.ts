// Reading and decoding request bodies with the limits and errors of a real API server.

import type { IncomingMessage } from 'node:http';
import { parseBoundedYaml } from '../../util/bounded-yaml.ts';
import { BodyTooLargeError, readLimitedBody } from '../../util/request-body.ts';
import { ApiError, badRequest } from '../errors.ts';
import { assertJsonDepth } from '../json-depth.ts';
import { BUILTIN_PROTOBUF_MESSAGES } from '../kinds/registration.ts';
import { decodeProtobufObject } from '../protobuf/decode.ts';
import { MAX_BODY_BYTES } from '../request-limits.ts';

export async function readBody(req: IncomingMessage, limit = MAX_BODY_BYTES): Promise<Buffer> {
  try {
    return await readLimitedBody(req, limit);
  } catch (error) {
    if (error instanceof BodyTooLargeError)
      throw new ApiError(413, 'RequestEntityTooLarge', `Request entity too large: limit is ${limit}`);
    throw error;
  }
}

export function mediaType(contentType: string | undefined): string {
  return (contentType ?? '').split(';')[0]!.trim().toLowerCase();
}

/** Decodes a create/update body: JSON, or YAML when the client says so (kube accepts both). */
export function decodeObject(body: Buffer, contentType: string | undefined): Record<string, any> {
  const type = mediaType(contentType);
  if (type === 'application/vnd.kubernetes.protobuf') {
    // kubectl's generators (create configmap, secret, namespace, ...) send typed objects as protobuf.
    if (body.length === 0) throw badRequest('the body of the request was empty');
    return decodeProtobufObject(body, BUILTIN_PROTOBUF_MESSAGES) as Record<string, any>;
  }
  const text = body.toString('utf8');
  if (text.trim() === '') throw badRequest('the body of the request was empty');
  let value: unknown;
  if (type === 'application/yaml' || type === 'application/x-yaml' || type === 'text/yaml') {
    try {
      value = parseBoundedYaml(text, MAX_BODY_BYTES);
    } catch (err) {
      // A RangeError is the parser's own stack running out on deep nesting: still the body's fault.
      throw badRequest(`error decoding YAML: ${(err as Error).message.split('\n')[0]}`);
    }
  } else if (type === '' || type === 'application/json' || type === '*/*') {
    try {
      value = JSON.parse(text);
    } catch (err) {
      throw badRequest(`couldn't get version/kind; json parse error: ${(err as Error).message}`);
    }
  } else {
    throw new ApiError(
      415,
      'UnsupportedMediaType',
      `the body of the request was in an unknown format - accepted media types include: application/json, application/yaml, application/vnd.kubernetes.protobuf`,
    );
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw badRequest('the body of the request was not a JSON object');
  }
  assertJsonDepth(value, 'the body of the request');
  return value as Record<string, any>;
}
