import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ageOf, humanDuration } from '../../../src/apiserver/schema/human-duration.ts';

const s = 1000;
const m = 60 * s;
const h = 60 * m;
const d = 24 * h;

test('humanDuration keeps two or three significant figures like apimachinery', () => {
  const cases: [number, string][] = [
    [-5 * s, '<invalid>'],
    [-1500, '0s'],
    [0, '0s'],
    [119 * s, '119s'],
    [2 * m, '2m'],
    [5 * m + 30 * s, '5m30s'],
    [10 * m + 30 * s, '10m'],
    [179 * m, '179m'],
    [3 * h, '3h'],
    [3 * h + 15 * m, '3h15m'],
    [8 * h + 15 * m, '8h'],
    [47 * h, '47h'],
    [2 * d, '2d'],
    [3 * d + 4 * h, '3d4h'],
    [8 * d, '8d'],
    [729 * d, '729d'],
    [2 * 365 * d + 10 * d, '2y10d'],
    [9 * 365 * d, '9y'],
  ];
  for (const [ms, want] of cases) assert.equal(humanDuration(ms), want, String(ms));
});

test('ageOf reads RFC 3339 timestamps', () => {
  const now = Date.parse('2024-05-01T12:00:00Z');
  assert.equal(ageOf('2024-05-01T11:55:00Z', now), '5m');
  assert.equal(ageOf('2024-05-01T13:55:00.000+02:00', now), '5m');
  assert.equal(ageOf('', now), '<unknown>');
  assert.equal(ageOf('yesterday', now), '<invalid>');
});
