// The ICU-free formatters give exactly what V8's Date formatters give, across eras and edge instants.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { kubeTime, microTime } from '../../src/util/kube-time.ts';
import { httpDate, isoTime } from '../../src/util/utc-time.ts';

const instants = [
  0,
  -1,
  1,
  951_782_400_000, // 2000-02-29
  Date.UTC(2026, 10, 21, 6, 0, 0, 123),
  Date.UTC(2024, 11, 31, 23, 59, 59, 999),
  Date.UTC(1969, 11, 31, 23, 59, 59, 1),
  Date.UTC(9999, 11, 31, 23, 59, 59, 999),
  -62_198_755_200_000, // 0000-01-01
  -62_198_755_200_001, // -000001-12-31: expanded year
  253_402_300_800_000, // +010000-01-01: expanded year
  8.64e15,
  -8.64e15,
];

test('isoTime and httpDate match toISOString and toUTCString', () => {
  for (let i = 0; i < 2000; i++) instants.push(Math.floor((Math.random() - 0.3) * 4e12));
  for (const ms of instants) {
    assert.equal(isoTime(ms), new Date(ms).toISOString(), `isoTime(${ms})`);
    assert.equal(httpDate(ms), new Date(ms).toUTCString(), `httpDate(${ms})`);
  }
});

test('an invalid time throws the RangeError toISOString throws', () => {
  assert.throws(() => isoTime(Number.NaN), RangeError);
  assert.throws(() => isoTime(8.64e15 + 1), RangeError);
  assert.throws(() => httpDate(Number.NaN), RangeError);
});

test('metav1.Time drops the milliseconds; metav1.MicroTime pads them to microseconds', () => {
  const ms = Date.UTC(2026, 10, 21, 6, 0, 5, 789);
  assert.equal(kubeTime(ms), '2026-11-21T06:00:05Z');
  assert.equal(microTime(ms), '2026-11-21T06:00:05.789000Z');
  assert.equal(kubeTime(-1), '1969-12-31T23:59:59Z');
});
