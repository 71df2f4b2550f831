// Decoding of built-in kinds as kube's JSON decoder does it: Go's base64 verdicts (byte offsets of
// encoding/base64's CorruptInputError), time normalisation and Secret stringData merging.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ApiError } from '../../../src/apiserver/errors.ts';
import { builtinResources, decodeBuiltin } from '../../../src/apiserver/kinds/registration.ts';
import { base64ErrorOffset } from '../../../src/apiserver/schema/builtin-decoding.ts';

const defs = builtinResources();
const def = (group: string, resource: string) =>
  defs.find((d) => d.group === group && d.resource === resource)!;

const base64Cases: [input: string, offset: number][] = [
  ['', -1],
  ['aGVsbG8=', -1],
  ['aGVsbA==', -1],
  ['aGVs', -1],
  ['aGVs\nbG8=', -1], // newlines are skipped
  ['not base64!', 3],
  ['abc', 0],
  ['abcde', 4],
  ['ab=c', 2],
  ['ab=', 3],
  ['a===', 1],
  ['=abc', 0],
  ['aGVsbA==x', 8],
  ['aGVs-_', 4], // URL-safe alphabet is not StdEncoding
];

for (const [input, offset] of base64Cases) {
  test(`base64 ${JSON.stringify(input)} → ${offset < 0 ? 'valid' : `illegal at byte ${offset}`}`, () => {
    assert.equal(base64ErrorOffset(input), offset);
  });
}

test('times of a Pod are normalised in place; a bad one is a 400 naming the kind', () => {
  const pod = {
    metadata: { name: 'p' },
    status: {
      startTime: '2026-11-25T13:00:00.9+01:00',
      containerStatuses: [{ name: 'c', state: { running: { startedAt: '2026-11-25T12:00:01Z' } } }],
      conditions: [{ type: 'Ready', lastProbeTime: null, lastTransitionTime: '2026-11-25T12:00:00Z' }],
    },
  };
  decodeBuiltin(def('', 'pods'), pod);
  assert.equal(pod.status.startTime, '2026-11-25T12:00:00Z');
  assert.equal('lastProbeTime' in pod.status.conditions[0]!, false);
  const bad = {
    metadata: { name: 'n' },
    spec: { taints: [{ key: 'k', effect: 'NoSchedule', timeAdded: 'yesterday' }] },
  };
  assert.throws(
    () => decodeBuiltin(def('', 'nodes'), bad),
    (err: unknown) =>
      err instanceof ApiError &&
      err.code === 400 &&
      err.message ===
        'Node in version "v1" cannot be handled as a Node: parsing time "yesterday" as "2006-01-02T15:04:05Z07:00": cannot parse "yesterday" as "2006"',
  );
});

test('Secret stringData wins over data and is dropped; an empty stringData is dropped too', () => {
  const secret: Record<string, any> = { data: { a: 'b2xk' }, stringData: { a: 'new' } };
  decodeBuiltin(def('', 'secrets'), secret);
  assert.deepEqual(secret, { data: { a: Buffer.from('new').toString('base64') } });
  const empty: Record<string, any> = { stringData: {} };
  decodeBuiltin(def('', 'secrets'), empty);
  assert.deepEqual(empty, {});
});

test('custom-resource-like kinds outside the table are left alone', () => {
  const cr = { metadata: { name: 'x' }, spec: { when: 'not a time' } };
  decodeBuiltin(def('apps', 'controllerrevisions'), cr);
  assert.equal(cr.spec.when, 'not a time');
});
