import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { CronError, cronMatches, parseCron, type WallClock } from '../../src/api/cron.ts';
import { parseDuration } from '../../src/api/duration.ts';

const at = (
  minute: number,
  hour: number,
  dayOfMonth: number,
  month: number,
  dayOfWeek: number,
): WallClock => ({
  minute,
  hour,
  dayOfMonth,
  month,
  dayOfWeek,
});

describe('parseCron', () => {
  const fields: [string, keyof ReturnType<typeof parseCron>, number[]][] = [
    ['*/15 * * * *', 'minutes', [0, 15, 30, 45]],
    ['5/20 * * * *', 'minutes', [5, 25, 45]],
    ['0 1-3,22 * * *', 'hours', [1, 2, 3, 22]],
    ['0 0 1-10/3 * *', 'daysOfMonth', [1, 4, 7, 10]],
    ['0 0 * jan,Mar-apr *', 'months', [1, 3, 4]],
    ['0 0 * * mon-fri', 'daysOfWeek', [1, 2, 3, 4, 5]],
    ['0 0 * * 5-7', 'daysOfWeek', [0, 5, 6]],
    ['@weekly', 'daysOfWeek', [0]],
    ['@hourly', 'minutes', [0]],
  ];
  for (const [expr, field, expected] of fields) {
    test(`${expr} → ${field} ${expected.join(',')}`, () => {
      assert.deepEqual(
        [...(parseCron(expr)[field] as Set<number>)].sort((a, b) => a - b),
        expected,
      );
    });
  }

  const invalid: [string, RegExp][] = [
    ['* * * *', /expected 5 fields, got 4/],
    ['60 * * * *', /minute: 60 is outside 0-59/],
    ['* 24 * * *', /hour: 24 is outside 0-23/],
    ['* * 0 * *', /day of month: 0 is outside 1-31/],
    ['* * * 13 *', /month: 13 is outside 1-12/],
    ['* * * * 8', /day of week: 8 is outside 0-7/],
    ['*/0 * * * *', /step "0" must be a positive number/],
    ['5-1 * * * *', /runs backwards/],
    ['a * * * *', /is not a number/],
    ['1,,2 * * * *', /is malformed/],
    ['@sometimes', /unknown macro/],
  ];
  for (const [expr, message] of invalid) {
    test(`refuses ${JSON.stringify(expr)}`, () => {
      assert.throws(
        () => parseCron(expr),
        (err: unknown) => err instanceof CronError && message.test(err.message),
      );
    });
  }
});

describe('cronMatches', () => {
  const cases: [string, WallClock, boolean][] = [
    ['0 2 * * *', at(0, 2, 15, 6, 3), true],
    ['0 2 * * *', at(1, 2, 15, 6, 3), false],
    ['0 2 * * sat,sun', at(0, 2, 15, 6, 6), true],
    ['0 2 * * sat,sun', at(0, 2, 15, 6, 3), false],
    // Vixie cron: both day fields restricted → either matches.
    ['0 0 1 * mon', at(0, 0, 1, 6, 3), true],
    ['0 0 1 * mon', at(0, 0, 9, 6, 1), true],
    ['0 0 1 * mon', at(0, 0, 9, 6, 2), false],
    // `*/2` counts as unrestricted for the either-day rule (as in Vixie cron), yet still filters weekdays.
    ['0 0 * * */2', at(0, 0, 9, 6, 2), true],
    ['0 0 * * */2', at(0, 0, 9, 6, 1), false],
  ];
  for (const [expr, when, expected] of cases) {
    test(`${expr} at ${JSON.stringify(when)} → ${expected}`, () =>
      assert.equal(cronMatches(parseCron(expr), when), expected));
  }
});

describe('parseDuration', () => {
  const cases: [string, number | undefined][] = [
    ['90m', 90 * 60_000],
    ['1h30m', 90 * 60_000],
    ['1.5h', 90 * 60_000],
    ['45s', 45_000],
    ['250ms', 250],
    ['2h0m10s', 7_210_000],
    ['60', undefined],
    ['h', undefined],
    ['1d', undefined],
    ['-1h', undefined],
    ['', undefined],
  ];
  for (const [text, ms] of cases)
    test(`${JSON.stringify(text)} → ${ms}`, () => assert.equal(parseDuration(text), ms));
});
