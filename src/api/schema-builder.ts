// A tiny builder for structural OpenAPI v3 schemas that also yields the TypeScript types, so the CRD
// manifests, the API reference and the code share ONE definition. Every builder returns a plain
// JSONSchemaProps (`.json`) plus phantom types: `InputOf` (what a user may write: defaulted fields
// optional) and `OutputOf` (what a renderer or the API server's defaulting produces).

import type { JSONSchemaProps } from '../util/kube-api-types.ts';

export type Presence = 'required' | 'optional' | 'defaulted';

export interface Schema<In, Out = In, P extends Presence = 'required'> {
  readonly json: JSONSchemaProps;
  readonly presence: P;
  /** Type-level only: never set at run time. */
  readonly types?: { in: In; out: Out };
}

export type AnySchema = Schema<any, any, Presence>;
export type InputOf<S> = S extends Schema<infer I, any, any> ? I : never;
export type OutputOf<S> = S extends Schema<any, infer O, any> ? O : never;

type Simplify<T> = { [K in keyof T]: T[K] } & {};
type ObjectInput<P extends Record<string, AnySchema>> = Simplify<
  { [K in keyof P as P[K]['presence'] extends 'required' ? K : never]: InputOf<P[K]> } & {
    [K in keyof P as P[K]['presence'] extends 'required' ? never : K]?: InputOf<P[K]>;
  }
>;
type ObjectOutput<P extends Record<string, AnySchema>> = Simplify<
  { [K in keyof P as P[K]['presence'] extends 'optional' ? never : K]: OutputOf<P[K]> } & {
    [K in keyof P as P[K]['presence'] extends 'optional' ? K : never]?: OutputOf<P[K]>;
  }
>;

/** Keywords a caller may add to any node (type, properties and items are the builder's job). */
export type Extra = Omit<JSONSchemaProps, 'type' | 'properties' | 'items' | 'required' | 'enum' | 'default'>;

function make<I, O = I>(json: JSONSchemaProps): Schema<I, O> {
  return { json, presence: 'required' };
}

export function string(description: string, extra: Extra = {}): Schema<string> {
  return make({ type: 'string', description, ...extra });
}

export function stringEnum<const V extends readonly string[]>(
  values: V,
  description: string,
  extra: Extra = {},
): Schema<V[number]> {
  return make({ type: 'string', description, enum: [...values], ...extra });
}

export function integer(description: string, extra: Extra = {}): Schema<number> {
  return make({ type: 'integer', description, ...extra });
}

/** A JSON number (float64), e.g. a metric threshold. */
export function number(description: string, extra: Extra = {}): Schema<number> {
  return make({ type: 'number', description, ...extra });
}

export function boolean(description: string, extra: Extra = {}): Schema<boolean> {
  return make({ type: 'boolean', description, ...extra });
}

/** An integer or a percentage string such as "25%" (Kubernetes IntOrString). */
export function intOrString(description: string, extra: Extra = {}): Schema<number | string> {
  return make({ 'x-kubernetes-int-or-string': true, description, ...extra });
}

/** RFC 3339 timestamp, as metav1.Time serialises. */
export function dateTime(description: string): Schema<string> {
  return make({ type: 'string', format: 'date-time', description });
}

export function array<S extends AnySchema>(
  items: S,
  description: string,
  extra: Extra = {},
): Schema<InputOf<S>[], OutputOf<S>[]> {
  return make({ type: 'array', description, items: items.json, ...extra });
}

/**
 * A list whose items are identified by key fields (x-kubernetes-list-type: map): server-side apply
 * merges it item by item, so two managers can own different items, and duplicate keys are refused.
 */
export function keyedBy(...keys: string[]): Extra {
  return { 'x-kubernetes-list-type': 'map', 'x-kubernetes-list-map-keys': keys };
}

export function stringMap(description: string, extra: Extra = {}): Schema<Record<string, string>> {
  return make({ type: 'object', description, additionalProperties: { type: 'string' }, ...extra });
}

export function object<P extends Record<string, AnySchema>>(
  properties: P,
  description: string,
  extra: Extra = {},
): Schema<ObjectInput<P>, ObjectOutput<P>> {
  const json: JSONSchemaProps = { type: 'object', description, properties: {} };
  const required: string[] = [];
  for (const [name, schema] of Object.entries(properties)) {
    json.properties![name] = schema.json;
    if (schema.presence === 'required') required.push(name);
  }
  if (required.length > 0) json.required = required;
  return make({ ...json, ...extra });
}

export function optional<I, O>(schema: Schema<I, O, 'required'>): Schema<I, O, 'optional'> {
  return { json: schema.json, presence: 'optional' };
}

/** Optional for the writer, always present after defaulting. */
export function defaulted<I, O>(schema: Schema<I, O, 'required'>, value: I): Schema<I, O, 'defaulted'> {
  return { json: { ...schema.json, default: value }, presence: 'defaulted' };
}

/** A CEL rule (x-kubernetes-validations entry): what a real kube-apiserver checks besides the schema. */
export type Rule = NonNullable<JSONSchemaProps['x-kubernetes-validations']>[number];

/** A CEL string literal of `text` (single-quoted, backslashes and quotes escaped). */
export function celString(text: string): string {
  return `'${text.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`;
}

/** The schema with CEL rules added to its node. */
export function withRules<I, O, P extends Presence>(schema: Schema<I, O, P>, rules: Rule[]): Schema<I, O, P> {
  const json = { ...schema.json };
  json['x-kubernetes-validations'] = [...(json['x-kubernetes-validations'] ?? []), ...rules];
  return { ...schema, json };
}

/**
 * A copy of a schema without CEL rules and without maxItems, everywhere below it: for a schema embedded
 * where only the controller writes (a revision's merged config, which holds several NodeConfigs' items
 * and is checked by nodeherd's validators), so its rules cost nothing and its lists are not capped.
 */
export function withoutRules<S extends AnySchema>(schema: S): S {
  const strip = (s: JSONSchemaProps): JSONSchemaProps => {
    const { 'x-kubernetes-validations': _rules, maxItems: _maxItems, ...rest } = s;
    const out: JSONSchemaProps = { ...rest };
    if (s.properties) {
      out.properties = Object.fromEntries(Object.entries(s.properties).map(([k, v]) => [k, strip(v)]));
    }
    if (s.items) out.items = strip(s.items);
    if (typeof s.additionalProperties === 'object') out.additionalProperties = strip(s.additionalProperties);
    return out;
  };
  return { ...schema, json: strip(schema.json) };
}
