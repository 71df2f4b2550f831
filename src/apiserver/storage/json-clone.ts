// Fresh copies of cached JSON values. The store keeps each live object parsed and frozen, and hands out
// copies: walking a parsed object is about four times faster than JSON.parse of its text and about eight
// times faster than structuredClone (measured on a 4 KB Node object, see bench/apiserver-store.bench.ts).

/** Deep copy of a value produced by JSON.parse (plain objects, arrays, strings, numbers, booleans, null). */
export function cloneJson<T>(value: T): T {
  if (typeof value !== 'object' || value === null) return value;
  if (Array.isArray(value)) {
    const copy = new Array(value.length);
    for (let i = 0; i < value.length; i++) copy[i] = cloneJson(value[i]);
    return copy as T;
  }
  const copy: Record<string, unknown> = {};
  for (const key in value) {
    // JSON.parse makes "__proto__" an own property; plain assignment would set the prototype instead.
    if (key === '__proto__') {
      Object.defineProperty(copy, key, {
        value: cloneJson(value[key]),
        enumerable: true,
        writable: true,
        configurable: true,
      });
    } else {
      copy[key] = cloneJson(value[key]);
    }
  }
  return copy as T;
}

/** Freezes a parsed JSON value in place so an accidental leak of a cached object fails loudly on write. */
export function deepFreeze<T>(value: T): T {
  if (typeof value !== 'object' || value === null) return value;
  for (const key in value) deepFreeze(value[key]);
  return Object.freeze(value);
}
