// Standard 5-field cron schedules (minute hour day-of-month month day-of-week) with lists, ranges,
// steps, month and weekday names, and the @yearly/@monthly/@weekly/@daily/@hourly macros: the grammar
// maintenance windows accept, checked field by field so a bad schedule gets a message naming the field.
// When a schedule fires is computed by cron-times.ts.

export interface CronSchedule {
  minutes: ReadonlySet<number>;
  hours: ReadonlySet<number>;
  daysOfMonth: ReadonlySet<number>;
  months: ReadonlySet<number>;
  /** 0 = Sunday; 7 is folded into 0. */
  daysOfWeek: ReadonlySet<number>;
  /** Vixie cron: when both day fields are restricted, a day matches if EITHER matches. */
  daysOfMonthRestricted: boolean;
  daysOfWeekRestricted: boolean;
}

const MACROS: Record<string, string> = {
  '@yearly': '0 0 1 1 *',
  '@annually': '0 0 1 1 *',
  '@monthly': '0 0 1 * *',
  '@weekly': '0 0 * * 0',
  '@daily': '0 0 * * *',
  '@midnight': '0 0 * * *',
  '@hourly': '0 * * * *',
};

const MONTH_NAMES = ['jan', 'feb', 'mar', 'apr', 'may', 'jun', 'jul', 'aug', 'sep', 'oct', 'nov', 'dec'];
const DAY_NAMES = ['sun', 'mon', 'tue', 'wed', 'thu', 'fri', 'sat'];

interface FieldSpec {
  name: string;
  min: number;
  max: number;
  names?: string[];
  /** Value of names[0]. */
  namesBase?: number;
}

const FIELDS: FieldSpec[] = [
  { name: 'minute', min: 0, max: 59 },
  { name: 'hour', min: 0, max: 23 },
  { name: 'day of month', min: 1, max: 31 },
  { name: 'month', min: 1, max: 12, names: MONTH_NAMES, namesBase: 1 },
  { name: 'day of week', min: 0, max: 7, names: DAY_NAMES, namesBase: 0 },
];

export class CronError extends Error {}

function parseValue(text: string, spec: FieldSpec): number {
  const lower = text.toLowerCase();
  const named = spec.names?.indexOf(lower) ?? -1;
  if (named >= 0) return named + (spec.namesBase ?? 0);
  if (!/^[0-9]+$/.test(text)) throw new CronError(`${spec.name}: ${JSON.stringify(text)} is not a number`);
  const value = Number(text);
  if (value < spec.min || value > spec.max) {
    throw new CronError(`${spec.name}: ${value} is outside ${spec.min}-${spec.max}`);
  }
  return value;
}

function parseField(text: string, spec: FieldSpec): Set<number> {
  const values = new Set<number>();
  for (const part of text.split(',')) {
    const [range, stepText, extra] = part.split('/');
    if (range === undefined || range === '' || extra !== undefined) {
      throw new CronError(`${spec.name}: ${JSON.stringify(part)} is malformed`);
    }
    let step = 1;
    if (stepText !== undefined) {
      if (!/^[0-9]+$/.test(stepText) || Number(stepText) === 0) {
        throw new CronError(`${spec.name}: step ${JSON.stringify(stepText)} must be a positive number`);
      }
      step = Number(stepText);
    }
    let from: number;
    let to: number;
    if (range === '*') {
      from = spec.min;
      to = spec.max;
    } else if (range.includes('-')) {
      const [a, b, more] = range.split('-');
      if (a === undefined || b === undefined || more !== undefined) {
        throw new CronError(`${spec.name}: ${JSON.stringify(range)} is malformed`);
      }
      from = parseValue(a, spec);
      to = parseValue(b, spec);
      if (from > to) throw new CronError(`${spec.name}: range ${range} runs backwards`);
    } else {
      from = parseValue(range, spec);
      // `5/15` means 5, 20, 35, 50: from the value to the end, in steps.
      to = stepText === undefined ? from : spec.max;
    }
    for (let v = from; v <= to; v += step) values.add(v);
  }
  return values;
}

/** The 5 fields of a schedule, macros expanded; throws CronError on an unknown macro or field count. */
export function cronFields(expression: string): string[] {
  const trimmed = expression.trim();
  const expanded = trimmed.startsWith('@') ? MACROS[trimmed.toLowerCase()] : trimmed;
  if (expanded === undefined) throw new CronError(`unknown macro ${JSON.stringify(trimmed)}`);
  const parts = expanded.split(/\s+/);
  if (parts.length !== 5) throw new CronError(`expected 5 fields, got ${parts.length}`);
  return parts;
}

/** Parses a schedule; throws CronError with a message naming the bad field. */
export function parseCron(expression: string): CronSchedule {
  const parts = cronFields(expression);
  const [minutes, hours, dom, months, dow] = parts.map((part, i) => parseField(part, FIELDS[i]!)) as [
    Set<number>,
    Set<number>,
    Set<number>,
    Set<number>,
    Set<number>,
  ];
  if (dow.delete(7)) dow.add(0);
  return {
    minutes,
    hours,
    daysOfMonth: dom,
    months,
    daysOfWeek: dow,
    daysOfMonthRestricted: parts[2] !== '*' && !parts[2]!.startsWith('*/'),
    daysOfWeekRestricted: parts[4] !== '*' && !parts[4]!.startsWith('*/'),
  };
}
