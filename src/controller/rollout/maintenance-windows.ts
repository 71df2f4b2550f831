// Maintenance windows: a window opens at every time its cron schedule matches (read in its time zone)
// and stays open for its duration. Outside every window no node starts; nodes in flight finish. With no
// windows the pool is always open. A window that cannot be read (bad cron, duration or time zone) keeps
// the pool closed: misconfiguration fails closed rather than updating at a time nobody chose.

import { CronError, type CronSchedule, cronMatches, parseCron, type WallClock } from '../../api/cron.ts';
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
  /** When closed: when the next window opens (searched up to 8 days ahead). */
  opensAt?: number;
  /** Why the windows could not be read (the pool then stays closed). */
  error?: string;
}

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const QUARTER = 15 * MINUTE;
const HORIZON = 8 * 24 * HOUR;

const formatters = new Map<string, Intl.DateTimeFormat>();
const offsets = new Map<string, number>();

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
    });
    formatters.set(timeZone, f);
  }
  return f;
}

// The zone's UTC offset at a moment; every real offset change falls on a quarter hour, so the offset is
// computed once per quarter hour and cached.
function offsetAt(timeZone: string, ms: number): number {
  const bucket = Math.floor(ms / QUARTER) * QUARTER;
  const key = `${timeZone}@${bucket}`;
  const cached = offsets.get(key);
  if (cached !== undefined) return cached;
  const parts: Record<string, number> = {};
  for (const p of formatter(timeZone).formatToParts(new Date(bucket))) {
    if (p.type !== 'literal') parts[p.type] = Number(p.value);
  }
  const wall = Date.UTC(parts.year!, parts.month! - 1, parts.day!, parts.hour!, parts.minute!);
  const offset = wall - bucket;
  if (offsets.size > 50_000) offsets.clear();
  offsets.set(key, offset);
  return offset;
}

/** Wall-clock fields of a moment in a time zone. */
export function wallClock(timeZone: string, ms: number): WallClock {
  const d = new Date(ms + offsetAt(timeZone, ms));
  return {
    minute: d.getUTCMinutes(),
    hour: d.getUTCHours(),
    dayOfMonth: d.getUTCDate(),
    month: d.getUTCMonth() + 1,
    dayOfWeek: d.getUTCDay(),
  };
}

interface ParsedWindow {
  schedule: CronSchedule;
  durationMs: number;
  timeZone: string;
}

function parseWindow(spec: MaintenanceWindowSpec): ParsedWindow {
  const timeZone = spec.timeZone ?? 'UTC';
  const schedule = parseCron(spec.schedule);
  const durationMs = parseDuration(spec.duration);
  if (durationMs === undefined || durationMs < MINUTE) {
    throw new CronError(`duration ${JSON.stringify(spec.duration)} is not a duration of at least 1m`);
  }
  try {
    formatter(timeZone);
  } catch {
    throw new CronError(`time zone ${JSON.stringify(timeZone)} is unknown`);
  }
  return { schedule, durationMs, timeZone };
}

// The latest opening at or before `now` whose window still covers now, scanning back minute by minute
// but skipping whole hours the schedule cannot match.
function latestOpening(w: ParsedWindow, now: number): number | undefined {
  const earliest = now - w.durationMs;
  let m = Math.floor(now / MINUTE) * MINUTE;
  while (m > earliest) {
    const wall = wallClock(w.timeZone, m);
    if (!w.schedule.hours.has(wall.hour)) {
      m -= (wall.minute + 1) * MINUTE;
      continue;
    }
    if (cronMatches(w.schedule, wall)) return m;
    m -= MINUTE;
  }
  return undefined;
}

function nextOpening(w: ParsedWindow, now: number): number | undefined {
  let m = Math.floor(now / MINUTE) * MINUTE + MINUTE;
  const limit = now + HORIZON;
  while (m <= limit) {
    const wall = wallClock(w.timeZone, m);
    if (!w.schedule.hours.has(wall.hour)) {
      m += (60 - wall.minute) * MINUTE;
      continue;
    }
    if (cronMatches(w.schedule, wall)) return m;
    m += MINUTE;
  }
  return undefined;
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
  for (const w of parsed) {
    const opened = latestOpening(w, now);
    if (opened !== undefined) closesAt = Math.max(closesAt ?? 0, opened + w.durationMs);
  }
  if (closesAt !== undefined) return { open: true, closesAt };
  let opensAt: number | undefined;
  for (const w of parsed) {
    const next = nextOpening(w, now);
    if (next !== undefined && (opensAt === undefined || next < opensAt)) opensAt = next;
  }
  return opensAt === undefined ? { open: false } : { open: false, opensAt };
}
