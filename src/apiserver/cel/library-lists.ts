// Kubernetes' lists library: isSorted, sum, min, max, indexOf, lastIndexOf over lists of comparable
// values (int, uint, double, string, bool, bytes, timestamp, duration).

import type { Environment } from '@marcbachmann/cel-js';
import { EvaluationError } from '@marcbachmann/cel-js';
import { celTypeName } from './library-strings.ts';

function numeric(v: unknown): number | bigint | undefined {
  if (typeof v === 'bigint' || typeof v === 'number') return v;
  if (v instanceof Date) return v.getTime();
  if (typeof v === 'object' && v !== null && v.constructor?.name === 'Duration') return Number(v);
  if (typeof v === 'object' && v !== null && v.constructor?.name === 'UnsignedInt')
    return (v as { value: bigint }).value;
  return undefined;
}

/** -1, 0, 1 as CEL's < orders a and b; throws when they are not comparable. */
export function celCompare(a: unknown, b: unknown): number {
  const x = numeric(a);
  const y = numeric(b);
  if (x !== undefined && y !== undefined) return x < y ? -1 : x > y ? 1 : 0;
  if (typeof a === 'string' && typeof b === 'string') return a < b ? -1 : a > b ? 1 : 0;
  if (typeof a === 'boolean' && typeof b === 'boolean') return Number(a) - Number(b);
  if (a instanceof Uint8Array && b instanceof Uint8Array) return Buffer.compare(a, b);
  throw new EvaluationError(`no such overload: ${celTypeName(a)} < ${celTypeName(b)}`);
}

// Inputs are Maps (json-values.ts); map literals in expressions are plain objects.
function mapEntries(v: unknown): Map<unknown, unknown> | undefined {
  if (v instanceof Map) return v;
  if (
    typeof v === 'object' &&
    v !== null &&
    (Object.getPrototypeOf(v) === Object.prototype || Object.getPrototypeOf(v) === null)
  ) {
    return new Map(Object.entries(v));
  }
  return undefined;
}

function celEquals(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  const x = numeric(a);
  const y = numeric(b);
  if (x !== undefined && y !== undefined) return x >= y && x <= y; // int 1 == double 1.0, as in CEL's runtime
  if (Array.isArray(a) && Array.isArray(b))
    return a.length === b.length && a.every((v, i) => celEquals(v, b[i]));
  const x2 = mapEntries(a);
  const y2 = mapEntries(b);
  if (x2 && y2) {
    if (x2.size !== y2.size) return false;
    for (const [k, v] of x2) if (!y2.has(k) || !celEquals(v, y2.get(k))) return false;
    return true;
  }
  if (a instanceof Uint8Array && b instanceof Uint8Array) return Buffer.compare(a, b) === 0;
  return false;
}

function extreme(list: unknown[], sign: number, name: string): unknown {
  if (list.length === 0) throw new EvaluationError(`${name} called on an empty list`);
  let best = list[0];
  for (const v of list.slice(1)) if (celCompare(v, best) * sign > 0) best = v;
  return best;
}

function sum(list: unknown[]): unknown {
  if (list.length === 0) return 0n;
  if (list.every((v) => typeof v === 'bigint')) {
    const total = (list as bigint[]).reduce((a, b) => a + b, 0n);
    if (total > 9223372036854775807n || total < -9223372036854775808n)
      throw new EvaluationError('integer overflow');
    return total;
  }
  if (list.every((v) => typeof v === 'number')) return (list as number[]).reduce((a, b) => a + b, 0);
  throw new EvaluationError('sum() needs a list of int or of double');
}

export function registerListsLibrary(env: Environment): void {
  env.registerFunction('list<A>.isSorted(): bool', (list: unknown[]) =>
    list.every((v, i) => i === 0 || celCompare(list[i - 1], v) <= 0),
  );
  env.registerFunction('list<A>.sum(): A', sum);
  env.registerFunction('list<A>.min(): A', (list: unknown[]) => extreme(list, -1, 'min'));
  env.registerFunction('list<A>.max(): A', (list: unknown[]) => extreme(list, 1, 'max'));
  env.registerFunction('list<A>.indexOf(A): int', (list: unknown[], v: unknown) =>
    BigInt(list.findIndex((x) => celEquals(x, v))),
  );
  env.registerFunction('list<A>.lastIndexOf(A): int', (list: unknown[], v: unknown) =>
    BigInt(list.findLastIndex((x) => celEquals(x, v))),
  );
}
