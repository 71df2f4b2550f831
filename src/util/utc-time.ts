// Timestamps formatted from Date's UTC getters. V8's own formatters (Date#toISOString, #toUTCString,
// and JSON.stringify of a Date) look up the local time zone first even for a UTC result, which opens
// ICU's time-zone data: ~0.9 MB of RSS in a process that otherwise never touches ICU (the node
// agent's idle RSS, issue 17; bench/agent-idle.bench.ts).

const pad = (value: number, width: number) => String(value).padStart(width, '0');

/** What Date#toISOString returns ("2026-11-21T06:00:00.123Z"); throws RangeError for an invalid time. */
export function isoTime(ms: number = Date.now()): string {
  const date = new Date(ms);
  const year = date.getUTCFullYear();
  if (Number.isNaN(year)) throw new RangeError('Invalid time value');
  // Years outside 0000–9999 take ISO's expanded form: rare enough to leave to V8.
  if (year < 0 || year > 9999) return date.toISOString();
  return `${pad(year, 4)}-${pad(date.getUTCMonth() + 1, 2)}-${pad(date.getUTCDate(), 2)}T${pad(date.getUTCHours(), 2)}:${pad(date.getUTCMinutes(), 2)}:${pad(date.getUTCSeconds(), 2)}.${pad(date.getUTCMilliseconds(), 3)}Z`;
}

const DAYS = ['Sun', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat'];
const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];

/** An HTTP Date header's IMF-fixdate, what Date#toUTCString returns ("Sat, 21 Nov 2026 06:00:00 GMT"). */
export function httpDate(ms: number = Date.now()): string {
  const date = new Date(ms);
  const year = date.getUTCFullYear();
  if (Number.isNaN(year)) throw new RangeError('Invalid time value');
  if (year < 0 || year > 9999) return date.toUTCString();
  return `${DAYS[date.getUTCDay()]}, ${pad(date.getUTCDate(), 2)} ${MONTHS[date.getUTCMonth()]} ${pad(year, 4)} ${pad(date.getUTCHours(), 2)}:${pad(date.getUTCMinutes(), 2)}:${pad(date.getUTCSeconds(), 2)} GMT`;
}
