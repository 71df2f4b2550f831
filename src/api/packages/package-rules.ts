// What every package manager's rules check the same way: a repository's `uri`, the data of its inline
// signing key, a package's name and version (validation and the CRD's CEL rules from one description of
// the manager's syntax), and `*` in a pinned version. A manager's own rules (apt-rules.ts, dnf-rules.ts)
// call these and keep what differs between managers.

import { signingKeyProblem } from '../config-rules.ts';
import { type FieldErrors, patterned, requiredPatterned, stringAt } from '../field-errors.ts';
import { REPOSITORY_URI, regex } from '../patterns.ts';
import { celString } from '../schema-builder.ts';
import type { PackageManagerRules, ValidPackage } from './package-manager.ts';

/** A repository's `uri`: required, http(s) or file, and nothing that would break the line it is written on. */
export function validateRepositoryUri(e: FieldErrors, at: string, value: unknown): void {
  const uri = stringAt(e, `${at}.uri`, value);
  if (uri === undefined) e.required(`${at}.uri`);
  else if (!URL.canParse(uri) || !['http:', 'https:', 'file:'].includes(new URL(uri).protocol)) {
    e.invalid(`${at}.uri`, uri, 'must be an http://, https:// or file:// URI');
  } else if (!regex(REPOSITORY_URI).test(uri)) {
    // The URL parser drops tabs and newlines; the agent would not: a newline would start a new line of
    // apt's deb822 file or dnf's .repo file.
    e.invalid(`${at}.uri`, uri, 'must not contain whitespace, control characters or #');
  }
}

/** The `data` of a repository's `signingKey` (at `${at}.signingKey`): required, and a key of `encoding`. */
export function validateSigningKeyData(
  e: FieldErrors,
  at: string,
  data: unknown,
  encoding: 'armored' | 'base64',
): void {
  const text = stringAt(e, `${at}.signingKey.data`, data);
  if (text === undefined || text === '') e.required(`${at}.signingKey.data`);
  else {
    const problem = signingKeyProblem(text, encoding);
    if (problem !== undefined) e.invalid(`${at}.signingKey.data`, text, problem);
  }
}

/** A manager's package names and versions: their patterns, and what a value must be (`a Debian version`). */
export interface PackageSyntax {
  name: { pattern: string; is: string };
  version: { pattern: string; is: string };
}

/**
 * A manager's package checks from its syntax: validatePackage, and the same checks as CEL rules for a
 * real cluster's kube-apiserver, with the same messages (`must be ` + what the value must be).
 */
export function packageChecks({
  name,
  version,
}: PackageSyntax): Pick<PackageManagerRules, 'packageRules' | 'validatePackage'> {
  return {
    packageRules: [
      {
        rule: `self.name.matches(${celString(name.pattern)})`,
        message: `must be ${name.is}`,
        fieldPath: '.name',
        reason: 'FieldValueInvalid',
      },
      {
        rule: `!has(self.version) || self.version.matches(${celString(version.pattern)})`,
        message: `must be ${version.is}`,
        fieldPath: '.version',
        reason: 'FieldValueInvalid',
      },
    ],
    validatePackage(e: FieldErrors, at: string, value: Record<string, unknown>): ValidPackage {
      return {
        name: requiredPatterned(e, `${at}.name`, value.name, name.pattern, name.is),
        version: patterned(e, `${at}.version`, value.version, version.pattern, version.is),
      };
    },
  };
}

/**
 * Whether `text` matches a pinned version's `pattern` as a whole, `*` matching anything: apt's and dnf's
 * pins, and the kubelet's version against its pin (kubelet-version.ts).
 */
export function versionGlob(pattern: string, text: string): boolean {
  const expression = pattern
    .split('*')
    .map((part) => part.replace(/[.+?^${}()|[\]\\]/g, '\\$&'))
    .join('.*');
  return new RegExp(`^${expression}$`).test(text);
}
