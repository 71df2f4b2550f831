// Kubernetes' quantity library: quantity('1.5Gi'), isQuantity, compareTo, isLessThan, isGreaterThan,
// add, sub, asInteger, asApproximateFloat, isInteger, sign. Values are exact fractions (bigint
// numerator/denominator), as resource.Quantity is exact, so '1Gi' > '1073741823' holds.

import type { Environment } from '@marcbachmann/cel-js';
import { EvaluationError } from '@marcbachmann/cel-js';

export class Quantity {
  readonly num: bigint;
  readonly den: bigint;
  constructor(num: bigint, den: bigint) {
    const g = gcd(num < 0n ? -num : num, den);
    this.num = g > 1n ? num / g : num;
    this.den = g > 1n ? den / g : den;
  }
}

function gcd(a: bigint, b: bigint): bigint {
  while (b !== 0n) [a, b] = [b, a % b];
  return a === 0n ? 1n : a;
}

const BINARY: Record<string, bigint> = {
  Ki: 1n << 10n,
  Mi: 1n << 20n,
  Gi: 1n << 30n,
  Ti: 1n << 40n,
  Pi: 1n << 50n,
  Ei: 1n << 60n,
};
const DECIMAL: Record<string, number> = { n: -9, u: -6, m: -3, '': 0, k: 3, M: 6, G: 9, T: 12, P: 15, E: 18 };

/** resource.ParseQuantity's grammar; undefined when the string is not a quantity. */
export function parseQuantity(s: string): Quantity | undefined {
  const m = /^([+-]?)(\d+(?:\.\d*)?|\.\d+)([a-zA-Z]*|[eE][+-]?\d+)$/.exec(s);
  if (!m) return undefined;
  const [, sign, number, suffix] = m as unknown as [string, string, string, string];
  const [whole, fraction = ''] = number.split('.');
  let num = BigInt(`${whole || '0'}${fraction}`) * (sign === '-' ? -1n : 1n);
  let den = 10n ** BigInt(fraction.length);
  let exponent: number | undefined = DECIMAL[suffix];
  if (/^[eE]/.test(suffix)) exponent = Number(suffix.slice(1));
  if (BINARY[suffix] !== undefined) num *= BINARY[suffix] as bigint;
  else if (exponent === undefined) return undefined;
  else if (exponent >= 0) num *= 10n ** BigInt(exponent);
  else den *= 10n ** BigInt(-exponent);
  return new Quantity(num, den);
}

function quantity(s: string): Quantity {
  const q = parseQuantity(s);
  if (!q)
    throw new EvaluationError(
      `quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'`,
    );
  return q;
}

const compare = (a: Quantity, b: Quantity): number => {
  const d = a.num * b.den - b.num * a.den;
  return d < 0n ? -1 : d > 0n ? 1 : 0;
};
const plus = (a: Quantity, b: Quantity, sign: bigint): Quantity =>
  new Quantity(a.num * b.den + sign * b.num * a.den, a.den * b.den);
const ofInt = (i: bigint): Quantity => new Quantity(i, 1n);

const INT64_MAX = 9223372036854775807n;
const INT64_MIN = -9223372036854775808n;

function asInteger(q: Quantity): bigint {
  if (q.den !== 1n || q.num > INT64_MAX || q.num < INT64_MIN) {
    throw new EvaluationError('cannot convert value to integer');
  }
  return q.num;
}

export function registerQuantityLibrary(env: Environment): void {
  const Q = 'kubernetes.Quantity';
  env.registerType(Q, Quantity);
  env.registerFunction(`quantity(string): ${Q}`, quantity);
  env.registerFunction('isQuantity(string): bool', (s: string) => parseQuantity(s) !== undefined);
  env.registerFunction(`${Q}.compareTo(${Q}): int`, (a: Quantity, b: Quantity) => BigInt(compare(a, b)));
  env.registerFunction(`${Q}.isLessThan(${Q}): bool`, (a: Quantity, b: Quantity) => compare(a, b) < 0);
  env.registerFunction(`${Q}.isGreaterThan(${Q}): bool`, (a: Quantity, b: Quantity) => compare(a, b) > 0);
  env.registerFunction(`${Q}.add(${Q}): ${Q}`, (a: Quantity, b: Quantity) => plus(a, b, 1n));
  env.registerFunction(`${Q}.add(int): ${Q}`, (a: Quantity, b: bigint) => plus(a, ofInt(b), 1n));
  env.registerFunction(`${Q}.sub(${Q}): ${Q}`, (a: Quantity, b: Quantity) => plus(a, b, -1n));
  env.registerFunction(`${Q}.sub(int): ${Q}`, (a: Quantity, b: bigint) => plus(a, ofInt(b), -1n));
  env.registerFunction(
    `${Q}.isInteger(): bool`,
    (q: Quantity) => q.den === 1n && q.num <= INT64_MAX && q.num >= INT64_MIN,
  );
  env.registerFunction(`${Q}.asInteger(): int`, asInteger);
  env.registerFunction(`${Q}.asApproximateFloat(): double`, (q: Quantity) => Number(q.num) / Number(q.den));
  env.registerFunction(`${Q}.sign(): int`, (q: Quantity) => BigInt(q.num < 0n ? -1 : q.num > 0n ? 1 : 0));
  env.registerOperator(`${Q} == ${Q}`, (a: Quantity, b: Quantity) => compare(a, b) === 0);
}
