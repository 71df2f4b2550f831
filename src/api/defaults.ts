// Structural defaulting, as a Kubernetes API server does it from a CRD schema: a missing property
// with a `default` gets a copy of it, then defaulting continues inside (so a defaulted `{}` gets its
// own nested defaults). Values of the wrong type are left for validation to report.

import type { JSONSchemaProps } from '../apiserver/registry/resource-definition.ts';

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
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
    const child =
      schema.properties?.[key] ??
      (isPlainObject(schema.additionalProperties) ? schema.additionalProperties : undefined);
    result[key] = child ? applyDefaults(child, item) : structuredClone(item);
  }
  for (const [key, child] of Object.entries(schema.properties ?? {})) {
    if (result[key] === undefined && child.default !== undefined) {
      result[key] = applyDefaults(child, structuredClone(child.default));
    }
  }
  return result;
}
