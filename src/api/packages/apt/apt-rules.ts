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
import { ARCHITECTURE, PACKAGE_NAME, PACKAGE_VERSION, REPOSITORY_URI, regex, WORD } from '../../patterns.ts';
import type { PackageManagerRules, ValidPackage } from '../package-manager.ts';

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
    name: requiredPatterned(e, `${at}.name`, value.name, PACKAGE_NAME, 'a Debian package name'),
    version: patterned(e, `${at}.version`, value.version, PACKAGE_VERSION, 'a Debian version'),
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
  validateRepository,
  validatePackage,
  versionMatches: aptVersionMatches,
} as const satisfies PackageManagerRules;
