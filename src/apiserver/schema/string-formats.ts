// The string formats CRD schemas validate (apiextensions' supported set, checked the way
// kube-openapi's strfmt registry does). Other formats (int32, int64, float, ...) are ignored.

import { isIPv4, isIPv6 } from 'node:net';

type Check = (value: string) => boolean;

function validDate(text: string): boolean {
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(text);
  if (!m) return false;
  const year = Number(m[1]);
  const month = Number(m[2]);
  const day = Number(m[3]);
  if (month < 1 || month > 12 || day < 1) return false;
  const daysInMonth = new Date(Date.UTC(year, month, 0)).getUTCDate();
  return day <= daysInMonth;
}

// strfmt.IsDateTime: a full-date, a 'T', then hh:mm:ss[.frac] and z or ±hh:mm (case-insensitive).
const timePart = /^([0-9]{2}):([0-9]{2}):([0-9]{2})(.[0-9]+)?(z|([+-][0-9]{2}:[0-9]{2}))$/;
function validDateTime(text: string): boolean {
  if (text.length < 4) return false;
  const parts = text.toLowerCase().split('t');
  if (parts.length < 2 || !validDate(parts[0]!)) return false;
  const m = timePart.exec(parts[1]!);
  return m !== null && m[1]! <= '23' && m[2]! <= '59' && m[3]! <= '59';
}

const goDuration = /^[-+]?((\d+(\.\d*)?|\.\d+)(ns|us|µs|μs|ms|s|m|h))+$/;
const durationUnits = new Set(
  'ns nanosecond nanoseconds us µs microsecond microseconds ms millisecond milliseconds s sec secs second seconds m min mins minute minutes h hr hrs hour hours d day days w wk wks week weeks'.split(
    ' ',
  ),
);
function validDuration(text: string): boolean {
  if (text === '0' || goDuration.test(text)) return true;
  for (const m of text.matchAll(/(\d+)\s*([A-Za-zµ]+)/g)) {
    if (durationUnits.has(m[2]!.toLowerCase())) return true;
  }
  return false;
}

const hostnamePattern =
  /^([a-zA-Z0-9\p{S}\p{L}]((-?[a-zA-Z0-9\p{S}\p{L}]{0,62})?)|([a-zA-Z0-9\p{S}\p{L}](([a-zA-Z0-9\-\p{S}\p{L}]{0,61}[a-zA-Z0-9\p{S}\p{L}])?)(\.)){1,}([a-zA-Z\p{L}]){2,63})$/u;
function validHostname(text: string): boolean {
  if (!hostnamePattern.test(text) || Buffer.byteLength(text) > 255) return false;
  return text.split('.').every((label) => Buffer.byteLength(label) <= 63);
}

function validIPv4(text: string): boolean {
  return isIPv4(text);
}

function validIPv6(text: string): boolean {
  return text.includes(':') && !text.includes('%') && isIPv6(text);
}

function validCIDR(text: string): boolean {
  const slash = text.indexOf('/');
  if (slash < 0) return false;
  const address = text.slice(0, slash);
  const bits = text.slice(slash + 1);
  if (!/^\d{1,3}$/.test(bits)) return false;
  if (validIPv4(address)) return Number(bits) <= 32;
  if (validIPv6(address)) return Number(bits) <= 128;
  return false;
}

// net.ParseMAC: 6, 8 or 20 octets separated by ':' or '-', or dotted groups of four hex digits.
function validMAC(text: string): boolean {
  for (const sep of [':', '-']) {
    const octets = text.split(sep);
    if ([6, 8, 20].includes(octets.length) && octets.every((o) => /^[0-9A-Fa-f]{2}$/.test(o))) return true;
  }
  const groups = text.split('.');
  return [3, 4, 10].includes(groups.length) && groups.every((g) => /^[0-9A-Fa-f]{4}$/.test(g));
}

function isbn10(text: string): boolean {
  const s = text.replace(/[\s-]/g, '');
  if (!/^(?:[0-9]{9}X|[0-9]{10})$/.test(s)) return false;
  let sum = 0;
  for (let i = 0; i < 10; i++) sum += (i + 1) * (s[i] === 'X' ? 10 : Number(s[i]));
  return sum % 11 === 0;
}

function isbn13(text: string): boolean {
  const s = text.replace(/[\s-]/g, '');
  if (!/^[0-9]{13}$/.test(s)) return false;
  let sum = 0;
  for (let i = 0; i < 12; i++) sum += Number(s[i]) * (i % 2 === 0 ? 1 : 3);
  return (10 - (sum % 10)) % 10 === Number(s[12]);
}

const creditCardPattern =
  /^(?:4[0-9]{12}(?:[0-9]{3})?|5[1-5][0-9]{14}|(222[1-9]|22[3-9][0-9]|2[3-6][0-9]{2}|27[01][0-9]|2720)[0-9]{12}|6(?:011|5[0-9][0-9])[0-9]{12}|3[47][0-9]{13}|3(?:0[0-5]|[68][0-9])[0-9]{11}|(?:2131|1800|35\d{3})\d{11}|6[27][0-9]{14})$/;
function validCreditCard(text: string): boolean {
  const digits = text.replace(/[^0-9]/g, '');
  if (!creditCardPattern.test(digits)) return false;
  let sum = 0;
  let double = false;
  for (let i = digits.length - 1; i >= 0; i--) {
    let d = Number(digits[i]);
    if (double) {
      d *= 2;
      if (d > 9) d -= 9;
    }
    sum += d;
    double = !double;
  }
  return sum % 10 === 0;
}

// base64.StdEncoding: padded, newlines ignored.
function validBase64(text: string): boolean {
  const s = text.replace(/[\r\n]/g, '');
  return s.length % 4 === 0 && /^[A-Za-z0-9+/]*={0,2}$/.test(s);
}

// url.ParseRequestURI: an absolute URI or an absolute path, no whitespace.
function validURI(text: string): boolean {
  if (/\s/.test(text) || text === '') return false;
  return text.startsWith('/') || /^[A-Za-z][A-Za-z0-9+.-]*:/.test(text);
}

// net/mail.ParseAddress, loosely: `local@domain` or `Name <local@domain>`.
function validEmail(text: string): boolean {
  return /^[^\s@<>]+@[^\s@<>]+$/.test(text) || /^[^<>]*<[^\s@<>]+@[^\s@<>]+>$/.test(text);
}

const octet = '(0|[1-9]\\d?|1\\d\\d?|2[0-4]\\d|25[0-5])';
const rgbPattern = new RegExp(`^rgb\\(\\s*${octet}\\s*,\\s*${octet}\\s*,\\s*${octet}\\s*\\)$`);

const checks: Record<string, Check> = {
  bsonobjectid: (s) => /^[0-9a-fA-F]{24}$/.test(s),
  uri: validURI,
  email: validEmail,
  hostname: validHostname,
  ipv4: validIPv4,
  ipv6: validIPv6,
  cidr: validCIDR,
  mac: validMAC,
  uuid: (s) => /^[0-9a-f]{8}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{12}$/i.test(s),
  uuid3: (s) => /^[0-9a-f]{8}-?[0-9a-f]{4}-?3[0-9a-f]{3}-?[0-9a-f]{4}-?[0-9a-f]{12}$/i.test(s),
  uuid4: (s) => /^[0-9a-f]{8}-?[0-9a-f]{4}-?4[0-9a-f]{3}-?[89ab][0-9a-f]{3}-?[0-9a-f]{12}$/i.test(s),
  uuid5: (s) => /^[0-9a-f]{8}-?[0-9a-f]{4}-?5[0-9a-f]{3}-?[89ab][0-9a-f]{3}-?[0-9a-f]{12}$/i.test(s),
  isbn: (s) => isbn10(s) || isbn13(s),
  isbn10,
  isbn13,
  creditcard: validCreditCard,
  ssn: (s) => /^\d{3}[- ]?\d{2}[- ]?\d{4}$/.test(s),
  hexcolor: (s) => /^#?([0-9a-fA-F]{3}|[0-9a-fA-F]{6})$/.test(s),
  rgbcolor: (s) => rgbPattern.test(s),
  byte: validBase64,
  password: () => true,
  date: validDate,
  duration: validDuration,
  datetime: validDateTime,
};

/** Whether CRD validation checks this format (kube normalizes by dropping '-': date-time → datetime). */
export function isSupportedFormat(format: string | undefined): format is string {
  return format !== undefined && Object.hasOwn(checks, format.replaceAll('-', ''));
}

/** True/false for a supported format, undefined when the format is not checked at all. */
export function matchesFormat(format: string, value: string): boolean | undefined {
  const check = checks[format.replaceAll('-', '')];
  return check === undefined ? undefined : check(value);
}
