// Canonical JSON: object keys sorted by code unit, no whitespace, undefined properties dropped.
// Array order is kept (the renderer sorts the lists whose order carries no meaning).

export function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== 'object') {
    if (typeof value === 'number' && !Number.isFinite(value))
      throw new TypeError(`cannot hash number ${value}`);
    if (value === undefined || typeof value === 'function' || typeof value === 'symbol') {
      throw new TypeError(`cannot hash a ${typeof value}`);
    }
    if (typeof value === 'bigint') throw new TypeError('cannot hash a bigint');
    return JSON.stringify(value);
  }
  if (Array.isArray(value)) {
    // JSON.stringify turns holes and undefined items into null; do the same, explicitly.
    return `[${value.map((item) => (item === undefined ? 'null' : canonicalJson(item))).join(',')}]`;
  }
  const keys = Object.keys(value)
    .filter((key) => (value as Record<string, unknown>)[key] !== undefined)
    .sort();
  const members = keys.map(
    (key) => `${JSON.stringify(key)}:${canonicalJson((value as Record<string, unknown>)[key])}`,
  );
  return `{${members.join(',')}}`;
}
