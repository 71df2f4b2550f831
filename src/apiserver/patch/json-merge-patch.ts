// JSON merge patch (RFC 7386): objects merge member by member, null deletes a member, anything else
// (arrays, scalars) replaces the target wholesale. Neither input is modified.

import { cloneJson, hasKey, isJsonObject, type JsonObject, type JsonValue, setKey } from './json-value.ts';

/**
 * A patch value placed where nothing is merged into it. Nulls inside objects are dropped, as merging
 * into an empty object would; the API server's merge patch also drops them inside objects held in
 * arrays, so this recurses through arrays too (array elements that are null stay).
 */
function withoutNullMembers(value: JsonValue): JsonValue {
  if (Array.isArray(value)) return value.map((item) => (item === null ? null : withoutNullMembers(item)));
  if (isJsonObject(value)) {
    const result: JsonObject = {};
    for (const [key, item] of Object.entries(value)) {
      if (item !== null) setKey(result, key, withoutNullMembers(item));
    }
    return result;
  }
  return value;
}

export function applyMergePatch(target: JsonValue | undefined, patch: JsonValue): JsonValue {
  if (!isJsonObject(patch)) return withoutNullMembers(patch);
  const result: JsonObject = isJsonObject(target) ? cloneJson(target) : {};
  for (const [key, value] of Object.entries(patch)) {
    if (value === null) {
      delete result[key];
    } else {
      setKey(result, key, applyMergePatch(hasKey(result, key) ? result[key] : undefined, value));
    }
  }
  return result;
}
