// Decodes a PATCH request body into a JSON value. Bodies that are not JSON are the client's mistake:
// 400 BadRequest, worded like Go's encoding/json so messages read the same as a real API server's.

import { badRequest } from '../errors.ts';
import { assertJsonDepth } from '../json-depth.ts';
import type { JsonValue } from './json-value.ts';

/** The syntax problem in Go's words where V8 gives enough detail, else V8's own description. */
function describeSyntaxError(text: string, error: SyntaxError): string {
  if (/end of JSON input|Unterminated/.test(error.message)) return 'unexpected end of JSON input';
  const token = /^Unexpected token '(.+?)'/.exec(error.message);
  if (token) return `invalid character '${token[1]}'`;
  const at = /^(.*?) in JSON at position (\d+)/.exec(error.message);
  if (at) {
    const offset = Number(at[2]);
    if (offset >= text.length) return 'unexpected end of JSON input';
    const reason = at[1]!.charAt(0).toLowerCase() + at[1]!.slice(1);
    return `invalid character '${text.charAt(offset)}' at offset ${offset}: ${reason}`;
  }
  const after = /after JSON at position (\d+)/.exec(error.message);
  if (after) return `invalid character '${text.charAt(Number(after[1]))}' after top-level value`;
  return error.message;
}

/**
 * Parses the body as JSON. `prefix` is put in front of the detail, e.g. "error decoding patch: ",
 * the way the API server words it for the patch type at hand.
 */
export function parsePatchBody(body: Buffer | string, prefix: string): JsonValue {
  const text = typeof body === 'string' ? body : body.toString('utf8');
  let value: JsonValue;
  try {
    value = JSON.parse(text) as JsonValue;
  } catch (error) {
    if (error instanceof SyntaxError) throw badRequest(`${prefix}${describeSyntaxError(text, error)}`);
    throw error;
  }
  assertJsonDepth(value, `${prefix}the patch`);
  return value;
}
