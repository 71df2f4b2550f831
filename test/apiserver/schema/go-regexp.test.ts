import assert from 'node:assert/strict';
import { test } from 'node:test';
import { compileGoRegexp, GoRegexpError, goRegexpMatches } from '../../../src/apiserver/schema/go-regexp.ts';

test('RE2 syntax is understood as Go understands it', () => {
  const cases: [string, string, boolean][] = [
    ['^[a-z0-9]([-a-z0-9]*[a-z0-9])?$', 'node-1', true],
    ['(?i)^abc$', 'ABC', true],
    ['a(?i)b', 'aB', true],
    ['a(?i)b', 'AB', false],
    ['\\Afoo\\z', 'foo', true],
    ['\\Afoo\\z', 'foo\n', false],
    ['^[[:alpha:][:digit:]_]+$', 'a_1', true],
    ['^\\pL\\p{Lu}\\PN\\p{^Greek}$', 'aBcd', true],
    ['^(?P<major>\\d+)$', '42', true],
    ['^\\x{1F600}\\x41$', '😀A', true],
    ['^a{$', 'a{', true],
    ['^[]a]+$', ']a', true],
    ['^\\Q1.5*\\E$', '1.5*', true],
    ['^\\Q1.5*\\E$', '115', false],
    ['^\\a\\012$', '\x07\n', true],
    ['(?U)^a+', 'aaa', true],
  ];
  for (const [pattern, value, want] of cases)
    assert.equal(goRegexpMatches(pattern, value), want, `${pattern} ~ ${JSON.stringify(value)}`);
});

test('what RE2 rejects is rejected with Go-like messages', () => {
  const cases: [string, string][] = [
    ['(?=a)', 'error parsing regexp: invalid or unsupported Perl syntax: `(?=`'],
    ['(a)\\1', 'error parsing regexp: invalid escape sequence: `\\1`'],
    ['\\k<x>', 'error parsing regexp: invalid escape sequence: `\\k`'],
    ['(abc', 'error parsing regexp: missing closing ): `(abc`'],
    ['abc)', 'error parsing regexp: unexpected ): `abc)`'],
    ['[abc', 'error parsing regexp: missing closing ]: `[abc`'],
    ['abc\\', 'error parsing regexp: trailing backslash at end of expression: ``'],
    ['a{1001}', 'error parsing regexp: invalid repeat count: `{1001}`'],
    ['a**', 'error parsing regexp: invalid nested repetition operator: `**`'],
    ['\\C', 'error parsing regexp: invalid escape sequence: `\\C`'],
  ];
  for (const [go, message] of cases) {
    assert.throws(
      () => compileGoRegexp(go),
      (err: unknown) => err instanceof GoRegexpError && err.message === message,
      go,
    );
  }
  assert.throws(() => compileGoRegexp('(?<!a)b'), GoRegexpError);
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

// Nested quantifiers are the classic catastrophic-backtracking shape. The result is what RE2 says
// (no match: the input ends in 'b'); how long it takes is measured in bench/, not asserted here.
test('nested quantifiers match with RE2 semantics on long input', () => {
  assert.equal(goRegexpMatches('^(a+)+$', `${'a'.repeat(10_000)}b`), false);
  assert.equal(goRegexpMatches('^(a+)+$', 'a'.repeat(10_000)), true);
  assert.equal(goRegexpMatches('^(a|aa)+$', `${'a'.repeat(10_000)}!`), false);
});
