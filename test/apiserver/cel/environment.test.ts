// The Kubernetes CEL environment: macros, the strings/lists/regex extension libraries, optional
// types, RE2 semantics, the cost guard and the JSON → CEL type mapping, each against the result
// cel-go gives in kube-apiserver.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Optional } from '@marcbachmann/cel-js';
import {
  CelCompileError,
  celEnvironment,
  compileExpression,
  runExpression,
} from '../../../src/apiserver/cel/environment.ts';
import { celValueSize, fromCelValue, toCelValue } from '../../../src/apiserver/cel/json-values.ts';

const env = celEnvironment(['self']);

function ev(expression: string, self: unknown = null): unknown {
  return fromCelValue(compileExpression(env, expression).evaluate({ self }));
}

function evError(expression: string, self: unknown = null): string {
  const r = runExpression(compileExpression(env, expression), { self }, 1);
  assert.equal(r.ok, false, `${expression} fails`);
  return r.ok ? '' : r.error;
}

test('standard macros: has, all, exists, exists_one, map, filter', () => {
  const self = toCelValue({ items: [1, 2, 3], name: 'x' });
  assert.equal(ev('has(self.items) && !has(self.missing)', self), true);
  assert.equal(ev('self.items.all(i, i > 0)', self), true);
  assert.equal(ev('self.items.exists(i, i == 2)', self), true);
  assert.equal(ev('self.items.exists_one(i, i > 1)', self), false);
  assert.deepEqual(ev('self.items.map(i, i * 10)', self), [10n, 20n, 30n]);
  assert.deepEqual(ev('self.items.map(i, i > 1, i * 10)', self), [20n, 30n]);
  assert.deepEqual(ev('self.items.filter(i, i % 2 == 1)', self), [1n, 3n]);
  assert.equal(ev("self.all(k, k in ['items', 'name'])", self), true, 'map comprehensions iterate keys');
});

test('strings library', () => {
  assert.equal(ev("'Hello'.lowerAscii() + 'World'.upperAscii()"), 'helloWORLD');
  assert.equal(ev("'ÄÖx'.lowerAscii() + 'äöX'.upperAscii()"), 'ÄÖxäöX', 'ASCII letters only, as cel-go');
  assert.throws(
    () => compileExpression(env, "'a'.lowerAscii(1)"),
    /'string\.lowerAscii\(int\)'/,
    'errors name it as written',
  );
  assert.deepEqual(ev("'a,b,,c'.split(',')"), ['a', 'b', '', 'c']);
  assert.deepEqual(ev("'a,b,c'.split(',', 2)"), ['a', 'b,c']);
  assert.equal(ev("['a', 'b'].join('-')"), 'a-b');
  assert.equal(ev("'  x  '.trim()"), 'x');
  assert.equal(ev("'banana'.indexOf('an')"), 1n);
  assert.equal(ev("'banana'.lastIndexOf('an')"), 3n);
  assert.equal(ev("'banana'.substring(2, 4)"), 'na');
  assert.equal(ev("'héllo'.charAt(1)"), 'é');
  assert.equal(ev("'abc'.charAt(3)"), '');
  assert.match(evError("'abc'.charAt(4)"), /index out of range/);
  assert.equal(ev("'banana'.replace('a', 'o')"), 'bonono');
  assert.equal(ev("'banana'.replace('a', 'o', 2)"), 'bonona');
  assert.equal(ev("'ab'.replace('', '-')"), '-a-b-');
  assert.equal(ev("'ab'.replace('', '-', 2)"), '-a-b');
  assert.equal(ev("'stressed'.reverse()"), 'desserts');
  assert.equal(
    ev("'%s has %d items, %.2f%% full, 0x%x'.format(['cart', 3, 41.456, 255])"),
    'cart has 3 items, 41.46% full, 0xff',
  );
  assert.equal(ev("'%e'.format([1234.5678])"), '1.234568e+03');
  assert.equal(ev("'%s'.format([[1, 'a']])"), '[1, a]');
  assert.match(evError("'%d'.format(['x'])"), /%d expects an integer/);
  assert.equal(ev("'abc'.startsWith('a') && 'abc'.endsWith('c') && 'abc'.contains('b')"), true);
  assert.equal(ev("size('héllo')"), 5n, 'size counts code points');
});

test('lists library', () => {
  assert.equal(ev('[1, 2, 2, 3].isSorted()'), true);
  assert.equal(ev("['b', 'a'].isSorted()"), false);
  assert.equal(ev('[1, 2, 3].sum()'), 6n);
  assert.equal(ev('[1.5, 2.5].sum()'), 4);
  assert.equal(ev('[].sum()'), 0n);
  assert.equal(ev('[3, 1, 2].min()'), 1n);
  assert.equal(ev("['b', 'c', 'a'].max()"), 'c');
  assert.match(evError('[].min()'), /empty list/);
  assert.equal(ev("['a', 'b', 'a'].indexOf('a')"), 0n);
  assert.equal(ev("['a', 'b', 'a'].lastIndexOf('a')"), 2n);
  assert.equal(ev("['a'].indexOf('z')"), -1n);
  assert.equal(ev('self.indexOf(2)', toCelValue([1, 2])), 1n, 'on a dyn list');
  assert.equal(ev("[{'a': 1}].indexOf({'a': 1})"), 0n, 'maps compare by value');
  assert.equal(ev('self.sum()', toCelValue([1, 2])), 3n);
  assert.match(evError('[9223372036854775807, 1].sum()'), /overflow/);
});

test('regex library with RE2 semantics: matches, find, findAll', () => {
  assert.equal(ev("'abc123'.matches('[0-9]+')"), true, 'matches is a search, not anchored');
  assert.equal(ev("matches('abc', '^b')"), false);
  assert.equal(ev("'Hello'.matches('(?i)^hello$')"), true, 'Go flags');
  assert.equal(ev("'abc 123 def 456'.find('[0-9]+')"), '123');
  assert.equal(ev("'abc'.find('[0-9]+')"), '');
  assert.deepEqual(ev("'abc 123 def 456'.findAll('[0-9]+')"), ['123', '456']);
  assert.deepEqual(ev("'a1b2c3'.findAll('[0-9]', 2)"), ['1', '2']);
  // Linear time: a pattern that makes a backtracking engine take exponential time.
  const started = Date.now();
  assert.equal(ev("self.matches('^(a+)+$')", `${'a'.repeat(40)}!`), false);
  assert.ok(Date.now() - started < 1000, 'no catastrophic backtracking');
  // What RE2 refuses is refused: at compile time for constant patterns, at run time otherwise.
  assert.throws(() => compileExpression(env, "'x'.matches('(?=x)')"), CelCompileError);
  assert.match(evError("'x'.matches(self)", '(?<=a)b'), /invalid regular expression/);
});

test('optional types: .?field, orValue, optional.of/none', () => {
  const self = toCelValue({ a: { b: 1 } });
  assert.equal(ev('self.?a.?b.orValue(0)', self), 1n);
  assert.equal(ev('self.?x.?b.orValue(0)', self), 0n);
  assert.equal(ev('optional.of(2).value() + optional.none().orValue(1)'), 3n);
  const opt = celEnvironment(['self', ['oldSelf', 'optional<dyn>']]);
  const rule = compileExpression(opt, '!oldSelf.hasValue() || self >= oldSelf.value()');
  assert.equal(rule.evaluate({ self: 1n, oldSelf: Optional.none() }), true);
  assert.equal(rule.evaluate({ self: 1n, oldSelf: Optional.of(2n) }), false);
});

test('compile errors: syntax, unknown functions and variables', () => {
  assert.throws(() => compileExpression(env, 'self.a >'), CelCompileError);
  assert.throws(() => compileExpression(env, 'self.a.noSuchFunction()'), /no matching overload/);
  assert.throws(() => compileExpression(env, 'other == 1'), CelCompileError);
  assert.throws(() => compileExpression(env, "'a' + 1"), CelCompileError);
});

test('runtime errors: no such key, overflow, division by zero, error absorption by || and &&', () => {
  const self = toCelValue({ a: 1 });
  assert.match(evError('self.b == 1', self), /No such key: b/i);
  assert.match(evError('9223372036854775807 + self.a', self), /overflow/);
  assert.match(evError('self.a / 0', self), /division by zero/);
  assert.equal(ev('self.b == 1 || true', self), true);
  assert.equal(ev('false && self.b == 1', self), false);
});

test('JSON values typed per schema', () => {
  // integer → int, number → double (even when integral), date-time → timestamp, duration → duration.
  const schema = {
    type: 'object' as const,
    properties: {
      i: { type: 'integer' as const },
      n: { type: 'number' as const },
      t: { type: 'string' as const, format: 'date-time' },
      d: { type: 'string' as const, format: 'duration' },
      b: { type: 'string' as const, format: 'byte' },
      m: { type: 'object' as const, additionalProperties: { type: 'number' as const } },
    },
  };
  const self = toCelValue(
    { i: 3, n: 3, t: '2024-05-01T10:00:00Z', d: '90m', b: 'aGk=', m: { x: 1 } },
    schema,
  );
  assert.equal(ev('type(self.i) == int && type(self.n) == double && type(self.m.x) == double', self), true);
  assert.equal(ev("self.t > timestamp('2024-01-01T00:00:00Z') && self.t.getFullYear() == 2024", self), true);
  assert.equal(ev("self.d == duration('1h30m') && self.d > duration('1h')", self), true);
  assert.equal(ev("self.b == b'hi'", self), true);
  // Without a schema, as Go's JSON decoder: integral numbers are int, others double.
  const untyped = toCelValue({ i: 3, f: 1.5, s: 'x', l: [true, null], o: {} });
  assert.equal(
    ev(
      'type(self.i) == int && type(self.f) == double && type(self.s) == string && self.l[1] == null && self.o == {}',
      untyped,
    ),
    true,
  );
  assert.deepEqual(fromCelValue(untyped), { i: 3n, f: 1.5, s: 'x', l: [true, null], o: {} });
  assert.equal(celValueSize(untyped), 8);
});

test('cost guard: nested comprehensions over large inputs are refused before they run', () => {
  const nested = compileExpression(env, 'self.all(a, self.all(b, a == b || a != b))');
  assert.equal(nested.depth, 2);
  const small = toCelValue(Array.from({ length: 100 }, (_, i) => i));
  assert.deepEqual(runExpression(nested, { self: small }, celValueSize(small)), { ok: true, value: true });
  const large = toCelValue(Array.from({ length: 1500 }, (_, i) => i));
  assert.deepEqual(runExpression(nested, { self: large }, celValueSize(large)), {
    ok: false,
    error: 'operation cancelled: actual cost limit exceeded',
  });
  const flat = compileExpression(env, 'self.all(a, a >= 0)');
  assert.equal(flat.depth, 1);
  assert.deepEqual(runExpression(flat, { self: large }, celValueSize(large)), { ok: true, value: true });
});

test('quantity library: exact arithmetic and comparison of resource quantities', () => {
  assert.equal(ev("quantity('1Gi').compareTo(quantity('1073741824'))"), 0n);
  assert.equal(ev("quantity('1Gi').isGreaterThan(quantity('1073741823'))"), true);
  assert.equal(ev("quantity('500m').isLessThan(quantity('1'))"), true);
  assert.equal(ev("quantity('500m').add(quantity('0.5')) == quantity('1')"), true);
  assert.equal(ev("quantity('1Mi').sub(1).asInteger()"), 1048575n);
  assert.equal(ev("quantity('2k').add(3).asInteger()"), 2003n);
  assert.equal(ev("quantity('1e3').asInteger()"), 1000n);
  assert.equal(ev("quantity('1.5').isInteger()"), false);
  assert.equal(ev("quantity('250m').asApproximateFloat()"), 0.25);
  assert.equal(ev("quantity('-1').sign()"), -1n);
  assert.equal(ev("quantity('100n') == quantity('0.0000001')"), true);
  assert.equal(ev("isQuantity('1.5Gi') && !isQuantity('1.2.3') && !isQuantity('5Qi')"), true);
  assert.match(evError("quantity('1.5').asInteger()"), /cannot convert value to integer/);
  assert.match(evError("quantity('lots')"), /quantities must match/);
  assert.equal(ev("quantity(self).isLessThan(quantity('4Gi'))", '2Gi'), true);
});

test('url library, as Go url.ParseRequestURI reads a URL', () => {
  assert.equal(ev("url('https://user@example.com:8443/a/b?x=1').getHost()"), 'example.com:8443');
  assert.equal(ev("url('https://example.com:8443/').getHostname()"), 'example.com');
  assert.equal(ev("url('https://example.com:443/').getPort()"), '443');
  assert.equal(ev("url('https://example.com/').getPort()"), '');
  assert.equal(ev("url('https://[::1]:80/x').getHostname()"), '::1');
  assert.equal(ev("url('https://e.com/a%20b').getEscapedPath()"), '/a%20b');
  assert.equal(ev("url('/path?a=b').getScheme()"), '');
  assert.deepEqual(ev("url('https://e.com/?x=1&x=2&y=3').getQuery()"), { x: ['1', '2'], y: ['3'] });
  assert.equal(
    ev("isURL('https://example.com') && isURL('/relative/path') && !isURL('example.com') && !isURL('a b')"),
    true,
  );
  assert.match(evError("url('example.com')"), /URL parse error/);
});

test('ip and cidr libraries, as Go netip parses and prints addresses', () => {
  assert.equal(ev("isIP('10.0.0.1') && isIP('2001:db8::1')"), true);
  assert.equal(ev("isIP('010.0.0.1') || isIP('::ffff:1.2.3.4') || isIP('fe80::1%eth0') || isIP('x')"), false);
  assert.equal(ev("ip('10.0.0.1').family() == 4 && ip('::1').family() == 6"), true);
  assert.equal(ev("string(ip('2001:0DB8:0:0:0:0:0:1'))"), '2001:db8::1');
  assert.equal(ev("string(ip('1:0:0:1:0:0:0:1'))"), '1:0:0:1::1');
  assert.equal(ev("ip.isCanonical('2001:db8::1') && !ip.isCanonical('2001:DB8::1')"), true);
  assert.equal(
    ev("ip('127.0.0.1').isLoopback() && ip('::1').isLoopback() && ip('0.0.0.0').isUnspecified()"),
    true,
  );
  assert.equal(ev("ip('169.254.1.1').isLinkLocalUnicast() && ip('fe80::1').isLinkLocalUnicast()"), true);
  assert.equal(ev("ip('224.0.0.1').isLinkLocalMulticast() && ip('ff02::1').isLinkLocalMulticast()"), true);
  assert.equal(ev("ip('8.8.8.8').isGlobalUnicast() && !ip('127.0.0.1').isGlobalUnicast()"), true);
  assert.equal(
    ev("cidr('10.0.0.0/8').containsIP('10.1.2.3') && !cidr('10.0.0.0/8').containsIP(ip('11.0.0.1'))"),
    true,
  );
  assert.equal(
    ev("cidr('10.0.0.0/8').containsCIDR('10.1.0.0/16') && !cidr('10.1.0.0/16').containsCIDR('10.0.0.0/8')"),
    true,
  );
  assert.equal(ev("string(cidr('10.1.2.3/8').masked())"), '10.0.0.0/8');
  assert.equal(
    ev("cidr('10.1.2.3/8').prefixLength() == 8 && cidr('10.1.2.3/8').ip() == ip('10.1.2.3')"),
    true,
  );
  assert.equal(ev("cidr('2001:db8::/32').containsIP('2001:db8:1::1') && isCIDR('::/0')"), true);
  assert.equal(ev("isCIDR('10.0.0.0/33') || isCIDR('10.0.0.0')"), false);
  assert.match(evError("ip('x')"), /parse error/);
});
