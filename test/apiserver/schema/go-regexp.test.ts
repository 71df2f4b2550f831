import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  compileGoRegexp,
  GoRegexpError,
  goRegexpMatches,
  translateGoRegexp,
} from '../../../src/apiserver/schema/go-regexp.ts';

test('RE2 syntax translates to equivalent ECMAScript', () => {
  const cases: [string, string, string][] = [
    ['^[a-z0-9]([-a-z0-9]*[a-z0-9])?$', '^[a-z0-9]([-a-z0-9]*[a-z0-9])?$', 'u'],
    ['(?i)^abc$', '^abc$', 'iu'],
    ['a(?i)b', 'a(?i:b)', 'u'],
    ['(x(?s)y)z', '(x(?s:y))z', 'u'],
    ['\\Afoo\\z', '(?<![\\s\\S])foo(?![\\s\\S])', 'u'],
    ['[[:alpha:][:digit:]_]+', '[A-Za-z0-9_]+', 'u'],
    ['\\pL\\p{Lu}\\PN\\p{^Greek}', '\\p{L}\\p{Lu}\\P{N}\\P{Script=Greek}', 'u'],
    ['(?P<major>\\d+)', '(?<major>\\d+)', 'u'],
    ['\\x{1F600}\\x41', '\\u{1F600}\\x41', 'u'],
    ['a{', 'a\\{', 'u'],
    ['[]a]', '[\\]a]', 'u'],
    ['\\-\\_\\:', '-_:', 'u'],
    ['[\\-\\.]', '[\\-\\.]', 'u'],
    ['\\Q1.5*\\E', '1\\.5\\*', 'u'],
    ['\\a\\012', '\\x07\\u{a}', 'u'],
  ];
  for (const [go, source, flags] of cases) assert.deepEqual(translateGoRegexp(go), { source, flags }, go);
});

test('what RE2 rejects is rejected with Go-like messages', () => {
  const cases: [string, string][] = [
    ['(?=a)', 'error parsing regexp: invalid or unsupported Perl syntax: `(?=`'],
    ['(?<!a)b', 'error parsing regexp: invalid or unsupported Perl syntax: `(?<`'],
    ['(a)\\1', 'error parsing regexp: invalid escape sequence: `\\1`'],
    ['\\k<x>', 'error parsing regexp: invalid escape sequence: `\\k`'],
    ['(abc', 'error parsing regexp: missing closing ): `(abc`'],
    ['abc)', 'error parsing regexp: unexpected ): `abc)`'],
    ['[abc', 'error parsing regexp: missing closing ]: `[abc`'],
    ['abc\\', 'error parsing regexp: trailing backslash at end of expression: ``'],
    ['a{1001}', 'error parsing regexp: invalid repeat count: `{1001}`'],
    ['(?U)a+', 'error parsing regexp: invalid or unsupported Perl syntax: `(?U`'],
  ];
  for (const [go, message] of cases) {
    assert.throws(
      () => compileGoRegexp(go),
      (err: unknown) => err instanceof GoRegexpError && err.message === message,
      go,
    );
  }
  assert.throws(() => compileGoRegexp('a**'), GoRegexpError);
});

test('matching is an unanchored search, like regexp.MatchString', () => {
  const cases: [string, string, boolean][] = [
    ['^/', '/etc/motd', true],
    ['^/', 'etc/motd', false],
    ['\\.service$', 'nodeherd-agent.service', true],
    ['ab', 'xxabxx', true],
    ['(?i)^READY$', 'ready', true],
    ['^\\p{Lu}', 'Émile', true],
    ['^\\d+%$', '25%', true],
    ['^\\d+%$', '25', false],
    ['^a.c$', 'a\nc', false],
    ['(?s)^a.c$', 'a\nc', true],
  ];
  for (const [pattern, value, want] of cases)
    assert.equal(goRegexpMatches(pattern, value), want, `${pattern} ~ ${value}`);
});
