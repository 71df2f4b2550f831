// Renders JSON values the way Go's fmt prints decoded JSON (%v), so strategic merge patch errors read
// like the real API server's: `map: map[image:nginx] does not contain declared merge key: name`.

import { isJsonObject, type JsonValue } from './json-value.ts';

export function goValue(value: JsonValue | undefined): string {
  if (value === null || value === undefined) return '<nil>';
  if (Array.isArray(value)) return `[${value.map(goValue).join(' ')}]`;
  if (isJsonObject(value)) {
    const members = Object.keys(value)
      .sort()
      .map((key) => `${key}:${goValue(value[key])}`);
    return `map[${members.join(' ')}]`;
  }
  return String(value);
}

/** The Go type encoding/json decodes a value into (numbers as int64 when whole, as the server does). */
export function goTypeName(value: JsonValue | undefined): string {
  if (value === null || value === undefined) return '%!s(<nil>)';
  if (Array.isArray(value)) return '[]interface {}';
  if (isJsonObject(value)) return 'map[string]interface {}';
  if (typeof value === 'number') return Number.isInteger(value) ? 'int64' : 'float64';
  return typeof value === 'boolean' ? 'bool' : 'string';
}
