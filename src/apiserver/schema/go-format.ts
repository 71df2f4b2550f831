// Renders values the way Go's fmt and encoding/json do, because kube's error messages are built with them:
// strings with %q, numbers with %v, compound values as compact JSON with sorted keys.

import { isJsonObject } from './json-value.ts';

const printable = /^[\p{L}\p{M}\p{N}\p{P}\p{S} ]$/u;

const namedEscapes: Record<string, string> = {
  '\x07': '\\a',
  '\b': '\\b',
  '\f': '\\f',
  '\n': '\\n',
  '\r': '\\r',
  '\t': '\\t',
  '\v': '\\v',
  '"': '\\"',
  '\\': '\\\\',
};

function hex(n: number, width: number): string {
  return n.toString(16).padStart(width, '0');
}

/** Go's strconv.Quote (what %q prints for a string). */
export function goQuote(s: string): string {
  let out = '"';
  for (const ch of s) {
    const named = namedEscapes[ch];
    if (named !== undefined) {
      out += named;
      continue;
    }
    const cp = ch.codePointAt(0)!;
    if (printable.test(ch)) out += ch;
    else if (cp < 0x80) out += `\\x${hex(cp, 2)}`;
    else if (cp < 0x10000) out += `\\u${hex(cp, 4)}`;
    else out += `\\U${hex(cp, 8)}`;
  }
  return `${out}"`;
}

/** Go's %v for a float64: shortest digits, exponent form below 1e-4 and from 1e6 on (`1e+06`). */
export function goFloat(n: number): string {
  if (Number.isNaN(n)) return 'NaN';
  if (!Number.isFinite(n)) return n > 0 ? '+Inf' : '-Inf';
  if (n === 0) return Object.is(n, -0) ? '-0' : '0';
  const [mantissa = '', exponentText = '0'] = n.toExponential().split('e');
  const exponent = Number(exponentText);
  if (exponent < -4 || exponent >= 6) {
    const sign = exponent < 0 ? '-' : '+';
    return `${mantissa}e${sign}${String(Math.abs(exponent)).padStart(2, '0')}`;
  }
  return String(n);
}

/** Go's %v for a JSON number decoded by kube: int64 when integral, float64 otherwise. */
export function goNumber(n: number): string {
  return Number.isInteger(n) && Math.abs(n) < 2 ** 63 ? BigInt(n).toString() : goFloat(n);
}

function sortedCopy(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortedCopy);
  if (isJsonObject(value)) {
    const out: Record<string, unknown> = {};
    for (const key of Object.keys(value).sort()) out[key] = sortedCopy(value[key]);
    return out;
  }
  return value;
}

/** Go's json.Marshal: map keys sorted, HTML characters escaped. */
export function goJson(value: unknown): string {
  const text = JSON.stringify(sortedCopy(value)) ?? 'null';
  return text
    .replace(/</g, '\\u003c')
    .replace(/>/g, '\\u003e')
    .replace(/&/g, '\\u0026')
    .replace(/\u2028/g, '\\u2028')
    .replace(/\u2029/g, '\\u2029');
}

/** How field.Error prints its bad value: `"x"`, `5`, `true`, `"null"`, or JSON for objects and lists. */
export function formatBadValue(value: unknown): string {
  if (value === null || value === undefined) return '"null"';
  switch (typeof value) {
    case 'string':
      return goQuote(value);
    case 'number':
      return goNumber(value);
    case 'boolean':
      return String(value);
    default:
      return goJson(value);
  }
}
