// Maintenance windows: a window opens at every time its cron schedule fires (read in its time zone, with
// daylight saving time as src/api/cron-times.ts describes) and stays open for its duration, counted in
// real time (a 3h window that spans the fall-back hour closes 3 hours later, at 1 hour later on the wall
// clock). Outside every window no node starts; nodes in flight finish. With no windows the pool is always
// open. A window that cannot be read (bad cron, duration or time zone) keeps the pool closed:
// misconfiguration fails closed rather than updating at a time nobody chose.

import { CronError } from '../../api/cron.ts';
import { cronTimes } from '../../api/cron-times.ts';
import { parseDuration } from '../../api/duration.ts';

export interface MaintenanceWindowSpec {
  schedule: string;
  duration: string;
  timeZone?: string;
}

export interface WindowStatus {
  open: boolean;
  /** When open: when the last window now open closes. */
  closesAt?: number;
  /** When closed: when the next window opens. */
  opensAt?: number;
  /** Open or closed: the next time any window opens, strictly after now (however far ahead). */
  nextOpening?: number;
  /** The time zone of the window that opens next (to show the opening as its users read it). */
  nextOpeningZone?: string;
  /** Why the windows could not be read (the pool then stays closed). */
  error?: string;
}

const MINUTE = 60_000;

/** Wall-clock fields of a moment in a time zone (dayOfWeek: 0 = Sunday). */
export interface WallClock {
  minute: number;
  hour: number;
  dayOfMonth: number;
  month: number;
  dayOfWeek: number;
}

const formatters = new Map<string, Intl.DateTimeFormat>();

function formatter(timeZone: string): Intl.DateTimeFormat {
  let f = formatters.get(timeZone);
  if (!f) {
    f = new Intl.DateTimeFormat('en-US', {
      timeZone,
      hourCycle: 'h23',
      year: 'numeric',
      month: 'numeric',
      day: 'numeric',
      hour: 'numeric',
      minute: 'numeric',
      weekday: 'short',
    });
    formatters.set(timeZone, f);
  }
  return f;
}

const WEEKDAYS = ['Sun', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat'];

/** Wall-clock fields of a moment in a time zone. */
export function wallClock(timeZone: string, ms: number): WallClock {
  const parts: Record<string, string> = {};
  for (const p of formatter(timeZone).formatToParts(new Date(ms))) parts[p.type] = p.value;
  return {
    minute: Number(parts.minute),
    hour: Number(parts.hour),
    dayOfMonth: Number(parts.day),
    month: Number(parts.month),
    dayOfWeek: WEEKDAYS.indexOf(parts.weekday ?? ''),
  };
}

/** A moment as its wall-clock time in the zone, e.g. "Sun 2030-03-31 03:00 Europe/Berlin". */
export function formatWallClock(timeZone: string, ms: number): string {
  const w = wallClock(timeZone, ms);
  const year = formatter(timeZone)
    .formatToParts(new Date(ms))
    .find((p) => p.type === 'year')?.value;
  const two = (n: number) => String(n).padStart(2, '0');
  return `${WEEKDAYS[w.dayOfWeek]} ${year}-${two(w.month)}-${two(w.dayOfMonth)} ${two(w.hour)}:${two(w.minute)} ${timeZone}`;
}

interface ParsedWindow {
  schedule: string;
  durationMs: number;
  timeZone: string;
}

function parseWindow(spec: MaintenanceWindowSpec): ParsedWindow {
  const timeZone = spec.timeZone ?? 'UTC';
  cronTimes(spec.schedule, timeZone);
  const durationMs = parseDuration(spec.duration);
  if (durationMs === undefined || durationMs < MINUTE) {
    throw new CronError(`duration ${JSON.stringify(spec.duration)} is not a duration of at least 1m`);
  }
  return { schedule: spec.schedule, durationMs, timeZone };
}

export function maintenanceWindowStatus(
  windows: readonly MaintenanceWindowSpec[] | undefined,
  now: number,
): WindowStatus {
  if (!windows || windows.length === 0) return { open: true };
  let parsed: ParsedWindow[];
  try {
    parsed = windows.map(parseWindow);
  } catch (err) {
    return { open: false, error: err instanceof Error ? err.message : String(err) };
  }
  let closesAt: number | undefined;
  let nextOpening: number | undefined;
  let nextOpeningZone: string | undefined;
  for (const w of parsed) {
    const times = cronTimes(w.schedule, w.timeZone);
    // The latest opening gives the latest close: every opening of a window lasts as long.
    const opened = times.latest(now);
    if (opened !== undefined && opened + w.durationMs > now)
      closesAt = Math.max(closesAt ?? 0, opened + w.durationMs);
    const next = times.next(now);
    if (next !== undefined && (nextOpening === undefined || next < nextOpening)) {
      nextOpening = next;
      nextOpeningZone = w.timeZone;
    }
  }
  const next = nextOpening === undefined ? {} : { nextOpening, nextOpeningZone };
  if (closesAt !== undefined) return { open: true, closesAt, ...next };
  return nextOpening === undefined ? { open: false } : { open: false, opensAt: nextOpening, ...next };
}
