// How long a CRD `pattern` with nested quantifiers takes to reject a long value. A backtracking engine
// (V8's RegExp, which the server used before re2js) needs exponential time: `^(a+)+$` against 34
// characters held the server for ~80 s. RE2 matches in time linear in the input.
// Run: node bench/crd-pattern.bench.ts   (PATTERN_BENCH_N sets the input length; default 100000)
import { goRegexpMatches } from '../src/apiserver/schema/go-regexp.ts';
import { benchNumber } from './support/quick.ts';
import { reportFigure } from './support/report.ts';

const length = benchNumber('PATTERN_BENCH_N', 100_000, 10_000);
const input = `${'a'.repeat(length)}b`;
const started = performance.now();
if (goRegexpMatches('^(a+)+$', input)) throw new Error('^(a+)+$ matched a value ending in b');
const ms = performance.now() - started;
console.log(`^(a+)+$ rejected ${length + 1} characters in ${ms.toFixed(1)} ms`);
reportFigure({
  bench: 'crd-pattern',
  name: '^(a+)+$ against a long non-matching value',
  value: ms,
  unit: 'ms',
  target: { op: '<=', value: 1000 },
  note: `${length + 1} characters`,
});
