// apt's rules in the contract: deb822 repositories (URIs, suites, components, architectures and an
// optional OpenPGP key), Debian package names and versions, and apt's `=` version syntax. The agent
// writes repositories with the same patterns (src/agent/executors/apt/apt-sources.ts), so a config
// validated here is one the agent writes.

import { arrayAt, enumAt, type FieldErrors, objectAt, requiredPatterned } from '../../field-errors.ts';
import { MAX_URL_LENGTH } from '../../limits.ts';
import { APT_KEYRING_DIR, APT_SOURCES_DIR } from '../../paths.ts';
import {
  ARCHITECTURE,
  ARMORED_KEY,
  BASE64_KEYRING,
  DEB_PACKAGE_NAME,
  DEB_PACKAGE_VERSION,
  REPOSITORY_URI,
  WORD,
} from '../../patterns.ts';
import { array, defaulted, object, optional, string, stringEnum } from '../../schema-builder.ts';
import type { PackageManagerRules } from '../package-manager.ts';
import {
  packageChecks,
  validateRepositoryUri,
  validateSigningKeyData,
  versionGlob,
} from '../package-rules.ts';

const signingKeySchema = object(
  {
    data: string('The public key.', { maxLength: 65536 }),
    encoding: defaulted(
      stringEnum(['armored', 'base64'], '`armored` (ASCII-armored OpenPGP) or `base64` of a binary keyring.'),
      'armored',
    ),
  },
  'The OpenPGP key the repository is signed with, trusted for this repository only (written to a keyring ' +
    'referenced by Signed-By).',
  // signingKeyProblem as patterns, chosen by the encoding (patterns cost no CEL budget).
  {
    anyOf: [
      { properties: { encoding: { enum: ['armored'] }, data: { pattern: ARMORED_KEY } } },
      { properties: { encoding: { enum: ['base64'] }, data: { pattern: BASE64_KEYRING } } },
    ],
  },
);

/** An apt repository's fields in the NodeConfig schema (besides name and manager). */
const repositoryFields = {
  uri: string('Base URI of the repository.', { pattern: REPOSITORY_URI, maxLength: MAX_URL_LENGTH }),
  suites: optional(
    array(
      string('A suite.', { pattern: WORD, maxLength: 256 }),
      'apt only, and required there: suites, e.g. bookworm or stable; a flat repository: ./',
      { minItems: 1, maxItems: 16 },
    ),
  ),
  components: defaulted(
    array(string('A component.', { pattern: WORD }), 'Components, e.g. main; empty for a flat repository.', {
      maxItems: 32,
    }),
    [],
  ),
  architectures: optional(
    array(string('An architecture.', { pattern: ARCHITECTURE }), 'Restrict to these.', { maxItems: 16 }),
  ),
  signingKey: optional(signingKeySchema),
};

const A_WORD = 'a single word (no whitespace, control characters or #)';

function validateRepository(e: FieldErrors, at: string, value: Record<string, unknown>): void {
  validateRepositoryUri(e, at, value.uri);
  const suites = arrayAt(e, `${at}.suites`, value.suites);
  if (suites.length === 0) e.required(`${at}.suites`);
  for (const [i, s] of suites.entries()) requiredPatterned(e, `${at}.suites[${i}]`, s, WORD, A_WORD);
  const components = arrayAt(e, `${at}.components`, value.components);
  for (const [i, c] of components.entries()) {
    requiredPatterned(e, `${at}.components[${i}]`, c, WORD, A_WORD);
  }
  const flat = suites.some((s) => typeof s === 'string' && s.endsWith('/'));
  if (flat && components.length > 0) {
    e.forbidden(`${at}.components`, 'a flat repository (suite ending in /) has no components');
  } else if (!flat && suites.length > 0 && components.length === 0) {
    e.required(`${at}.components`, 'at least one component unless the suite ends in / (flat repository)');
  }
  arrayAt(e, `${at}.architectures`, value.architectures).forEach((a, i) => {
    requiredPatterned(e, `${at}.architectures[${i}]`, a, ARCHITECTURE, 'a Debian architecture');
  });
  if (value.gpgcheck !== undefined && value.gpgcheck !== null) {
    e.forbidden(`${at}.gpgcheck`, 'dnf only: apt checks every repository’s signature');
  }
  const key = objectAt(e, `${at}.signingKey`, value.signingKey);
  if (key) {
    const encoding = enumAt(e, `${at}.signingKey.encoding`, key.encoding, ['armored', 'base64'] as const);
    validateSigningKeyData(e, at, key.data, encoding === 'base64' ? 'base64' : 'armored');
  }
}

/** apt's `=` version syntax: exact, with `*` matching anything (e.g. 1.28.*). */
export function aptVersionMatches(pattern: string, installed: string): boolean {
  if (!pattern.includes('*')) return pattern === installed;
  return versionGlob(pattern, installed);
}

export const aptRules = {
  name: 'apt',
  indexRefresh: 'apt-update',
  repositoryFields,
  repositoryDirs: [APT_SOURCES_DIR, APT_KEYRING_DIR],
  repositoryRules: [
    {
      rule: 'has(self.suites)',
      message: 'an apt repository names its suites',
      fieldPath: '.suites',
      reason: 'FieldValueRequired',
    },
    {
      rule: '!has(self.gpgcheck)',
      message: 'dnf only: apt checks every repository’s signature',
      fieldPath: '.gpgcheck',
      reason: 'FieldValueForbidden',
    },
    {
      rule: "!has(self.suites) || !self.suites.exists(s, s.endsWith('/')) || !has(self.components) || size(self.components) == 0",
      message: 'a flat repository (suite ending in /) has no components',
      fieldPath: '.components',
      reason: 'FieldValueForbidden',
    },
    {
      rule: "!has(self.suites) || self.suites.exists(s, s.endsWith('/')) || (has(self.components) && size(self.components) > 0)",
      message: 'at least one component unless the suite ends in / (flat repository)',
      fieldPath: '.components',
      reason: 'FieldValueRequired',
    },
  ],
  ...packageChecks({
    name: { pattern: DEB_PACKAGE_NAME, is: 'a Debian package name' },
    version: { pattern: DEB_PACKAGE_VERSION, is: 'a Debian version' },
  }),
  validateRepository,
  versionMatches: aptVersionMatches,
} as const satisfies PackageManagerRules;
