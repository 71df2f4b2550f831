// Plain JSON values as the patch functions see them, and the few operations every patch format needs.
// Keys come from request bodies, so objects are written with own-property semantics: a member named
// "__proto__" stays an ordinary key instead of replacing the prototype.

import { jsonEqual } from '../../util/json-equal.ts';
import { isPlainObject } from '../../util/plain-object.ts';
export type JsonValue = null | boolean | number | string | JsonValue[] | JsonObject;
export type JsonObject = { [key: string]: JsonValue };

export function isJsonObject(value: unknown): value is JsonObject {
  return isPlainObject(value);
}

export function hasKey(object: JsonObject, key: string): boolean {
  return Object.hasOwn(object, key);
}

/** Sets a member without ever touching the prototype chain. */
export function setKey(object: JsonObject, key: string, value: JsonValue): void {
  if (key === '__proto__') {
    Object.defineProperty(object, key, { value, enumerable: true, writable: true, configurable: true });
  } else {
    object[key] = value;
  }
}

export function cloneJson<T extends JsonValue>(value: T): T {
  if (Array.isArray(value)) return value.map((item) => cloneJson(item)) as T;
  if (isJsonObject(value)) {
    const copy: JsonObject = {};
    for (const [key, item] of Object.entries(value)) setKey(copy, key, cloneJson(item));
    return copy as T;
  }
  return value;
}

export { jsonEqual };

/** The JSON type name Go's encoding/json uses in its errors ("cannot unmarshal array into ..."). */
export function jsonTypeName(value: JsonValue): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  if (typeof value === 'boolean') return 'bool';
  return typeof value === 'object' ? 'object' : typeof value;
}
