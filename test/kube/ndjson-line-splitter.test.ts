import assert from 'node:assert/strict';
import { test } from 'node:test';
import { LineTooLongError, NdjsonLineSplitter } from '../../src/kube/ndjson-line-splitter.ts';

function collect(maxLineBytes?: number): { lines: string[]; splitter: NdjsonLineSplitter } {
  const lines: string[] = [];
  return { lines, splitter: new NdjsonLineSplitter((line) => lines.push(line), maxLineBytes) };
}

test('several lines in one chunk come out one by one; blank lines and CRLF endings are tolerated', () => {
  const { lines, splitter } = collect();
  splitter.push(Buffer.from('{"a":1}\n\n{"b":2}\r\n{"c"'));
  assert.deepEqual(lines, ['{"a":1}', '{"b":2}']);
  splitter.push(Buffer.from(':3}\n'));
  assert.deepEqual(lines, ['{"a":1}', '{"b":2}', '{"c":3}']);
  assert.equal(splitter.end(), undefined);
});

test('a line split at every possible byte boundary comes out whole', () => {
  const text = '{"type":"ADDED","object":{"x":"héllo wörld ✓ 𝄞"}}\n';
  const bytes = Buffer.from(text);
  for (let cut = 1; cut < bytes.length; cut++) {
    const { lines, splitter } = collect();
    splitter.push(bytes.subarray(0, cut));
    splitter.push(bytes.subarray(cut));
    assert.deepEqual(lines, [text.trimEnd()], `cut at byte ${cut}`);
  }
});

test('multi-byte characters fed one byte at a time decode intact', () => {
  const text = '{"name":"ünïcødé-ノード-🚀"}';
  const { lines, splitter } = collect();
  for (const byte of Buffer.from(`${text}\n${text}\n`)) splitter.push(Buffer.from([byte]));
  assert.deepEqual(lines, [text, text]);
});

test('a very large line arriving in many chunks is joined once and exactly', () => {
  const payload = 'x'.repeat(8 * 1024 * 1024);
  const line = JSON.stringify({ type: 'MODIFIED', object: { data: payload } });
  const bytes = Buffer.from(`${line}\n{"small":true}\n`);
  const { lines, splitter } = collect();
  const started = performance.now();
  for (let offset = 0; offset < bytes.length; offset += 16 * 1024) {
    splitter.push(bytes.subarray(offset, offset + 16 * 1024));
  }
  const elapsedMs = performance.now() - started;
  assert.equal(lines.length, 2);
  assert.equal(lines[0], line);
  assert.equal(lines[1], '{"small":true}');
  // Quadratic re-concatenation of 512 chunks of an 8 MiB line would take seconds.
  assert.ok(elapsedMs < 2000, `took ${elapsedMs} ms`);
});

test('the unterminated tail is handed back by end(), not emitted', () => {
  const { lines, splitter } = collect();
  splitter.push(Buffer.from('{"a":1}\n{"trunc'));
  assert.deepEqual(lines, ['{"a":1}']);
  assert.equal(splitter.bufferedBytes, 7);
  assert.equal(splitter.end(), '{"trunc');
  assert.equal(splitter.bufferedBytes, 0);
});

test('a line beyond the limit is refused, whether it arrives whole or in pieces', () => {
  const whole = collect(10);
  assert.throws(() => whole.splitter.push(Buffer.from('01234567890\n')), LineTooLongError);
  const pieces = collect(10);
  pieces.splitter.push(Buffer.from('012345'));
  assert.throws(() => pieces.splitter.push(Buffer.from('67890')), LineTooLongError);
  const exact = collect(10);
  exact.splitter.push(Buffer.from('0123456789\n'));
  assert.deepEqual(exact.lines, ['0123456789']);
});
