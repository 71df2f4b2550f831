// Collects field errors the way Kubernetes reports them: a field path such as `spec.files[0].path`,
// a cause type (FieldValueInvalid, ...) and a message in apimachinery's wording, so a 422 from the
// embedded API server reads like one from a real one.

import type { StatusCause } from '../util/kube-api-types.ts';
import { isLooseObject as isObject } from '../util/plain-object.ts';

export { isLooseObject as isObject } from '../util/plain-object.ts';

export type Cause = Required<StatusCause>;

/** Values in messages are shortened: a cause must never echo a whole file. */
function show(value: unknown): string {
  const text = typeof value === 'string' ? JSON.stringify(value) : (JSON.stringify(value) ?? String(value));
  return text.length > 80 ? `${text.slice(0, 77)}...` : text;
}

export class FieldErrors {
  readonly causes: Cause[] = [];

  private add(type: string, field: string, message: string): void {
    this.causes.push({ type, field, message });
  }

  invalid(field: string, value: unknown, detail: string): void {
    this.add('FieldValueInvalid', field, `Invalid value: ${show(value)}: ${detail}`);
  }

  required(field: string, detail?: string): void {
    this.add('FieldValueRequired', field, detail ? `Required value: ${detail}` : 'Required value');
  }

  duplicate(field: string, value: unknown): void {
    this.add('FieldValueDuplicate', field, `Duplicate value: ${show(value)}`);
  }

  notSupported(field: string, value: unknown, supported: readonly string[]): void {
    const list = supported.map((s) => JSON.stringify(s)).join(', ');
    this.add('FieldValueNotSupported', field, `Unsupported value: ${show(value)}: supported values: ${list}`);
  }

  tooLong(field: string, max: number, actual: number): void {
    this.add('FieldValueTooLong', field, `Too long: may not be more than ${max} bytes (has ${actual})`);
  }

  forbidden(field: string, detail: string): void {
    this.add('FieldValueForbidden', field, `Forbidden: ${detail}`);
  }

  typeInvalid(field: string, value: unknown, expected: string): void {
    this.add('FieldValueTypeInvalid', field, `Invalid value: ${show(value)}: must be ${expected}`);
  }
}

/** Reads an optional string field, reporting a wrong type. Returns undefined when absent or wrong. */
export function stringAt(errors: FieldErrors, field: string, value: unknown): string | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'string') {
    errors.typeInvalid(field, value, 'a string');
    return undefined;
  }
  return value;
}

/** Reads an optional array field, reporting a wrong type. */
export function arrayAt(errors: FieldErrors, field: string, value: unknown): unknown[] {
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value)) {
    errors.typeInvalid(field, value, 'a list');
    return [];
  }
  return value;
}

/**
 * Reads a required string field in which an empty string counts as missing: undefined or '' is reported
 * as required, another type as stringAt reports it. Returns the string when it is one and not empty.
 */
export function nonEmptyStringAt(errors: FieldErrors, field: string, value: unknown): string | undefined {
  const text = stringAt(errors, field, value);
  if (text !== undefined && text !== '') return text;
  if (value === undefined || value === '') errors.required(field);
  return undefined;
}

/**
 * Calls `each` with every object of an optional list field and its path (`field[i]`), in order; an item
 * that is not an object is reported and skipped.
 */
export function eachObject(
  errors: FieldErrors,
  field: string,
  value: unknown,
  each: (item: Record<string, any>, at: string) => void,
): void {
  arrayAt(errors, field, value).forEach((item, i) => {
    const at = `${field}[${i}]`;
    if (isObject(item)) each(item, at);
    else errors.typeInvalid(at, item, 'an object');
  });
}

/**
 * Reads a required string field in which `problem` finds nothing wrong (it returns what is wrong, or
 * undefined). Returns undefined when absent, not a string, or wrong.
 */
export function requiredValid(
  errors: FieldErrors,
  field: string,
  value: unknown,
  problem: (value: string) => string | undefined,
): string | undefined {
  const text = stringAt(errors, field, value);
  if (text === undefined) {
    errors.required(field);
    return undefined;
  }
  const wrong = problem(text);
  if (wrong === undefined) return text;
  errors.invalid(field, text, wrong);
  return undefined;
}

/** Reads an optional object field, reporting a wrong type. */
export function objectAt(
  errors: FieldErrors,
  field: string,
  value: unknown,
): Record<string, any> | undefined {
  if (value === undefined || value === null) return undefined;
  if (!isObject(value)) {
    errors.typeInvalid(field, value, 'an object');
    return undefined;
  }
  return value;
}

/** Reads an optional integer field within bounds. */
export function integerAt(
  errors: FieldErrors,
  field: string,
  value: unknown,
  min: number,
  max = Number.MAX_SAFE_INTEGER,
): number | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'number' || !Number.isInteger(value)) {
    errors.typeInvalid(field, value, 'an integer');
    return undefined;
  }
  if (value < min || value > max) {
    const range = max === Number.MAX_SAFE_INTEGER ? `at least ${min}` : `between ${min} and ${max}`;
    errors.invalid(field, value, `must be ${range}`);
    return undefined;
  }
  return value;
}

/** Reads an optional enum field. */
export function enumAt<const V extends readonly string[]>(
  errors: FieldErrors,
  field: string,
  value: unknown,
  supported: V,
): V[number] | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'string' || !supported.includes(value)) {
    errors.notSupported(field, value, supported);
    return undefined;
  }
  return value;
}

/** Checks a string against a pattern; returns the string when present and valid. */
export function patterned(
  errors: FieldErrors,
  field: string,
  value: unknown,
  pattern: string,
  what: string,
  maxLength = Number.MAX_SAFE_INTEGER,
): string | undefined {
  const text = stringAt(errors, field, value);
  if (text === undefined) return undefined;
  if (text.length > maxLength) {
    errors.invalid(field, text, `must be at most ${maxLength} characters`);
    return undefined;
  }
  if (!new RegExp(pattern).test(text)) {
    errors.invalid(field, text, `must be ${what}`);
    return undefined;
  }
  return text;
}

/** Like patterned, and reports a missing value. */
export function requiredPatterned(
  errors: FieldErrors,
  field: string,
  value: unknown,
  pattern: string,
  what: string,
  maxLength?: number,
): string | undefined {
  if (value === undefined || value === null || value === '') {
    errors.required(field);
    return undefined;
  }
  return patterned(errors, field, value, pattern, what, maxLength);
}
