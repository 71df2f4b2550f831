// Regular expressions shared by the CRD schemas (as `pattern`, evaluated by Go's RE2 on a real API
// server) and by the validators. Keep them RE2-compatible: no lookaround, no backreferences.

/** systemd unit names; `foo@.service` is a template, `foo@bar.service` an instance. */
export const UNIT_NAME = String.raw`^[A-Za-z0-9:_.\\-]+(@[A-Za-z0-9:_.\\-]*)?\.(service|socket|mount|automount|swap|target|path|timer|slice)$`;

/** Drop-in file names: systemd only reads *.conf in a unit's .d directory. */
export const DROP_IN_NAME = String.raw`^[A-Za-z0-9:_.@\\-]+\.conf$`;

export const DNS1123_LABEL = '^[a-z0-9]([-a-z0-9]*[a-z0-9])?$';
export const DNS1123_SUBDOMAIN = String.raw`^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$`;

/** Keys of a Secret's data. */
export const SECRET_KEY = '^[-._a-zA-Z0-9]+$';

/** Debian package names (policy §5.6.7), optionally with an architecture qualifier. */
export const DEB_PACKAGE_NAME = '^[a-z0-9][a-z0-9+.-]+(:[a-z0-9-]+)?$';

/** Debian versions (policy §5.6.12) plus apt's `*` wildcard. */
export const DEB_PACKAGE_VERSION = '^([0-9]+:)?[A-Za-z0-9*][A-Za-z0-9.+~*-]*$';

/**
 * RPM package names (Fedora's packaging guidelines allow upper case, `_` and `+`): never a leading `-`
 * (an option), no whitespace, no glob or shell character.
 */
export const RPM_PACKAGE_NAME = '^[A-Za-z0-9_+][A-Za-z0-9._+-]*$';

/**
 * An RPM [epoch:]version[-release] (`-` only between version and release), plus dnf's `*` glob:
 * `1.2.3`, `1.2.3-4.el9`, `2:1.2.3-4.el9`, `1.33.*`.
 */
export const RPM_PACKAGE_VERSION = '^([0-9]+:)?[A-Za-z0-9._+~^*]+(-[A-Za-z0-9._+~^*]+)?$';

/**
 * A package name of any manager (the schema's pattern; each manager's rules check its own syntax,
 * src/api/packages/<manager>/): Debian's or RPM's.
 */
export const PACKAGE_NAME = '^[A-Za-z0-9_+][A-Za-z0-9._+-]*(:[a-z0-9-]+)?$';

/** A version of any manager: Debian's or RPM's (each manager's rules check its own syntax). */
export const PACKAGE_VERSION = '^([0-9]+:)?[A-Za-z0-9._+~^*][A-Za-z0-9._+~^*-]*$';

/** Repository names become file names under /etc/apt or /etc/yum.repos.d (at most 63 characters). */
export const REPOSITORY_NAME = '^[a-z0-9][a-z0-9._-]*$';

/** A user or group name (shadow-utils' default rule) or a numeric id. */
export const OWNER = String.raw`^([a-z_][a-z0-9_-]*\$?|[0-9]+)$`;

/**
 * apt suites and components are single deb822 words: no whitespace, no control character, no '#'
 * (a comment). The agent writes them with this same rule (src/agent/executors/apt/apt-sources.ts).
 */
export const WORD = String.raw`^[^\x00-\x20\x7f#]+$`;

/** Repository URIs: http, https or file, and a single deb822 word like WORD. */
export const REPOSITORY_URI = String.raw`^(https?|file)://[^\x00-\x20\x7f#]+$`;
export const ARCHITECTURE = '^[a-z0-9-]+$';

/** Any text without a NUL byte (an argument handed to a program). */
export const NO_NUL = String.raw`^[^\x00]*$`;

/** An absolute path (the validators also require it to be normalised). */
export const ABSOLUTE_PATH = '^/';

export function regex(pattern: string): RegExp {
  return new RegExp(pattern);
}

// Paths as patterns, so that the CRD alone refuses what normalisedPathProblem refuses: absolute, no
// control characters, no empty, `.` or `..` segment, no trailing /. `exclude` adds characters a segment
// may not hold (`*` in file paths).
function normalisedPathBody(exclude = ''): string {
  const any = `[^/\\x00-\\x1f\\x7f${exclude}]`;
  const notDot = `[^/.\\x00-\\x1f\\x7f${exclude}]`;
  const segment = `(${notDot}${any}*|\\.${notDot}${any}*|\\.\\.${any}+)`;
  return `(/${segment})+`;
}

/** An absolute, normalised path: what normalisedPathProblem accepts, as a pattern. */
export const NORMALISED_PATH = `^${normalisedPathBody()}$`;

/** A file's path: normalised and without `*`. */
export const FILE_PATH = `^${normalisedPathBody('*')}$`;

/** A disruption policy path: `/**`, or a normalised path without `*`, optionally followed by `/**`. */
export const POLICY_PATH = `^(/\\*\\*|${normalisedPathBody('*')}(/\\*\\*)?)$`;

/** The whitespace tolerated in base64 (as `base64` wraps its output): RE2's \s, the same in JavaScript. */
export const BASE64_WHITESPACE = String.raw`[\t\n\f\r ]`;

const B64 = `[A-Za-z0-9+/]${BASE64_WHITESPACE}*`;
const B64_TAIL = `(${B64}${B64}=${BASE64_WHITESPACE}*=|${B64}${B64}${B64}=)?${BASE64_WHITESPACE}*`;

/** Strict, padded base64 (RFC 4648), whitespace anywhere tolerated. */
export const BASE64_TEXT = `^${BASE64_WHITESPACE}*(${B64}${B64}${B64}${B64})*${B64_TAIL}$`;

/**
 * Base64 of an OpenPGP keyring whose first packet is a public key: its first byte is 0b100110xx (old
 * format, tag 6: the first character is `m`) or 0xc6 (new format: `x`, then one of g..v).
 */
export const BASE64_KEYRING = `^${BASE64_WHITESPACE}*(m${BASE64_WHITESPACE}*${B64}${B64}${B64}|x${BASE64_WHITESPACE}*[g-v]${BASE64_WHITESPACE}*${B64}${B64})(${B64}${B64}${B64}${B64})*${B64_TAIL}$`;

/** An ASCII-armored OpenPGP public key block (leading whitespace tolerated, as the validator trims). */
export const ARMORED_KEY = String.raw`^\s*-----BEGIN PGP PUBLIC KEY BLOCK-----(.|\n)*-----END PGP PUBLIC KEY BLOCK-----`;

/** 1% to 100% (leading zeros allowed, as the validator reads the number). */
export const PERCENT_1_TO_100 = '^0*([1-9][0-9]?|100)%$';

function cronField(value: string): string {
  const item = `(\\*|(${value})(-(${value}))?)(/0*[1-9][0-9]*)?`;
  return `${item}(,${item})*`;
}

const MONTH_NAMES = '(?i:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)';
const DAY_NAMES = '(?i:sun|mon|tue|wed|thu|fri|sat)';

/**
 * A cron schedule as src/api/cron.ts reads it: a macro, or 5 fields (minute 0-59, hour 0-23, day of month
 * 1-31, month 1-12 or a name, day of week 0-7 or a name) of values, ranges, lists and steps. Not said by
 * the pattern: a range that runs backwards, a schedule that never fires (Feb 30).
 */
export const CRON = [
  '^\\s*(@(?i:yearly|annually|monthly|weekly|daily|midnight|hourly)|',
  [
    cronField('0*[1-5]?[0-9]'),
    cronField('0*(1?[0-9]|2[0-3])'),
    cronField('0*([1-9]|[12][0-9]|3[01])'),
    cronField(`0*([1-9]|1[0-2])|${MONTH_NAMES}`),
    cronField(`0*[0-7]|${DAY_NAMES}`),
  ].join('\\s+'),
  ')\\s*$',
].join('');

/** A duration such as 90m, 1h30m or 1.5h (src/api/duration.ts). */
export const DURATION = '^([0-9]+(\\.[0-9]+)?(ms|h|m|s))+$';

/** A label key: an optional DNS subdomain prefix and /, then a name of at most 63 characters. */
export const LABEL_KEY = String.raw`^([a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*/)?([A-Za-z0-9][-A-Za-z0-9_.]{0,61})?[A-Za-z0-9]$`;

/** A label value: empty, or at most 63 alphanumerics, -, _ or ., starting and ending alphanumeric. */
export const LABEL_VALUE = '^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$';

/** An http(s) URL without whitespace, control characters, query or fragment. */
export const HTTP_BASE_URL = String.raw`^https?://[^/?#\x00-\x20\x7f]+(/[^?#\x00-\x20\x7f]*)?$`;

/** An http(s) URL without whitespace or control characters. */
export const HTTP_URL = String.raw`^https?://[^\x00-\x20\x7f]+$`;
