// YAML bounded by what it expands to (the API server's request bodies and apply patches).

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parseBoundedYaml, YamlExpansionError } from '../../src/util/bounded-yaml.ts';

test('a document within the limit parses as YAML 1.1, aliases included', () => {
  const value = parseBoundedYaml('a: &x {mode: 0644}\nb: *x\nc: yes\n', 1000);
  assert.deepEqual(value, { a: { mode: 420 }, b: { mode: 420 }, c: true });
});

test('a large scalar repeated by aliases is refused before it is expanded', () => {
  const big = 'x'.repeat(100_000);
  const aliases = Array.from({ length: 99 }, (_, i) => `k${i}: *big`).join('\n');
  const text = `a: &big ${big}\n${aliases}\n`;
  // 200 KB read, 10 MB expanded.
  assert.throws(() => parseBoundedYaml(text, 3 * 1024 * 1024), YamlExpansionError);
  assert.equal((parseBoundedYaml(`a: &big ${big}\nb: *big\n`, 3 * 1024 * 1024) as { b: string }).b, big);
});

test('nested aliases (a billion laughs) are refused, each node counted once', () => {
  const lines = ['a0: &a0 [lol, lol, lol, lol, lol, lol, lol, lol, lol]'];
  for (let i = 1; i < 9; i++) {
    const refs = Array.from({ length: 9 }, () => `*a${i - 1}`).join(', ');
    lines.push(`a${i}: &a${i} [${refs}]`);
  }
  assert.throws(() => parseBoundedYaml(lines.join('\n'), 3 * 1024 * 1024), YamlExpansionError);
});

test('bad YAML is the parser’s error', () => {
  assert.throws(
    () => parseBoundedYaml('a: [1, 2', 1000),
    (err: Error) => !(err instanceof YamlExpansionError),
  );
});
