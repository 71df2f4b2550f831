// Constructors for field-level validation causes, with the types and wording of apimachinery's
// field.Error: the cause message is kube's ErrorBody (`Invalid value: "x": detail`), the field its path.

import type { StatusCause } from '../errors.ts';
import { causeField, type FieldPath } from './field-path.ts';
import { formatBadValue, goQuote } from './go-format.ts';

export type CauseType =
  | 'FieldValueNotFound'
  | 'FieldValueRequired'
  | 'FieldValueDuplicate'
  | 'FieldValueInvalid'
  | 'FieldValueNotSupported'
  | 'FieldValueForbidden'
  | 'FieldValueTooLong'
  | 'FieldValueTooMany'
  | 'InternalError'
  | 'FieldValueTypeInvalid';

const typeText: Record<CauseType, string> = {
  FieldValueNotFound: 'Not found',
  FieldValueRequired: 'Required value',
  FieldValueDuplicate: 'Duplicate value',
  FieldValueInvalid: 'Invalid value',
  FieldValueNotSupported: 'Unsupported value',
  FieldValueForbidden: 'Forbidden',
  FieldValueTooLong: 'Too long',
  FieldValueTooMany: 'Too many',
  InternalError: 'Internal error',
  FieldValueTypeInvalid: 'Invalid value',
};

/** Types whose message never shows the bad value. */
const valueless = new Set<CauseType>([
  'FieldValueRequired',
  'FieldValueForbidden',
  'FieldValueTooLong',
  'InternalError',
]);

const omitted = Symbol('omitted value');

function cause(type: CauseType, path: FieldPath, value: unknown, detail: string): StatusCause {
  let message = typeText[type];
  if (!valueless.has(type) && value !== omitted) message += `: ${formatBadValue(value)}`;
  if (detail !== '') message += `: ${detail}`;
  return { type, message, field: causeField(path) };
}

export function required(path: FieldPath, detail = ''): StatusCause {
  return cause('FieldValueRequired', path, undefined, detail);
}

export function invalid(path: FieldPath, value: unknown, detail: string): StatusCause {
  return cause('FieldValueInvalid', path, value, detail);
}

export function typeInvalid(path: FieldPath, value: unknown, detail: string): StatusCause {
  return cause('FieldValueTypeInvalid', path, value, detail);
}

export function forbidden(path: FieldPath, detail: string): StatusCause {
  return cause('FieldValueForbidden', path, undefined, detail);
}

export function duplicate(path: FieldPath, value: unknown): StatusCause {
  return cause('FieldValueDuplicate', path, value, '');
}

export function notFound(path: FieldPath, value: unknown): StatusCause {
  return cause('FieldValueNotFound', path, value, '');
}

export function notSupported(path: FieldPath, value: unknown, supported: readonly string[]): StatusCause {
  const detail = supported.length > 0 ? `supported values: ${supported.map(goQuote).join(', ')}` : '';
  return cause('FieldValueNotSupported', path, value, detail);
}

/** field.TooLong: `Too long: may not be more than 5 bytes`. */
export function tooLong(path: FieldPath, maxLength: number): StatusCause {
  const detail =
    maxLength >= 0
      ? `may not be more than ${maxLength} ${maxLength === 1 ? 'byte' : 'bytes'}`
      : 'value is too long';
  return cause('FieldValueTooLong', path, undefined, detail);
}

/** field.TooMany: `Too many: 4: must have at most 3 items`. */
export function tooMany(path: FieldPath, actual: number, max: number): StatusCause {
  const detail = max >= 0 ? `must have at most ${max} items` : 'has too many items';
  return cause('FieldValueTooMany', path, actual >= 0 ? actual : omitted, detail);
}

export function internalError(path: FieldPath, detail: string): StatusCause {
  return cause('InternalError', path, undefined, detail);
}

/** `field: message`, the way field.Error.Error() prints a cause. */
export function causeText(c: StatusCause): string {
  return c.field ? `${c.field}: ${c.message}` : c.message;
}

/**
 * The summary kube puts after `<Kind> "<name>" is invalid: `: one cause as is, several in brackets,
 * duplicates dropped (utilerrors.NewAggregate over field.ErrorList.ToAggregate).
 */
export function aggregateMessage(causes: readonly StatusCause[]): string {
  const texts = [...new Set(causes.map(causeText))];
  return texts.length === 1 ? texts[0]! : `[${texts.join(', ')}]`;
}
