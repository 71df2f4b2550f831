import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  formatBadValue,
  goFloat,
  goJson,
  goNumber,
  goQuote,
} from '../../../src/apiserver/schema/go-format.ts';

test('goQuote escapes like strconv.Quote', () => {
  const cases: [string, string][] = [
    ['abc', '"abc"'],
    ['say "hi"', '"say \\"hi\\""'],
    ['back\\slash', '"back\\\\slash"'],
    ['line\nbreak\ttab', '"line\\nbreak\\ttab"'],
    ['\x1b[0m', '"\\x1b[0m"'],
    ['\x07\v\f\r\b', '"\\a\\v\\f\\r\\b"'],
    ['héllo ✓', '"héllo ✓"'],
    ['zero\u200bwidth', '"zero\\u200bwidth"'],
    ['\u{1F600}', '"\u{1F600}"'],
  ];
  for (const [input, want] of cases) assert.equal(goQuote(input), want, input);
});

test('goFloat prints float64 like %v: exponent from 1e6 and below 1e-4', () => {
  const cases: [number, string][] = [
    [0.5, '0.5'],
    [10, '10'],
    [123456, '123456'],
    [1000000, '1e+06'],
    [1234567.5, '1.2345675e+06'],
    [0.0001, '0.0001'],
    [0.00001, '1e-05'],
    [-2.5e-7, '-2.5e-07'],
    [1e21, '1e+21'],
  ];
  for (const [input, want] of cases) assert.equal(goFloat(input), want, String(input));
});

test('goNumber prints integral numbers as int64 and others as float64', () => {
  assert.equal(goNumber(1000000), '1000000');
  assert.equal(goNumber(-3), '-3');
  assert.equal(goNumber(1.5), '1.5');
  assert.equal(goNumber(2e-5), '2e-05');
});

test('goJson sorts keys and escapes HTML like encoding/json', () => {
  assert.equal(goJson({ name: 'a', b: [1, { z: 1, a: 2 }] }), '{"b":[1,{"a":2,"z":1}],"name":"a"}');
  assert.equal(goJson('<a&b>'), '"\\u003ca\\u0026b\\u003e"');
  assert.equal(goJson(null), 'null');
});

test('formatBadValue renders what field.Error shows after the error type', () => {
  const cases: [unknown, string][] = [
    ['x', '"x"'],
    [5, '5'],
    [2.5, '2.5'],
    [true, 'true'],
    [null, '"null"'],
    [undefined, '"null"'],
    [{ path: '/etc/motd' }, '{"path":"/etc/motd"}'],
    [['a', 'b'], '["a","b"]'],
  ];
  for (const [input, want] of cases) assert.equal(formatBadValue(input), want);
});
