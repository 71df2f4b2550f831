// metav1.Time and metav1.MicroTime as kube decodes and encodes them. Decoding is Go's time.Parse with
// layout RFC3339 ("2006-01-02T15:04:05Z07:00", Time) or RFC3339Micro ("2006-01-02T15:04:05.000000Z07:00",
// MicroTime), reproduced element by element so a bad value fails with Go's exact message, e.g.
//   parsing time "not-a-time" as "2006-01-02T15:04:05Z07:00": cannot parse "not-a-time" as "2006"
// Encoding is UTC: Time to whole seconds ("…:05Z"), MicroTime to exactly six fractional digits.

export const RFC3339 = '2006-01-02T15:04:05Z07:00';
export const RFC3339_MICRO = '2006-01-02T15:04:05.000000Z07:00';

export class GoTimeParseError extends Error {}

/** Go's time.quote: double quotes, with \ and " escaped and other bytes outside printable ASCII as \xNN. */
function goQuote(s: string): string {
  let out = '"';
  for (const ch of s) {
    const code = ch.codePointAt(0)!;
    if (code >= 0x80 || code < 0x20) {
      for (const byte of Buffer.from(ch, 'utf8')) out += `\\x${byte.toString(16).padStart(2, '0')}`;
    } else {
      if (ch === '"' || ch === '\\') out += '\\';
      out += ch;
    }
  }
  return `${out}"`;
}

/** A parsed instant: milliseconds since the epoch plus the sub-millisecond nanoseconds kept for MicroTime. */
export interface GoInstant {
  epochMs: number;
  /** Nanoseconds within the second (0–999,999,999). */
  nanos: number;
}

const isDigit = (s: string, i: number) => i < s.length && s.charCodeAt(i) >= 48 && s.charCodeAt(i) <= 57;

function getnum(s: string, fixed: boolean): [number, string] | undefined {
  if (!isDigit(s, 0)) return undefined;
  if (!isDigit(s, 1)) return fixed ? undefined : [Number(s[0]), s.slice(1)];
  return [Number(s.slice(0, 2)), s.slice(2)];
}

function daysIn(month: number, year: number): number {
  return new Date(Date.UTC(year, month, 0)).getUTCDate();
}

/** The fraction ".ddd" (or ",ddd") of length n (dot included), as nanoseconds; undefined if malformed. */
function parseNanoseconds(value: string, n: number): number | undefined {
  if (value[0] !== '.' && value[0] !== ',') return undefined;
  const digits = value.slice(1, Math.min(n, 10));
  if (!/^\d+$/.test(digits)) return undefined;
  return Number(digits.padEnd(9, '0').slice(0, 9));
}

/** Go's time.Parse for the two layouts kube uses; throws GoTimeParseError with Go's message. */
export function parseGoTime(value: string, micro: boolean): GoInstant {
  const layout = micro ? RFC3339_MICRO : RFC3339;
  const fail = (layoutElem: string, valueElem: string, message = ''): never => {
    throw new GoTimeParseError(
      message === ''
        ? `parsing time ${goQuote(value)} as ${goQuote(layout)}: cannot parse ${goQuote(valueElem)} as ${goQuote(layoutElem)}`
        : `parsing time ${goQuote(value)}${message}`,
    );
  };
  const chunks: [prefix: string, std: string][] = [
    ['', '2006'],
    ['-', '01'],
    ['-', '02'],
    ['T', '15'],
    [':', '04'],
    [':', '05'],
    ...(micro ? ([['', '.000000']] as [string, string][]) : []),
    ['', 'Z07:00'],
  ];
  let rest = value;
  let year = 0;
  let month = 0;
  let day = 0;
  let hour = 0;
  let minute = 0;
  let second = 0;
  let nanos = 0;
  let offsetSeconds = 0;
  for (const [prefix, std] of chunks) {
    for (let i = 0; i < prefix.length; i++) {
      if (rest.length === 0 || rest[0] !== prefix[i]) fail(prefix, rest);
      rest = rest.slice(1);
    }
    const hold = rest;
    let range = '';
    let bad = false;
    switch (std) {
      case '2006':
        if (rest.length < 4 || !/^\d{4}/.test(rest)) bad = true;
        else {
          year = Number(rest.slice(0, 4));
          rest = rest.slice(4);
        }
        break;
      case '01':
      case '02':
      case '15':
      case '04':
      case '05': {
        const got = getnum(rest, std !== '15');
        if (!got) {
          bad = true;
          if (std === '15') range = ''; // Go checks the (zero) hour too; it is in range.
          break;
        }
        const [n, after] = got;
        rest = after;
        if (std === '01') {
          month = n;
          if (n <= 0 || n > 12) range = 'month';
        } else if (std === '02') day = n;
        else if (std === '15') {
          hour = n;
          if (n >= 24) range = 'hour';
        } else if (std === '04') {
          minute = n;
          if (n >= 60) range = 'minute';
        } else {
          second = n;
          if (n >= 60) {
            range = 'second';
            break;
          }
          // A fraction the layout does not name is still read (Go: "when parsing (only)").
          if (!micro && rest.length >= 2 && (rest[0] === '.' || rest[0] === ',') && isDigit(rest, 1)) {
            let n2 = 2;
            while (isDigit(rest, n2)) n2++;
            nanos = parseNanoseconds(rest, n2) ?? 0;
            rest = rest.slice(n2);
          }
        }
        break;
      }
      case '.000000': {
        const parsed = rest.length < 7 ? undefined : parseNanoseconds(rest, 7);
        if (parsed === undefined) bad = true;
        else {
          nanos = parsed;
          rest = rest.slice(7);
        }
        break;
      }
      case 'Z07:00': {
        if (rest.length >= 1 && rest[0] === 'Z') {
          rest = rest.slice(1);
          break;
        }
        if (rest.length < 6 || rest[3] !== ':') {
          bad = true;
          break;
        }
        const sign = rest[0];
        const hh = getnum(rest.slice(1, 3), true);
        const mm = getnum(rest.slice(4, 6), true);
        if (!hh || !mm || (sign !== '+' && sign !== '-')) {
          bad = true;
          break;
        }
        rest = rest.slice(6);
        if (hh[0] > 24) range = 'time zone offset hour';
        if (mm[0] > 60) range = 'time zone offset minute';
        offsetSeconds = (hh[0] * 60 + mm[0]) * 60 * (sign === '-' ? -1 : 1);
        break;
      }
    }
    if (range !== '') fail(std, rest, `: ${range} out of range`);
    if (bad) fail(std, hold);
  }
  if (rest.length !== 0) fail('', rest, `: extra text: ${goQuote(rest)}`);
  if (day < 1 || day > daysIn(month, year)) fail('', rest, ': day out of range');
  const utc = Date.UTC(year, month - 1, day, hour, minute, second);
  // Date.UTC maps years 0–99 onto 1900–1999; set the full year explicitly.
  const date = new Date(utc);
  date.setUTCFullYear(year);
  return { epochMs: date.getTime() - offsetSeconds * 1000, nanos };
}

function pad(n: number, width: number): string {
  return String(n).padStart(width, '0');
}

/** metav1.Time's MarshalJSON: UTC, whole seconds. */
export function formatTime(instant: GoInstant): string {
  const d = new Date(Math.floor(instant.epochMs / 1000) * 1000);
  return `${pad(d.getUTCFullYear(), 4)}-${pad(d.getUTCMonth() + 1, 2)}-${pad(d.getUTCDate(), 2)}T${pad(d.getUTCHours(), 2)}:${pad(d.getUTCMinutes(), 2)}:${pad(d.getUTCSeconds(), 2)}Z`;
}

/** metav1.MicroTime's MarshalJSON: UTC, exactly six fractional digits (truncated, as Go formats). */
export function formatMicroTime(instant: GoInstant): string {
  return formatTime(instant).replace(/Z$/, `.${pad(Math.floor(instant.nanos / 1000), 6)}Z`);
}
