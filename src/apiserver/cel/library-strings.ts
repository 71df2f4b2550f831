// The CEL strings extension functions kube-apiserver has and the CEL library lacks (it has split,
// join, trim, indexOf, lastIndexOf, substring, lowerAscii, upperAscii). Indexes count code points,
// as in cel-go.

import type { Environment } from '@marcbachmann/cel-js';
import { EvaluationError } from '@marcbachmann/cel-js';

function replace(s: string, from: string, to: string, limit: bigint): string {
  if (limit === 0n) return s;
  if (from === '') {
    // Go's strings.Replace inserts `to` before every code point and at the end, up to `limit` times.
    const points = [...s];
    const times = limit < 0n ? points.length + 1 : Math.min(points.length + 1, Number(limit));
    let out = '';
    for (let i = 0; i <= points.length; i++) out += (i < times ? to : '') + (points[i] ?? '');
    return out;
  }
  const parts = s.split(from);
  if (limit < 0n || BigInt(parts.length - 1) <= limit) return parts.join(to);
  const n = Number(limit);
  return parts.slice(0, n + 1).join(to) + from + parts.slice(n + 1).join(from);
}

function charAt(s: string, i: bigint): string {
  const points = [...s];
  if (i < 0n || i > BigInt(points.length)) throw new EvaluationError(`index out of range: ${i}`);
  return points[Number(i)] ?? '';
}

function formatValue(verb: string, precision: number | undefined, v: unknown): string {
  switch (verb) {
    case 's':
      return celToString(v);
    case 'd':
      if (typeof v === 'bigint') return v.toString();
      if (typeof v === 'number' && Number.isInteger(v)) return v.toFixed(0);
      throw new EvaluationError(`format: %d expects an integer, got ${celTypeName(v)}`);
    case 'f':
    case 'e': {
      const n = typeof v === 'bigint' ? Number(v) : v;
      if (typeof n !== 'number')
        throw new EvaluationError(`format: %${verb} expects a number, got ${celTypeName(v)}`);
      if (Number.isNaN(n)) return 'NaN';
      if (!Number.isFinite(n)) return n > 0 ? 'Infinity' : '-Infinity';
      if (verb === 'f') return n.toFixed(precision ?? 6);
      // Go writes the exponent with at least two digits: 1.000000e+03.
      return n.toExponential(precision ?? 6).replace(/e([+-])(\d)$/, 'e$10$2');
    }
    case 'b':
    case 'o':
    case 'x':
    case 'X': {
      const radix = verb === 'b' ? 2 : verb === 'o' ? 8 : 16;
      let out: string;
      if (typeof v === 'bigint') out = v.toString(radix);
      else if (typeof v === 'string') out = Buffer.from(v, 'utf8').toString('hex');
      else if (v instanceof Uint8Array) out = Buffer.from(v).toString('hex');
      else if (typeof v === 'boolean' && verb === 'b') out = v ? '1' : '0';
      else throw new EvaluationError(`format: %${verb} does not apply to ${celTypeName(v)}`);
      return verb === 'X' ? out.toUpperCase() : out;
    }
    default:
      throw new EvaluationError(`format: unrecognized formatting clause %${verb}`);
  }
}

export function celTypeName(v: unknown): string {
  if (v === null) return 'null_type';
  if (typeof v === 'bigint') return 'int';
  if (typeof v === 'number') return 'double';
  if (typeof v === 'string') return 'string';
  if (typeof v === 'boolean') return 'bool';
  if (Array.isArray(v)) return 'list';
  if (v instanceof Date) return 'google.protobuf.Timestamp';
  if (v instanceof Uint8Array) return 'bytes';
  return 'map';
}

/** A value as CEL's string() or %s writes it. */
export function celToString(v: unknown): string {
  if (typeof v === 'string') return v;
  if (typeof v === 'bigint' || typeof v === 'boolean') return String(v);
  if (typeof v === 'number') return Number.isInteger(v) && Math.abs(v) < 1e21 ? v.toFixed(0) : String(v);
  if (v === null) return 'null';
  if (v instanceof Date) return v.toISOString().replace('.000Z', 'Z');
  if (Array.isArray(v)) return `[${v.map(celToString).join(', ')}]`;
  if (v instanceof Map)
    return `{${[...v].map(([k, x]) => `${celToString(k)}: ${celToString(x)}`).join(', ')}}`;
  return String(v);
}

function format(template: string, args: unknown[]): string {
  let out = '';
  let next = 0;
  for (let i = 0; i < template.length; i++) {
    const c = template[i];
    if (c !== '%') {
      out += c;
      continue;
    }
    const clause = /^%(?:\.(\d+))?([a-zA-Z%])/.exec(template.slice(i));
    if (!clause) throw new EvaluationError(`format: unterminated formatting clause at ${i}`);
    i += clause[0].length - 1;
    if (clause[2] === '%') {
      out += '%';
      continue;
    }
    if (next >= args.length) throw new EvaluationError(`format: index ${next} out of range`);
    out += formatValue(
      clause[2] as string,
      clause[1] === undefined ? undefined : Number(clause[1]),
      args[next++],
    );
  }
  return out;
}

export function registerStringsLibrary(env: Environment): void {
  env.registerFunction('string.charAt(int): string', charAt);
  env.registerFunction('string.replace(string, string): string', (s: string, a: string, b: string) =>
    replace(s, a, b, -1n),
  );
  env.registerFunction('string.replace(string, string, int): string', replace);
  env.registerFunction('string.reverse(): string', (s: string) => [...s].reverse().join(''));
  env.registerFunction('string.format(list): string', format);
}
