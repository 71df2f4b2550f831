// apt's rules in the contract: deb822 repositories (URIs, suites, components, architectures and an
// optional OpenPGP key), Debian package names and versions, and apt's `=` version syntax. The agent
// writes repositories with the same patterns (src/agent/executors/apt/apt-sources.ts), so a config
// validated here is one the agent writes.

import { signingKeyProblem } from '../../config-rules.ts';
import {
  arrayAt,
  enumAt,
  type FieldErrors,
  objectAt,
  patterned,
  requiredPatterned,
  stringAt,
} from '../../field-errors.ts';
import { MAX_URL_LENGTH } from '../../limits.ts';
import { APT_KEYRING_DIR, APT_SOURCES_DIR } from '../../paths.ts';
import {
  ARCHITECTURE,
  ARMORED_KEY,
  BASE64_KEYRING,
  DEB_PACKAGE_NAME,
  DEB_PACKAGE_VERSION,
  REPOSITORY_URI,
  regex,
  WORD,
} from '../../patterns.ts';
import { array, celString, defaulted, object, optional, string, stringEnum } from '../../schema-builder.ts';
import type { PackageManagerRules, ValidPackage } from '../package-manager.ts';

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
  const uri = stringAt(e, `${at}.uri`, value.uri);
  if (uri === undefined) e.required(`${at}.uri`);
  else if (!URL.canParse(uri) || !['http:', 'https:', 'file:'].includes(new URL(uri).protocol)) {
    e.invalid(`${at}.uri`, uri, 'must be an http://, https:// or file:// URI');
  } else if (!regex(REPOSITORY_URI).test(uri)) {
    // The URL parser drops tabs and newlines; apt (and the agent) would not.
    e.invalid(`${at}.uri`, uri, 'must not contain whitespace, control characters or #');
  }
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
    const data = stringAt(e, `${at}.signingKey.data`, key.data);
    if (data === undefined || data === '') e.required(`${at}.signingKey.data`);
    else {
      const problem = signingKeyProblem(data, encoding === 'base64' ? 'base64' : 'armored');
      if (problem !== undefined) e.invalid(`${at}.signingKey.data`, data, problem);
    }
  }
}

function validatePackage(e: FieldErrors, at: string, value: Record<string, unknown>): ValidPackage {
  return {
    name: requiredPatterned(e, `${at}.name`, value.name, DEB_PACKAGE_NAME, 'a Debian package name'),
    version: patterned(e, `${at}.version`, value.version, DEB_PACKAGE_VERSION, 'a Debian version'),
  };
}

/** apt's `=` version syntax: exact, with `*` matching anything (e.g. 1.28.*). */
export function aptVersionMatches(pattern: string, installed: string): boolean {
  if (!pattern.includes('*')) return pattern === installed;
  const expression = pattern
    .split('*')
    .map((part) => part.replace(/[.+?^${}()|[\]\\]/g, '\\$&'))
    .join('.*');
  return new RegExp(`^${expression}$`).test(installed);
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
  packageRules: [
    {
      rule: `self.name.matches(${celString(DEB_PACKAGE_NAME)})`,
      message: 'must be a Debian package name',
      fieldPath: '.name',
      reason: 'FieldValueInvalid',
    },
    {
      rule: `!has(self.version) || self.version.matches(${celString(DEB_PACKAGE_VERSION)})`,
      message: 'must be a Debian version',
      fieldPath: '.version',
      reason: 'FieldValueInvalid',
    },
  ],
  validateRepository,
  validatePackage,
  versionMatches: aptVersionMatches,
} as const satisfies PackageManagerRules;
