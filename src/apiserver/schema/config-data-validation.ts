// kube's ValidateConfigMap / ValidateSecret (pkg/apis/core/validation) and their update rules: keys are
// config keys, the payload is at most 1 MiB, a Secret's type never changes, and `immutable: true`
// freezes the data and itself.

import type { StatusCause } from '../errors.ts';
import type { KubeObject } from '../storage/types.ts';
import { forbidden, invalid, tooLong } from './field-errors.ts';
import { keyPath } from './field-path.ts';
import { byteLength, maxLenError, regexError } from './names.ts';

/** corev1.MaxSecretSize, also the limit for a ConfigMap's data plus binaryData. */
export const MAX_SECRET_SIZE = 1024 * 1024;

/** validation.IsConfigMapKey. */
export function isConfigMapKey(key: string): string[] {
  const errs: string[] = [];
  if (byteLength(key) > 253) errs.push(maxLenError(253));
  if (!/^[-._a-zA-Z0-9]+$/.test(key)) {
    errs.push(
      regexError(
        "a valid config key must consist of alphanumeric characters, '-', '_' or '.'",
        '[-._a-zA-Z0-9]+',
        'key.name',
        'KEY_NAME',
        'key-name',
      ),
    );
  }
  if (key === '.') errs.push("must not be '.'");
  else if (key === '..') errs.push("must not be '..'");
  else if (key.startsWith('..')) errs.push("must not start with '..'");
  return errs;
}

const entries = (map: unknown): [string, string][] =>
  map && typeof map === 'object' ? Object.entries(map as Record<string, string>) : [];

const decodedLength = (b64: string | null): number => Buffer.from(b64 ?? '', 'base64').length;

export function validateConfigMap(cm: KubeObject, old: KubeObject | undefined): StatusCause[] {
  const causes: StatusCause[] = [];
  let total = 0;
  for (const [field, other] of [
    ['data', 'binaryData'],
    ['binaryData', 'data'],
  ] as const) {
    for (const [key, value] of entries(cm[field])) {
      for (const msg of isConfigMapKey(key)) causes.push(invalid(keyPath(field, key), key, msg));
      if (cm[other] && Object.hasOwn(cm[other], key))
        causes.push(invalid(keyPath(field, key), key, `duplicate of key present in ${other}`));
      total += field === 'data' ? Buffer.byteLength(value ?? '') : decodedLength(value);
    }
  }
  if (total > MAX_SECRET_SIZE) causes.push(tooLong('', MAX_SECRET_SIZE));
  if (old?.immutable === true) causes.push(...immutableChanges(cm, old, ['data', 'binaryData']));
  return causes;
}

export function validateSecret(secret: KubeObject, old: KubeObject | undefined): StatusCause[] {
  const causes: StatusCause[] = [];
  let total = 0;
  for (const [key, value] of entries(secret.data)) {
    for (const msg of isConfigMapKey(key)) causes.push(invalid(keyPath('data', key), key, msg));
    total += decodedLength(value);
  }
  if (total > MAX_SECRET_SIZE) causes.push(tooLong('data', MAX_SECRET_SIZE));
  if (old) {
    if ((secret.type ?? '') !== (old.type ?? '')) {
      causes.push(invalid('type', secret.type ?? '', 'field is immutable'));
    }
    if (old.immutable === true) causes.push(...immutableChanges(secret, old, ['data']));
  }
  return causes;
}

function immutableChanges(obj: KubeObject, old: KubeObject, fields: string[]): StatusCause[] {
  const causes: StatusCause[] = [];
  if (obj.immutable !== true)
    causes.push(forbidden('immutable', 'field is immutable when `immutable` is set'));
  for (const field of fields) {
    if (JSON.stringify(sorted(obj[field])) !== JSON.stringify(sorted(old[field]))) {
      causes.push(forbidden(field, 'field is immutable when `immutable` is set'));
    }
  }
  return causes;
}

function sorted(map: unknown): [string, unknown][] {
  return entries(map).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
}
