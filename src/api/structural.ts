// Structural-schema operations a Kubernetes API server performs on custom resources, for use where
// no API server did them (rendering, tests, the CLI reading files):
// - defaulting: a missing property with a `default` gets a copy of it, then defaulting continues
//   inside (so a defaulted `{}` gets its own nested defaults);
// - pruning: properties the schema does not know are dropped.
// Values of the wrong type are left alone for validation to report.

import type { JSONSchemaProps } from '../util/kube-api-types.ts';
import { isPlainObject } from '../util/plain-object.ts';

function childSchema(schema: JSONSchemaProps, key: string): JSONSchemaProps | undefined {
  return (
    schema.properties?.[key] ??
    (isPlainObject(schema.additionalProperties) ? schema.additionalProperties : undefined)
  );
}

/** Returns a defaulted copy; the input is not modified. */
export function applyDefaults(schema: JSONSchemaProps, value: unknown): unknown {
  if (Array.isArray(value)) {
    const items = schema.items;
    return items ? value.map((item) => applyDefaults(items, item)) : structuredClone(value);
  }
  if (!isPlainObject(value)) return value;
  const result: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(value)) {
    const child = childSchema(schema, key);
    result[key] = child ? applyDefaults(child, item) : structuredClone(item);
  }
  for (const [key, child] of Object.entries(schema.properties ?? {})) {
    if (result[key] === undefined && child.default !== undefined) {
      result[key] = applyDefaults(child, structuredClone(child.default));
    }
  }
  return result;
}

/** Returns a copy without the properties the schema does not declare. */
export function pruneUnknown(schema: JSONSchemaProps, value: unknown): unknown {
  if (Array.isArray(value)) {
    const items = schema.items;
    return items ? value.map((item) => pruneUnknown(items, item)) : structuredClone(value);
  }
  if (!isPlainObject(value)) return value;
  if (schema['x-kubernetes-preserve-unknown-fields']) return structuredClone(value);
  const result: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(value)) {
    const child = childSchema(schema, key);
    if (child) result[key] = pruneUnknown(child, item);
    else if (schema.additionalProperties === true) result[key] = structuredClone(item);
  }
  return result;
}
