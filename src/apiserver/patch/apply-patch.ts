// The one entry the PATCH handler calls: picks the patch format from the Content-Type and applies the
// body to the stored object. Formats and errors follow kube-apiserver's patch handler.
//
// Server-side apply (application/apply-patch+yaml) is not implemented: it is answered with 415 like
// any other unsupported type, and the 415 message lists only the formats this server applies.

import { ApiError, badRequest } from '../errors.ts';
import type { KubeObject } from '../storage/types.ts';
import { builtinPatchMeta } from './builtin-patch-meta.ts';
import { applyMergePatch } from './json-merge-patch.ts';
import { applyJsonPatch } from './json-patch.ts';
import { isJsonObject, type JsonObject, type JsonValue, jsonTypeName } from './json-value.ts';
import { parsePatchBody } from './parse-patch-body.ts';
import { unsupportedPatchMediaType } from './patch-errors.ts';
import { applyStrategicMergePatch } from './strategic-merge-patch.ts';

export const JSON_PATCH = 'application/json-patch+json';
export const MERGE_PATCH = 'application/merge-patch+json';
export const STRATEGIC_MERGE_PATCH = 'application/strategic-merge-patch+json';
export const APPLY_PATCH = 'application/apply-patch+yaml';

export interface ApplyPatchOptions {
  /** Built-in kinds accept strategic merge patch; custom resources do not (415). */
  builtin: boolean;
}

/** The patch media types accepted for a resource, in the order the real server lists them. */
export function supportedPatchTypes(builtin: boolean): string[] {
  return builtin ? [JSON_PATCH, MERGE_PATCH, STRATEGIC_MERGE_PATCH] : [JSON_PATCH, MERGE_PATCH];
}

/** "application/merge-patch+json; charset=utf-8" → "application/merge-patch+json". */
export function patchMediaType(contentType: string | undefined): string {
  return (contentType ?? '').split(';')[0]!.trim().toLowerCase();
}

/** A merge patch body must be a JSON object (what the server decodes it into). */
function mergePatchDocument(patch: JsonValue): JsonObject {
  if (isJsonObject(patch)) return patch;
  throw badRequest(
    `error decoding patch: json: cannot unmarshal ${jsonTypeName(patch)} into Go value of type map[string]interface {}`,
  );
}

/** The patched result must still be an object; anything else cannot be decoded as the kind (422). */
function patchedObject(result: JsonValue, current: JsonObject, kind: string): KubeObject {
  if (isJsonObject(result)) return result;
  const name =
    isJsonObject(current.metadata) && typeof current.metadata.name === 'string' ? current.metadata.name : '';
  const detail = `Invalid value: ${JSON.stringify(JSON.stringify(result))}: the patched document must be a JSON object, not ${jsonTypeName(result)}`;
  throw new ApiError(422, 'Invalid', `${kind} "${name}" is invalid: patch: ${detail}`, {
    name,
    kind,
    causes: [{ type: 'FieldValueInvalid', message: detail, field: 'patch' }],
  });
}

/**
 * Applies `patchBody` to `current` according to `contentType`. Returns a new object; `current` is not
 * modified. Throws ApiError: 415 for unsupported types (including strategic merge patch on custom
 * resources), 400 for bodies that do not decode, 422 for patches that do not apply.
 */
export function applyPatch(
  contentType: string,
  current: object,
  patchBody: Buffer | string,
  kind: string,
  opts: ApplyPatchOptions,
): KubeObject {
  const type = patchMediaType(contentType);
  const accepted = supportedPatchTypes(opts.builtin);
  if (!accepted.includes(type)) throw unsupportedPatchMediaType(accepted);
  const stored = current as JsonObject;
  switch (type) {
    case JSON_PATCH:
      return patchedObject(
        applyJsonPatch(stored, parsePatchBody(patchBody, 'error decoding patch: ')),
        stored,
        kind,
      );
    case MERGE_PATCH: {
      const patch = mergePatchDocument(parsePatchBody(patchBody, 'error decoding patch: '));
      return patchedObject(applyMergePatch(stored, patch), stored, kind);
    }
    default:
      return applyStrategicMergePatch(stored, parsePatchBody(patchBody, ''), builtinPatchMeta(kind));
  }
}
