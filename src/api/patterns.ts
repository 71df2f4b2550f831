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
export const PACKAGE_NAME = '^[a-z0-9][a-z0-9+.-]+(:[a-z0-9-]+)?$';

/** Debian versions (policy §5.6.12) plus apt's `*` wildcard. */
export const PACKAGE_VERSION = '^([0-9]+:)?[A-Za-z0-9*][A-Za-z0-9.+~*-]*$';

/** Repository names become file names under /etc/apt (at most 63 characters). */
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

/** An absolute path (the validators also require it to be normalised). */
export const ABSOLUTE_PATH = '^/';

export function regex(pattern: string): RegExp {
  return new RegExp(pattern);
}
