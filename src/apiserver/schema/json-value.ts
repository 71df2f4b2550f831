// Helpers over decoded JSON values (what JSON.parse returns), with JSON's notion of equality.

import { jsonEqual } from '../../util/json-equal.ts';
import { isPlainObject } from '../../util/plain-object.ts';

export type JsonObject = Record<string, unknown>;

export function isJsonObject(value: unknown): value is JsonObject {
  return isPlainObject(value);
}

/** The JSON type of a value; integral numbers are 'integer' the way Go decodes them into int64. */
export type JsonType = 'null' | 'boolean' | 'integer' | 'number' | 'string' | 'array' | 'object';

export function jsonTypeOf(value: unknown): JsonType {
  if (value === null || value === undefined) return 'null';
  if (Array.isArray(value)) return 'array';
  switch (typeof value) {
    case 'boolean':
      return 'boolean';
    case 'number':
      return Number.isInteger(value) ? 'integer' : 'number';
    case 'string':
      return 'string';
    default:
      return 'object';
  }
}

export { jsonEqual };

export function jsonClone<T>(value: T): T {
  return value === undefined ? value : structuredClone(value);
}
