// A JSON object: not null, not an array. The one check every reader of decoded JSON and API objects
// uses before it looks at fields.

export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** isPlainObject, typed for code that reads untyped API objects field by field. */
export function isLooseObject(value: unknown): value is Record<string, any> {
  return isPlainObject(value);
}
