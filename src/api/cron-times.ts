// When a cron schedule (the grammar of cron.ts) fires, read in an IANA time zone. The arithmetic is
// croner's: it jumps field by field, so a monthly or yearly schedule costs as little as an hourly one, and
// it handles daylight saving time as Vixie cron does. A time that does not exist (spring forward: 02:30
// in Berlin on the last Sunday of March) fires at the first valid time after the gap, the same day, for a
// schedule with no wildcard or step in its minute and hour fields; one that occurs twice (fall back) fires
// once, at the first occurrence. Schedules with a wildcard or step in minute or hour fire on both passes
// of a repeated hour and skip times in a gap.

import { Cron } from 'croner';
import { CronError, cronFields, parseCron } from './cron.ts';

export interface CronTimes {
  /** The first firing strictly after `ms`; undefined when the schedule never fires again. */
  next(ms: number): number | undefined;
  /** The latest firing at or before `ms`; undefined when there is none. */
  latest(ms: number): number | undefined;
}

/**
 * The schedule in croner's syntax. Vixie cron, whose grammar cron.ts accepts, matches a day when EITHER
 * day field matches only when neither field starts with `*`; croner does so whenever neither field is
 * exactly `*`. For `*\/2` against a weekday list, croner's `+` modifier asks for both, as Vixie does.
 */
export function cronerPattern(expression: string): string {
  const [minute, hour, dom, month, dow] = cronFields(expression) as [string, string, string, string, string];
  const both = dom !== '*' && dow !== '*' && (dom.startsWith('*') || dow.startsWith('*'));
  return [minute, hour, dom, month, both ? `+${dow}` : dow].join(' ');
}

/** Whether the zone is a named IANA zone (or alias) the runtime knows; fixed offsets such as +01:00 are not. */
export function isIanaTimeZone(zone: string): boolean {
  try {
    const resolved = new Intl.DateTimeFormat('en-US', { timeZone: zone }).resolvedOptions().timeZone;
    return !/^[+-]/.test(resolved);
  } catch {
    return false;
  }
}

const cache = new Map<string, CronTimes>();
const CACHE_LIMIT = 1_000;

/** The firings of a schedule in a time zone; throws CronError naming what is wrong. */
export function cronTimes(expression: string, timeZone: string): CronTimes {
  const key = `${timeZone} ${expression}`;
  const known = cache.get(key);
  if (known) return known;
  parseCron(expression);
  if (!isIanaTimeZone(timeZone)) throw new CronError(`time zone ${JSON.stringify(timeZone)} is unknown`);
  let cron: Cron;
  try {
    cron = new Cron(cronerPattern(expression), {
      timezone: timeZone,
      mode: '5-part',
      // `5/20` (from 5, every 20) is valid in cron.ts's grammar, as in Vixie cron.
      sloppyRanges: true,
      // As Vixie cron: a schedule without wildcard or step in minute and hour is a fixed time.
      fixedTimeRule: 'no-wildcard',
      paused: true,
    });
  } catch (err) {
    throw new CronError(err instanceof Error ? err.message : String(err));
  }
  const times: CronTimes = {
    next: (ms) => cron.nextRun(new Date(ms))?.getTime(),
    // previousRuns looks strictly before its reference.
    latest: (ms) => cron.previousRuns(1, new Date(ms + 1))[0]?.getTime(),
  };
  if (cache.size >= CACHE_LIMIT) cache.clear();
  cache.set(key, times);
  return times;
}

/** Whether the schedule fires at all (`0 0 31 2 *` never does); checked from 2000, in UTC. */
export function cronEverFires(expression: string): boolean {
  return cronTimes(expression, 'UTC').next(Date.UTC(2000, 0, 1)) !== undefined;
}
