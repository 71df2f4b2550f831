// Field selectors (`metadata.name=foo,spec.nodeName!=`): comma-separated equality requirements, all
// of which must hold. Parsing follows apimachinery's pkg/fields (backslash escapes `\,` `\=` `\\`
// in values); every field must be one the resource can select on, else 400 BadRequest.
// A field an object lacks has the value "" (so `spec.nodeName=` selects unscheduled pods).

import { badRequest } from '../errors.ts';

export type FieldOperator = '=' | '==' | '!=';

export interface FieldRequirement {
  field: string;
  operator: FieldOperator;
  value: string;
}

/** Reads a selectable field of an object; undefined means the object has no value for it. */
export type FieldGetter = (object: any, field: string) => string | undefined;

export interface FieldSelector {
  readonly requirements: readonly FieldRequirement[];
  matches(object: unknown, getField: FieldGetter): boolean;
  isEverything(): boolean;
  /** The value the selector pins `field` to with = or ==, if any. */
  requiresExactMatch(field: string): string | undefined;
  toString(): string;
}

/** Fields every resource can be selected by. */
export const METADATA_FIELDS: readonly string[] = ['metadata.name', 'metadata.namespace'];

/** Operators in the order the parser tries them at each position. */
const OPERATORS: readonly FieldOperator[] = ['!=', '==', '='];

/** Splits on commas not escaped by a backslash. */
function splitTerms(selector: string): string[] {
  if (selector === '') return [];
  const terms: string[] = [];
  let start = 0;
  let escaped = false;
  for (let i = 0; i < selector.length; i++) {
    const ch = selector[i];
    if (escaped) escaped = false;
    else if (ch === '\\') escaped = true;
    else if (ch === ',') {
      terms.push(selector.slice(start, i));
      start = i + 1;
    }
  }
  terms.push(selector.slice(start));
  return terms;
}

/** Splits "field<op>value" at the first operator. */
function splitTerm(term: string): [string, FieldOperator, string] | undefined {
  for (let i = 0; i < term.length; i++) {
    for (const op of OPERATORS) {
      if (term.startsWith(op, i)) return [term.slice(0, i), op, term.slice(i + op.length)];
    }
  }
  return undefined;
}

/** fields.UnescapeValue: `\\`, `\,` and `\=` are the only escapes; bare `,` and `=` are errors. */
function unescapeValue(value: string): string {
  if (!/[\\,=]/.test(value)) return value;
  let result = '';
  let escaped = false;
  for (const ch of value) {
    if (escaped) {
      if (ch !== '\\' && ch !== ',' && ch !== '=') {
        throw badRequest(`invalid field selector: invalid escape sequence: \\${ch}`);
      }
      result += ch;
      escaped = false;
    } else if (ch === '\\') {
      escaped = true;
    } else if (ch === ',' || ch === '=') {
      throw badRequest(`invalid field selector: unescaped character in value: '${ch}'`);
    } else {
      result += ch;
    }
  }
  if (escaped) throw badRequest('invalid field selector: invalid escape sequence: \\');
  return result;
}

function escapeValue(value: string): string {
  return value.replace(/[\\,=]/g, (ch) => `\\${ch}`);
}

function unknownField(field: string, known: readonly string[]): Error {
  return badRequest(
    `"${field}" is not a known field selector: only ${known.map((f) => `"${f}"`).join(', ')}`,
  );
}

/**
 * Parses a `fieldSelector` query parameter. `selectableFields` are the resource's fields beyond
 * metadata.name and metadata.namespace (e.g. spec.nodeName for pods). Throws 400 BadRequest.
 */
export function parseFieldSelector(
  selector: string,
  selectableFields: readonly string[] = [],
): FieldSelector {
  const known = [...METADATA_FIELDS, ...selectableFields.filter((f) => !METADATA_FIELDS.includes(f))];
  const requirements: FieldRequirement[] = [];
  for (const term of splitTerms(selector).sort()) {
    if (term === '') continue;
    const parts = splitTerm(term);
    if (!parts) throw badRequest(`invalid selector: '${selector}'; can't understand '${term}'`);
    const [field, operator, raw] = parts;
    const value = unescapeValue(raw);
    if (!known.includes(field)) throw unknownField(field, known);
    requirements.push({ field, operator, value });
  }
  return {
    requirements,
    matches: (object, getField) =>
      requirements.every((r) => {
        const actual = getField(object, r.field) ?? '';
        return r.operator === '!=' ? actual !== r.value : actual === r.value;
      }),
    isEverything: () => requirements.length === 0,
    requiresExactMatch: (field) => requirements.find((r) => r.field === field && r.operator !== '!=')?.value,
    toString: () => requirements.map((r) => `${r.field}${r.operator}${escapeValue(r.value)}`).join(','),
  };
}

/** The name a selector pins with `metadata.name=<name>`; the server indexes watches by it. */
export function exactNameFromFieldSelector(selector: FieldSelector): string | undefined {
  return selector.requiresExactMatch('metadata.name');
}

/** A FieldGetter for metadata.name / metadata.namespace plus per-kind getters (ResourceDefinition.selectableFields). */
export function fieldGetter(
  selectable: Readonly<Record<string, (object: any) => string | undefined>> = {},
): FieldGetter {
  return (object, field) => {
    if (field === 'metadata.name') return object?.metadata?.name;
    if (field === 'metadata.namespace') return object?.metadata?.namespace;
    return Object.hasOwn(selectable, field) ? selectable[field]!(object) : undefined;
  };
}
