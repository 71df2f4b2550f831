// Kubernetes name, label and annotation rules with apimachinery's exact messages
// (k8s.io/apimachinery/pkg/util/validation and pkg/api/validation).

import { randomInt } from 'node:crypto';
import type { StatusCause } from '../errors.ts';
import { invalid, tooLong } from './field-errors.ts';
import type { FieldPath } from './field-path.ts';
import { isJsonObject } from './json-value.ts';

/** A ValidateNameFunc: messages for a name (or, with prefix, a generateName). */
export type NameValidator = (name: string, prefix: boolean) => string[];

const dns1123LabelFmt = '[a-z0-9]([-a-z0-9]*[a-z0-9])?';
const dns1123LabelErrMsg =
  "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character";
export const DNS1123_LABEL_MAX_LENGTH = 63;

const dns1123SubdomainFmt = `${dns1123LabelFmt}(\\.${dns1123LabelFmt})*`;
const dns1123SubdomainErrMsg =
  "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character";
export const DNS1123_SUBDOMAIN_MAX_LENGTH = 253;

const dns1035LabelFmt = '[a-z]([-a-z0-9]*[a-z0-9])?';
const dns1035LabelErrMsg =
  "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character";
export const DNS1035_LABEL_MAX_LENGTH = 63;

const qualifiedNameFmt = '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]';
const qualifiedNameErrMsg =
  "must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character";
const qualifiedNameMaxLength = 63;

const labelValueFmt = `(${qualifiedNameFmt})?`;
const labelValueErrMsg =
  "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character";
export const LABEL_VALUE_MAX_LENGTH = 63;

/** Total size of all annotation keys and values (apimachinery TotalAnnotationSizeLimitB). */
export const TOTAL_ANNOTATION_SIZE_LIMIT = 256 * 1024;

const anchored = (fmt: string) => new RegExp(`^${fmt}$`);
const dns1123LabelRegexp = anchored(dns1123LabelFmt);
const dns1123SubdomainRegexp = anchored(dns1123SubdomainFmt);
const dns1035LabelRegexp = anchored(dns1035LabelFmt);
const qualifiedNameRegexp = anchored(qualifiedNameFmt);
const labelValueRegexp = anchored(labelValueFmt);

/** Byte length, as Go's len() counts a string. */
export function byteLength(s: string): number {
  return Buffer.byteLength(s, 'utf8');
}

export function maxLenError(length: number): string {
  return `must be no more than ${length} characters`;
}

export function emptyError(): string {
  return 'must be non-empty';
}

/**
 * validation.RegexError: the message, examples, and the regex itself. Examples after the first follow
 * ' or ' although each already ends in ', ', so kube's text has two spaces there: `'a',  or 'b', `.
 */
export function regexError(msg: string, fmt: string, ...examples: string[]): string {
  if (examples.length === 0) return `${msg} (regex used for validation is '${fmt}')`;
  const shown = examples.map((e) => `'${e}', `).join(' or ');
  return `${msg} (e.g. ${shown}regex used for validation is '${fmt}')`;
}

export function isDNS1123Label(value: string): string[] {
  const errs: string[] = [];
  if (byteLength(value) > DNS1123_LABEL_MAX_LENGTH) errs.push(maxLenError(DNS1123_LABEL_MAX_LENGTH));
  if (!dns1123LabelRegexp.test(value)) {
    // A valid subdomain that is not a label can only be one with dots (the length was checked above).
    if (dns1123SubdomainRegexp.test(value)) errs.push('must not contain dots');
    else errs.push(regexError(dns1123LabelErrMsg, dns1123LabelFmt, 'my-name', '123-abc'));
  }
  return errs;
}

export function isDNS1123Subdomain(value: string): string[] {
  const errs: string[] = [];
  if (byteLength(value) > DNS1123_SUBDOMAIN_MAX_LENGTH) errs.push(maxLenError(DNS1123_SUBDOMAIN_MAX_LENGTH));
  if (!dns1123SubdomainRegexp.test(value)) {
    errs.push(regexError(dns1123SubdomainErrMsg, dns1123SubdomainFmt, 'example.com'));
  }
  return errs;
}

export function isDNS1035Label(value: string): string[] {
  const errs: string[] = [];
  if (byteLength(value) > DNS1035_LABEL_MAX_LENGTH) errs.push(maxLenError(DNS1035_LABEL_MAX_LENGTH));
  if (!dns1035LabelRegexp.test(value)) {
    errs.push(regexError(dns1035LabelErrMsg, dns1035LabelFmt, 'my-name', 'abc-123'));
  }
  return errs;
}

/** Label keys, annotation keys and finalizers: `[prefix/]name` with a DNS subdomain prefix. */
export function isQualifiedName(value: string): string[] {
  const errs: string[] = [];
  const parts = value.split('/');
  let name: string;
  if (parts.length === 1) {
    name = parts[0]!;
  } else if (parts.length === 2) {
    const prefix = parts[0]!;
    name = parts[1]!;
    if (prefix.length === 0) errs.push(`prefix part ${emptyError()}`);
    else for (const msg of isDNS1123Subdomain(prefix)) errs.push(`prefix part ${msg}`);
  } else {
    return [
      `a qualified name ${regexError(qualifiedNameErrMsg, qualifiedNameFmt, 'MyName', 'my.name', '123-abc')} with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')`,
    ];
  }
  if (name.length === 0) errs.push(`name part ${emptyError()}`);
  else if (byteLength(name) > qualifiedNameMaxLength)
    errs.push(`name part ${maxLenError(qualifiedNameMaxLength)}`);
  if (!qualifiedNameRegexp.test(name)) {
    errs.push(
      `name part ${regexError(qualifiedNameErrMsg, qualifiedNameFmt, 'MyName', 'my.name', '123-abc')}`,
    );
  }
  return errs;
}

export function isValidLabelValue(value: string): string[] {
  const errs: string[] = [];
  if (byteLength(value) > LABEL_VALUE_MAX_LENGTH) errs.push(maxLenError(LABEL_VALUE_MAX_LENGTH));
  if (!labelValueRegexp.test(value))
    errs.push(regexError(labelValueErrMsg, labelValueFmt, 'MyValue', 'my_value', '12345'));
  return errs;
}

/** Names that appear as one URL path segment (kube's floor for every object name). */
export function isValidPathSegmentName(name: string): string[] {
  for (const illegal of ['.', '..']) if (name === illegal) return [`may not be '${illegal}'`];
  return isValidPathSegmentPrefix(name);
}

export function isValidPathSegmentPrefix(name: string): string[] {
  const errs: string[] = [];
  for (const illegal of ['/', '%']) if (name.includes(illegal)) errs.push(`may not contain '${illegal}'`);
  return errs;
}

/** generateName may end in '-' (a random suffix follows); kube masks it before checking. */
function maskTrailingDash(name: string): string {
  return name.length > 1 && name.endsWith('-') ? `${name.slice(0, -1)}a` : name;
}

/** Most kinds, custom resources included. */
export const nameIsDNSSubdomain: NameValidator = (name, prefix) =>
  isDNS1123Subdomain(prefix ? maskTrailingDash(name) : name);

/** Namespaces, services and other kinds whose names become DNS labels. */
export const nameIsDNSLabel: NameValidator = (name, prefix) =>
  isDNS1123Label(prefix ? maskTrailingDash(name) : name);

export const nameIsDNS1035Label: NameValidator = (name, prefix) =>
  isDNS1035Label(prefix ? maskTrailingDash(name) : name);

export const validateNamespaceName: NameValidator = nameIsDNSLabel;

export const validatePathSegmentName: NameValidator = (name, prefix) =>
  prefix ? isValidPathSegmentPrefix(name) : isValidPathSegmentName(name);

// names.SimpleNameGenerator: at most 58 characters of the base, then 5 random characters.
const generatedAlphabet = 'bcdfghjklmnpqrstvwxz2456789';
const maxNameLength = 63;
const randomLength = 5;
export const MAX_GENERATED_NAME_LENGTH = maxNameLength - randomLength;

/** The name kube generates from metadata.generateName. */
export function generateName(base: string, random: (max: number) => number = randomInt): string {
  const prefix = base.length > MAX_GENERATED_NAME_LENGTH ? base.slice(0, MAX_GENERATED_NAME_LENGTH) : base;
  let suffix = '';
  for (let i = 0; i < randomLength; i++) suffix += generatedAlphabet[random(generatedAlphabet.length)];
  return prefix + suffix;
}

/** metav1validation.ValidateLabels: every cause sits on the map's path, not on the key. */
export function validateLabels(labels: unknown, path: FieldPath): StatusCause[] {
  if (!isJsonObject(labels)) return [];
  const causes: StatusCause[] = [];
  for (const [key, value] of Object.entries(labels)) {
    for (const msg of isQualifiedName(key)) causes.push(invalid(path, key, msg));
    if (typeof value === 'string')
      for (const msg of isValidLabelValue(value)) causes.push(invalid(path, value, msg));
  }
  return causes;
}

/** Sum of key and value bytes, the measure kube limits to 256 KiB. */
export function annotationsSize(annotations: Record<string, unknown>): number {
  let total = 0;
  for (const [key, value] of Object.entries(annotations)) {
    total += byteLength(key) + (typeof value === 'string' ? byteLength(value) : 0);
  }
  return total;
}

/** ValidateAnnotations: keys are qualified names (case-insensitive) and all of them fit in 256 KiB. */
export function validateAnnotations(annotations: unknown, path: FieldPath): StatusCause[] {
  if (!isJsonObject(annotations)) return [];
  const causes: StatusCause[] = [];
  for (const key of Object.keys(annotations)) {
    for (const msg of isQualifiedName(key.toLowerCase())) causes.push(invalid(path, key, msg));
  }
  if (annotationsSize(annotations) > TOTAL_ANNOTATION_SIZE_LIMIT)
    causes.push(tooLong(path, TOTAL_ANNOTATION_SIZE_LIMIT));
  return causes;
}
