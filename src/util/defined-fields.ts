// Optional fields copied only when set, so an unset one is absent from the result (as JSON and
// Object.keys see it) rather than present with the value undefined.

/** The fields of `fields` whose value is not undefined, in their order. */
export function definedFields<T extends Record<string, unknown>>(fields: T): Partial<T> {
  return Object.fromEntries(Object.entries(fields).filter(([, value]) => value !== undefined)) as Partial<T>;
}
