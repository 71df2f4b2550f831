// Boolean query parameters against apimachinery's documented rules (pkg/runtime/conversion.go,
// Convert_Slice_string_To_bool): "Only the absence of a value (i.e. zero-length slice), a value of
// "false", or a value of "0" resolve to false. Any other value (including empty string) resolves to
// true." — the first value counts. `pretty` follows apiserver's isPrettyPrint (strconv.ParseBool, then
// the User-Agent).

import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  parseGoBool,
  prettyPrintRequested,
  queryBool,
  queryOptionalBool,
} from '../../../src/apiserver/http/query-params.ts';

const cases: [query: string, expected: boolean | undefined][] = [
  ['', undefined],
  ['watch=true', true],
  ['watch=True', true], // what the Python client sends
  ['watch=TRUE', true],
  ['watch=1', true],
  ['watch=yes', true],
  ['watch=', true],
  ['watch', true],
  ['watch=2', true],
  ['watch=false', false],
  ['watch=False', false],
  ['watch=FALSE', false],
  ['watch=fAlSe', false],
  ['watch=0', false],
  ['watch=00', true],
  ['watch=f', true],
  ['watch=false&watch=true', false],
  ['watch=true&watch=false', true],
  ['other=false', undefined],
];

for (const [query, expected] of cases) {
  test(`?${query} → watch ${expected === undefined ? 'unset (false)' : expected}`, () => {
    const params = new URLSearchParams(query);
    assert.equal(queryOptionalBool(params, 'watch'), expected);
    assert.equal(queryBool(params, 'watch'), expected ?? false);
  });
}

test("Go's strconv.ParseBool accepts exactly its twelve spellings", () => {
  for (const v of ['1', 't', 'T', 'TRUE', 'true', 'True']) assert.equal(parseGoBool(v), true, v);
  for (const v of ['0', 'f', 'F', 'FALSE', 'false', 'False']) assert.equal(parseGoBool(v), false, v);
  for (const v of ['', 'yes', 'tRuE', '2', 'on']) assert.equal(parseGoBool(v), undefined, v);
});

test('pretty: the parameter decides when non-empty, else the User-Agent', () => {
  const p = (q: string, ua?: string) => prettyPrintRequested(new URLSearchParams(q), ua);
  assert.equal(p('pretty=true'), true);
  assert.equal(p('pretty=1'), true);
  assert.equal(p('pretty=T'), true);
  assert.equal(p('pretty=yes'), false, 'ParseBool fails: not pretty');
  assert.equal(p('pretty=false', 'curl/8.5.0'), false, 'the parameter wins over the agent');
  assert.equal(p('pretty=', 'curl/8.5.0'), true, 'empty falls through to the agent');
  assert.equal(p('', 'curl/8.5.0'), true);
  assert.equal(p('', 'Wget/1.21'), true);
  assert.equal(p('', 'Mozilla/5.0 (X11; Linux x86_64)'), true);
  assert.equal(p('', 'kubectl/v1.32.0 (linux/amd64) kubernetes/abc'), false);
  assert.equal(p('', 'OpenAPI-Generator/22.6.0/python'), false);
  assert.equal(p(''), false);
});
