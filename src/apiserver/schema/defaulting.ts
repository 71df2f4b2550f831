// Structural defaulting (apiextensions schema/defaulting): kube applies it to custom resources on
// create and update and whenever it reads them from storage. A default fills a property that is absent
// (or null where null is not allowed) only when its parent object exists, so nested defaults appear
// only under objects the user wrote or that were themselves defaulted. Defaults are deep-copied.

import type { JSONSchemaProps } from '../registry/resource-definition.ts';
import { isJsonObject, jsonClone } from './json-value.ts';

function hasDefault(s: JSONSchemaProps | undefined): s is JSONSchemaProps & { default: unknown } {
  // A `default: null` counts as no default, as in kube.
  return s !== undefined && s.default !== undefined && s.default !== null;
}

/** Null where the schema forbids null but offers a default: kube replaces it with the default. */
function replaceableNull(value: unknown, s: JSONSchemaProps | undefined): boolean {
  return value === null && hasDefault(s) && !s.nullable;
}

/** Fills defaults into value in place and returns it. */
export function applyDefaults<T>(value: T, schema: JSONSchemaProps | undefined): T {
  if (!schema) return value;
  if (isJsonObject(value)) {
    const obj = value as Record<string, unknown>;
    const properties = schema.properties ?? {};
    for (const [key, property] of Object.entries(properties)) {
      if (!hasDefault(property)) continue;
      if (!Object.hasOwn(obj, key) || replaceableNull(obj[key], property))
        obj[key] = jsonClone(property.default);
    }
    const additional =
      typeof schema.additionalProperties === 'object' ? schema.additionalProperties : undefined;
    for (const key of Object.keys(obj)) {
      const property = properties[key];
      if (property) applyDefaults(obj[key], property);
      else if (additional) {
        if (replaceableNull(obj[key], additional)) obj[key] = jsonClone(additional.default);
        applyDefaults(obj[key], additional);
      }
    }
  } else if (Array.isArray(value)) {
    const items = schema.items;
    for (let i = 0; i < value.length; i++) {
      if (replaceableNull(value[i], items)) value[i] = jsonClone(items!.default);
      applyDefaults(value[i], items);
    }
  }
  return value;
}
