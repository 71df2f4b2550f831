// JSON values as CEL sees them. With a structural schema, the way kube-apiserver types them:
// integer → int, number → double, string with format date-time → timestamp, duration → duration,
// byte → bytes, objects → maps. Without one (admission policies on unstructured objects, preserved
// unknown fields) the way Go's JSON decoder types them: integral numbers → int, others → double.

import { Environment } from '@marcbachmann/cel-js';
import type { JSONSchemaProps } from '../registry/resource-definition.ts';

// The library's Duration is not exported; its duration() function makes one.
let durationOf: ((context: { s: string }) => unknown) | undefined;

function duration(s: string): unknown {
  durationOf ??= new Environment().registerVariable('s', 'string').parse('duration(s)');
  try {
    return durationOf({ s });
  } catch {
    return s; // kube's schema validation refuses such a value before rules run
  }
}

function timestamp(s: string): unknown {
  const t = new Date(s);
  return Number.isNaN(t.getTime()) ? s : t;
}

function integer(v: number): bigint | number {
  return Number.isSafeInteger(v) ? BigInt(v) : Number.isInteger(v) ? BigInt(Math.trunc(v)) : v;
}

/** A JSON value (as JSON.parse returns it) as a CEL value; `schema` types it where given. */
export function toCelValue(value: unknown, schema?: JSONSchemaProps): unknown {
  if (value === null || value === undefined) return null;
  if (Array.isArray(value)) return value.map((v) => toCelValue(v, schema?.items));
  switch (typeof value) {
    case 'boolean':
      return value;
    case 'number':
      if (schema?.type === 'number') return value;
      return Number.isInteger(value) ? integer(value) : value;
    case 'string':
      if (schema?.type !== 'string') return value;
      if (schema.format === 'date-time') return timestamp(value);
      if (schema.format === 'duration') return duration(value);
      if (schema.format === 'byte') return Buffer.from(value, 'base64');
      return value;
    case 'object': {
      const out = new Map<string, unknown>();
      for (const [k, v] of Object.entries(value)) {
        const sub =
          schema?.properties?.[k] ??
          (typeof schema?.additionalProperties === 'object' ? schema.additionalProperties : undefined);
        out.set(k, toCelValue(v, sub));
      }
      return out;
    }
    default:
      return null;
  }
}

/** A CEL result as JSON-ish JS (for messages and tests): Maps become objects, ints stay bigint. */
export function fromCelValue(value: unknown): unknown {
  if (value instanceof Map)
    return Object.fromEntries([...value].map(([k, v]) => [String(k), fromCelValue(v)]));
  if (Array.isArray(value)) return value.map(fromCelValue);
  return value;
}

/** How many values (scalars, list items, map entries) a CEL value holds: the cost guard's input size. */
export function celValueSize(value: unknown): number {
  if (value instanceof Map) {
    let n = 1;
    for (const v of value.values()) n += celValueSize(v);
    return n;
  }
  if (Array.isArray(value)) return value.reduce((n: number, v) => n + celValueSize(v), 1);
  return 1;
}
