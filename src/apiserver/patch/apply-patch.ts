// The one entry the PATCH handler calls: picks the patch format from the Content-Type and applies the
// body to the stored object. Formats and errors follow kube-apiserver's patch handler.
//
// Server-side apply (application/apply-patch+yaml) needs field ownership, so the object service does
// it (ObjectService.apply); this file only decodes its body.

import { parseBoundedYaml } from '../../util/bounded-yaml.ts';
import { ApiError, badRequest } from '../errors.ts';
import { MAX_BODY_BYTES } from '../request-limits.ts';
import type { KubeObject } from '../storage/types.ts';
import { builtinPatchMeta, type PatchMeta } from './builtin-patch-meta.ts';
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
  /** The kind's strategic-merge metadata; the table's entry for `kind` when not given. */
  patchMeta?: PatchMeta | undefined;
}

/** The patch media types accepted for a resource, in the order the real server lists them. */
export function supportedPatchTypes(builtin: boolean): string[] {
  return builtin
    ? [JSON_PATCH, MERGE_PATCH, STRATEGIC_MERGE_PATCH, APPLY_PATCH]
    : [JSON_PATCH, MERGE_PATCH, APPLY_PATCH];
}

/** Decodes a server-side apply body (YAML, of which JSON is a part) into the applied configuration. */
export function decodeApplyPatch(body: Buffer | string): KubeObject {
  const text = typeof body === 'string' ? body : body.toString('utf8');
  let value: unknown;
  try {
    value = parseBoundedYaml(text, MAX_BODY_BYTES);
  } catch (error) {
    throw badRequest(`error converting YAML to JSON: yaml: ${(error as Error).message.split('\n')[0]}`);
  }
  if (value === null || value === undefined) return {};
  if (!isJsonObject(value as JsonValue)) {
    throw badRequest(
      `error decoding YAML: json: cannot unmarshal ${jsonTypeName(value as JsonValue)} into Go value of type map[string]interface {}`,
    );
  }
  return value as KubeObject;
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
    case APPLY_PATCH:
      throw new Error('server-side apply is done by ObjectService.apply, not as a patch');
    default:
      return applyStrategicMergePatch(
        stored,
        parsePatchBody(patchBody, ''),
        opts.patchMeta ?? builtinPatchMeta(kind),
      );
  }
}
