// x-kubernetes-list-type invariants (apiextensions schema/listtype): items of a `set` are unique, items
// of a `map` are objects unique by their x-kubernetes-list-map-keys. Only the second occurrence of a
// value is reported, as `spec.files[3]: Duplicate value: {"path":"/etc/motd"}`.

import type { StatusCause } from '../errors.ts';
import type { JSONSchemaProps } from '../registry/resource-definition.ts';
import { duplicate, invalid } from './field-errors.ts';
import { childPath, type FieldPath, indexPath, keyPath } from './field-path.ts';
import { goJson } from './go-format.ts';
import { isJsonObject } from './json-value.ts';
import type { SchemaValidator } from './structural-validation.ts';

// A key that is absent differs from every value, null included.
const unspecified = Symbol('unspecified key');

function identity(value: unknown): unknown {
  if (value === unspecified) return value;
  return Array.isArray(value) || isJsonObject(value) ? `compound:${goJson(value)}` : value;
}

/** Indexes of the second occurrence of each repeated value. */
function secondOccurrences(values: unknown[]): number[] {
  const seen = new Map<unknown, number>();
  const result: number[] = [];
  values.forEach((value, i) => {
    const id = identity(value);
    const times = seen.get(id) ?? 0;
    if (times === 1) result.push(i);
    seen.set(id, times + 1);
  });
  return result;
}

function validateListMap(path: FieldPath, s: JSONSchemaProps, list: unknown[]): StatusCause[] {
  for (let i = 0; i < list.length; i++) {
    const item = list[i];
    if (item !== null && !isJsonObject(item)) {
      return [invalid(indexPath(path, i), item, 'must be an object for an array of list-type map')];
    }
  }
  if (list.length <= 1) return [];
  const keyFields = s['x-kubernetes-list-map-keys'] ?? [];
  if (keyFields.length === 1) {
    const field = keyFields[0]!;
    const keys = list.map((item) =>
      isJsonObject(item) && Object.hasOwn(item, field) ? item[field] : unspecified,
    );
    return secondOccurrences(keys).map((i) =>
      duplicate(indexPath(path, i), keys[i] === unspecified ? {} : { [field]: keys[i] }),
    );
  }
  const keys = list.map((item) => {
    const key: Record<string, unknown> = {};
    if (isJsonObject(item))
      for (const field of keyFields) if (Object.hasOwn(item, field)) key[field] = item[field];
    return key;
  });
  return secondOccurrences(keys).map((i) => duplicate(indexPath(path, i), keys[i]));
}

function validateValue(path: FieldPath, s: JSONSchemaProps, value: unknown): StatusCause[] {
  if (Array.isArray(value)) return validateList(path, s, value);
  if (isJsonObject(value)) return validateObject(path, s, value);
  return [];
}

function validateList(path: FieldPath, s: JSONSchemaProps, list: unknown[]): StatusCause[] {
  const causes: StatusCause[] = [];
  const listType = s['x-kubernetes-list-type'];
  if (listType === 'set') {
    for (const i of secondOccurrences(list)) causes.push(duplicate(indexPath(path, i), list[i]));
  } else if (listType === 'map') {
    causes.push(...validateListMap(path, s, list));
  }
  if (s.items) {
    const items = s.items;
    list.forEach((item, i) => {
      causes.push(...validateValue(indexPath(path, i), items, item));
    });
  }
  return causes;
}

function validateObject(path: FieldPath, s: JSONSchemaProps, obj: Record<string, unknown>): StatusCause[] {
  const causes: StatusCause[] = [];
  const additional = s.additionalProperties;
  if (typeof additional === 'object') {
    for (const [key, value] of Object.entries(obj))
      causes.push(...validateValue(keyPath(path, key), additional, value));
  }
  if (s.properties) {
    for (const [key, value] of Object.entries(obj)) {
      const sub = s.properties[key];
      if (sub) causes.push(...validateValue(childPath(path, key), sub, value));
    }
  }
  return causes;
}

/** Uniqueness of set and map lists anywhere in obj. */
export const validateListSetsAndMaps: SchemaValidator = (obj, schema, path = '') =>
  isJsonObject(obj) ? validateObject(path, schema, obj) : [];
