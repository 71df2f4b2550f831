// A small JSON record kept in the state directory (written atomically, 0600), or absent. The agent
// keeps three besides the state component's files: what an interrupted apply may have touched, the
// last failure, and a pending reboot or self-restart.

import { isPlainObject } from '../../util/plain-object.ts';
import { readTextIfPresent } from '../../util/read-if-present.ts';
import { StateFile } from '../state/state-file.ts';

export { isPlainObject as isObject } from '../../util/plain-object.ts';

export class JsonRecordFile<T> extends StateFile {
  private readonly isValid: (value: unknown) => value is T;

  constructor(stateDir: string, fileName: string, isValid: (value: unknown) => value is T) {
    super(stateDir, fileName);
    this.isValid = isValid;
  }

  /** The record, or undefined when absent. An unreadable record counts as absent (it is advisory). */
  async read(): Promise<T | undefined> {
    const text = await readTextIfPresent(this.path);
    if (text === undefined) return undefined;
    try {
      const value: unknown = JSON.parse(text);
      return this.isValid(value) ? value : undefined;
    } catch {
      return undefined;
    }
  }

  write(value: T): Promise<void> {
    return this.replace(`${JSON.stringify(value)}\n`);
  }

  /** Deletes the record; an absent one is left as it is (no directory sync). */
  override remove(): Promise<void> {
    return super.remove();
  }
}

/** A field's type as typeof says it, or the strings it may be. */
export type FieldType = 'string' | 'number' | 'boolean' | readonly string[];

function isOfType(field: unknown, type: FieldType): boolean {
  return typeof type === 'string' ? typeof field === type : type.includes(field as string);
}

/** `value` is an object whose named fields have these types. */
export function hasFields(
  value: unknown,
  fields: Record<string, FieldType>,
): value is Record<string, unknown> {
  return isPlainObject(value) && Object.entries(fields).every(([key, type]) => isOfType(value[key], type));
}

/** Each required field of T with its type: a record's table, checked against its interface. */
export type FieldTypes<T> = {
  [K in keyof T as undefined extends T[K] ? never : K]: T[K] extends boolean
    ? 'boolean'
    : T[K] extends number
      ? 'number'
      : T[K] extends string
        ? 'string' | readonly T[K][]
        : never;
};

/** The validator of a record whose required fields are `fields` (optional ones are not checked). */
export function recordOf<T>(fields: FieldTypes<T>): (value: unknown) => value is T {
  return (value): value is T => hasFields(value, fields as Record<string, FieldType>);
}
