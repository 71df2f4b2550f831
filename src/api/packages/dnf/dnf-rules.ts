// dnf's rules in the contract (dnf 4: RHEL 8-10 and their rebuilds, Amazon Linux 2023): a repository is
// a .repo file (baseurl from `uri`, gpgcheck, and a gpgkey written from the inline `signingKey`), RPM
// package names and [epoch:]version[-release] versions. The agent writes repositories with the same
// patterns (src/agent/executors/dnf/dnf-repo-file.ts), so a config validated here is one it writes: no
// value can end a line of the INI file or start an option of dnf's command line.

import { arrayAt, enumAt, type FieldErrors, objectAt } from '../../field-errors.ts';
import { RPM_PACKAGE_NAME, RPM_PACKAGE_VERSION } from '../../patterns.ts';
import { boolean, optional } from '../../schema-builder.ts';
import type { PackageManagerRules } from '../package-manager.ts';
import {
  packageChecks,
  validateRepositoryUri,
  validateSigningKeyData,
  versionGlob,
} from '../package-rules.ts';

/** Where the agent writes .repo files (dnf's default reposdir). */
export const DNF_REPOS_DIR = '/etc/yum.repos.d';
/** Where the agent writes a repository's key, named by the .repo file's gpgkey= (RPM's usual place). */
export const DNF_KEY_DIR = '/etc/pki/rpm-gpg';

/** dnf's fields besides those it shares with apt (`uri` is the baseurl, `signingKey` the gpgkey). */
const repositoryFields = {
  gpgcheck: optional(
    boolean(
      'dnf only: verify the packages’ signatures (gpgcheck). Unset: true. With signingKey, only that key ' +
        'is named in gpgkey=; without it, dnf checks against the keys the node’s RPM database already ' +
        'trusts (the distribution’s).',
    ),
  ),
};

function booleanAt(e: FieldErrors, field: string, value: unknown): boolean | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'boolean') {
    e.typeInvalid(field, value, 'a boolean');
    return undefined;
  }
  return value;
}

/**
 * apt's fields, which a dnf repository may not have: an empty list of suites or components is allowed
 * (it says nothing), architectures not at all. Validation and the CRD's rules both read this.
 */
const APT_ONLY = [
  { field: 'suites', emptyAllowed: true },
  { field: 'components', emptyAllowed: true },
  { field: 'architectures', emptyAllowed: false },
] as const;

function aptOnly(field: string): string {
  return `apt only: a dnf repository has no ${field}`;
}

function validateRepository(e: FieldErrors, at: string, value: Record<string, unknown>): void {
  validateRepositoryUri(e, at, value.uri);
  for (const { field, emptyAllowed } of APT_ONLY) {
    const items = arrayAt(e, `${at}.${field}`, value[field]);
    if (items.length > 0 || (!emptyAllowed && value[field] !== undefined && value[field] !== null)) {
      e.forbidden(`${at}.${field}`, aptOnly(field));
    }
  }
  const gpgcheck = booleanAt(e, `${at}.gpgcheck`, value.gpgcheck);
  const key = objectAt(e, `${at}.signingKey`, value.signingKey);
  if (!key) return;
  if (gpgcheck === false) e.forbidden(`${at}.signingKey`, 'a key is pointless with gpgcheck: false');
  const encoding = enumAt(e, `${at}.signingKey.encoding`, key.encoding, ['armored', 'base64'] as const);
  if (encoding === 'base64') {
    e.invalid(`${at}.signingKey.encoding`, encoding, 'dnf takes an ASCII-armored key only (armored)');
  }
  validateSigningKeyData(e, at, key.data, 'armored');
}

export interface Evr {
  /** '0' when the package has none. */
  epoch: string;
  version: string;
  /** Absent in a pin that names the version only. */
  release?: string;
}

/** Splits `[epoch:]version[-release]` (a pin, or rpm's answer); the release is after the last `-`. */
export function parseEvr(text: string): Evr {
  const colon = text.indexOf(':');
  const epoch = colon > 0 && /^[0-9]+$/.test(text.slice(0, colon)) ? text.slice(0, colon) : undefined;
  const rest = epoch === undefined ? text : text.slice(colon + 1);
  const dash = rest.lastIndexOf('-');
  const evr: Evr = { epoch: String(Number(epoch ?? '0')), version: dash < 0 ? rest : rest.slice(0, dash) };
  if (dash >= 0) evr.release = rest.slice(dash + 1);
  return evr;
}

/**
 * dnf's matching of a pinned version against an installed `[epoch:]version-release`, as
 * `dnf install name-<pin>` resolves it: the version (and release, when the pin names one) must match,
 * `*` matching anything; a pin without an epoch matches any epoch, one with an epoch only that epoch
 * (no epoch installed is epoch 0).
 */
export function dnfVersionMatches(pattern: string, installed: string): boolean {
  const pin = parseEvr(pattern);
  const have = parseEvr(installed);
  const pinnedEpoch = /^[0-9]+:/.test(pattern);
  if (pinnedEpoch && pin.epoch !== have.epoch) return false;
  if (pin.release === undefined) {
    // `1.2.3` matches 1.2.3-<any release>; a pin whose glob spans the release (`1.33*`) matches the whole.
    return (
      versionGlob(pin.version, have.version) ||
      versionGlob(pin.version, `${have.version}-${have.release ?? ''}`)
    );
  }
  return versionGlob(pin.version, have.version) && versionGlob(pin.release, have.release ?? '');
}

export const dnfRules = {
  name: 'dnf',
  indexRefresh: 'dnf-makecache',
  repositoryFields,
  repositoryDirs: [DNF_REPOS_DIR, DNF_KEY_DIR],
  repositoryRules: [
    ...APT_ONLY.map(({ field, emptyAllowed }) => ({
      rule: emptyAllowed ? `!has(self.${field}) || size(self.${field}) == 0` : `!has(self.${field})`,
      message: aptOnly(field),
      fieldPath: `.${field}`,
      reason: 'FieldValueForbidden' as const,
    })),
    {
      rule: "!has(self.signingKey) || !has(self.signingKey.encoding) || self.signingKey.encoding == 'armored'",
      message: 'dnf takes an ASCII-armored key only (armored)',
      fieldPath: '.signingKey.encoding',
      reason: 'FieldValueInvalid',
    },
    {
      rule: '!has(self.signingKey) || !has(self.gpgcheck) || self.gpgcheck',
      message: 'a key is pointless with gpgcheck: false',
      fieldPath: '.signingKey',
      reason: 'FieldValueForbidden',
    },
  ],
  ...packageChecks({
    name: { pattern: RPM_PACKAGE_NAME, is: 'an RPM package name' },
    version: { pattern: RPM_PACKAGE_VERSION, is: 'an RPM [epoch:]version[-release]' },
  }),
  validateRepository,
  versionMatches: dnfVersionMatches,
} as const satisfies PackageManagerRules;
