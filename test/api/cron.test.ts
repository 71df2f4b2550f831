import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { CronError, type CronSchedule, parseCron } from '../../src/api/cron.ts';
import { cronEverFires, cronerPattern, cronTimes } from '../../src/api/cron-times.ts';
import { parseDuration } from '../../src/api/duration.ts';

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

describe('cronTimes: when a schedule fires (UTC)', () => {
  const fires = (expr: string, iso: string) => {
    const ms = Date.parse(iso);
    return cronTimes(expr, 'UTC').next(ms - 1) === ms;
  };
  const cases: [string, string, boolean][] = [
    ['0 2 * * *', '2022-06-15T02:00:00Z', true],
    ['0 2 * * *', '2022-06-15T02:01:00Z', false],
    ['0 2 * * sat,sun', '2022-06-18T02:00:00Z', true], // Saturday
    ['0 2 * * sat,sun', '2022-06-15T02:00:00Z', false], // Wednesday
    // Vixie cron: both day fields restricted → either matches.
    ['0 0 1 * mon', '2022-06-01T00:00:00Z', true], // the 1st, a Wednesday
    ['0 0 1 * mon', '2022-06-13T00:00:00Z', true], // a Monday
    ['0 0 1 * mon', '2022-06-14T00:00:00Z', false],
    // `*/2` counts as unrestricted for the either-day rule (as in Vixie cron), yet still filters weekdays.
    ['0 0 * * */2', '2022-06-14T00:00:00Z', true], // Tuesday (2)
    ['0 0 * * */2', '2022-06-13T00:00:00Z', false], // Monday (1)
    ['0 0 */2 * mon', '2022-06-13T00:00:00Z', true], // an odd day and a Monday
    ['0 0 */2 * mon', '2022-06-20T00:00:00Z', false], // a Monday, an even day
    ['0 0 */2 * mon', '2022-06-15T00:00:00Z', false], // an odd day, a Wednesday
    ['5/20 * * * *', '2022-06-15T07:45:00Z', true],
    ['0 0 * * 7', '2022-06-19T00:00:00Z', true], // 7 is Sunday too
    ['0 0 * jan,Mar-apr *', '2022-04-30T00:00:00Z', true],
    ['0 0 * jan,Mar-apr *', '2022-05-01T00:00:00Z', false],
  ];
  for (const [expr, when, expected] of cases) {
    test(`${expr} at ${when} → ${expected}`, () => assert.equal(fires(expr, when), expected));
  }

  test("the Vixie either-day rule maps to croner's `+` (both) only where croner would differ", () => {
    assert.equal(cronerPattern('0 0 */2 * mon'), '0 0 */2 * +mon');
    assert.equal(cronerPattern('0 0 1 * mon'), '0 0 1 * mon');
    assert.equal(cronerPattern('0 0 * * */2'), '0 0 * * */2');
    assert.equal(cronerPattern('@monthly'), '0 0 1 * *');
  });

  // Every firing over three years matches the fields cron.ts parsed, and no matching minute is skipped
  // between two firings: the grammar that validation accepts and the times the controller computes agree.
  const matches = (s: CronSchedule, d: Date) => {
    if (!s.minutes.has(d.getUTCMinutes()) || !s.hours.has(d.getUTCHours())) return false;
    if (!s.months.has(d.getUTCMonth() + 1)) return false;
    const dom = s.daysOfMonth.has(d.getUTCDate());
    const dow = s.daysOfWeek.has(d.getUTCDay());
    return s.daysOfMonthRestricted && s.daysOfWeekRestricted ? dom || dow : dom && dow;
  };
  for (const expr of [
    '0 2 1 * *',
    '@yearly',
    '30 22 * * 1-5',
    '0 0 */2 * mon',
    '0 0 13 * fri',
    '15 3 * * */2',
    '0 */6 1-7 * *',
    '45 23 29 2 *',
  ]) {
    test(`${expr}: firings match the parsed fields`, () => {
      const schedule = parseCron(expr);
      const times = cronTimes(expr, 'UTC');
      let at = Date.parse('2030-01-01T00:00:00Z');
      const end = Date.parse('2033-01-01T00:00:00Z');
      let count = 0;
      for (;;) {
        const next = times.next(at);
        if (next === undefined || next > end) break;
        assert.ok(matches(schedule, new Date(next)), `${expr} fired at ${new Date(next).toISOString()}`);
        // Days between two firings hold no matching minute (checked at the schedule's first hour and minute).
        for (let day = Math.ceil((at + 1) / 86_400_000) * 86_400_000; day < next; day += 86_400_000) {
          const probe =
            day + Math.min(...schedule.hours) * 3_600_000 + Math.min(...schedule.minutes) * 60_000;
          if (probe > at && probe < next)
            assert.ok(!matches(schedule, new Date(probe)), new Date(probe).toISOString());
        }
        at = next;
        count++;
      }
      assert.ok(count > 0, `${expr} fired in 2030-2032`);
    });
  }

  test('a schedule on a date that does not exist never fires', () => {
    assert.equal(cronEverFires('0 0 31 2 *'), false);
    assert.equal(cronEverFires('0 0 29 2 *'), true);
  });

  test('an unknown or fixed-offset time zone is refused', () => {
    for (const zone of ['Mars/Olympus', '+01:00']) {
      assert.throws(
        () => cronTimes('0 2 * * *', zone),
        (err: unknown) => err instanceof CronError && err.message.includes(zone),
      );
    }
  });
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
