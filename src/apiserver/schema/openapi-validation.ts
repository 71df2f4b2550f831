// Validates a JSON value against an OpenAPI v3 schema the way kube-openapi's SchemaValidator does for
// custom resources, and reports it the way apiextensions converts those results into field errors:
// `spec.replicas: Invalid value: "string": spec.replicas in body must be of type integer: "string"`.

import type { StatusCause } from '../errors.ts';
import type { JSONSchemaProps } from '../registry/resource-definition.ts';
import { invalid, notSupported, required, tooLong, tooMany, typeInvalid } from './field-errors.ts';
import { childPath, type FieldPath } from './field-path.ts';
import { goFloat, goJson, goNumber, goQuote } from './go-format.ts';
import { goRegexpMatches } from './go-regexp.ts';
import { isJsonObject, type JsonType, jsonEqual, jsonTypeOf } from './json-value.ts';
import { isSupportedFormat, matchesFormat } from './string-formats.ts';
import type { SchemaValidator } from './structural-validation.ts';

/** The types a node admits; int-or-string is kube's shorthand for integer or string. */
export function schemaTypes(s: JSONSchemaProps): string[] {
  if (s['x-kubernetes-int-or-string']) return ['integer', 'string'];
  return s.type ? [s.type] : [];
}

// kube-openapi's idea of a Go value's format when a schema with a format meets a non-string.
function inferredFormat(kind: JsonType): string {
  if (kind === 'integer') return 'int64';
  if (kind === 'number') return 'float64';
  return '';
}

function isMultipleOf(value: number, factor: number): boolean {
  const quotient = value / factor;
  if (!Number.isFinite(quotient)) return false;
  const nearest = Math.round(quotient);
  if (quotient === nearest) return true;
  return Math.abs(quotient - nearest) / Math.max(Math.abs(quotient), 1) < 1e-9;
}

function hasDuplicates(items: unknown[]): boolean {
  for (let i = 0; i < items.length; i++) {
    for (let j = i + 1; j < items.length; j++) if (jsonEqual(items[i], items[j])) return true;
  }
  return false;
}

class SchemaValidation {
  private readonly prefix: FieldPath;

  constructor(prefix: FieldPath) {
    this.prefix = prefix;
  }

  /** kube-openapi names nodes `spec.files[2].path` (root children may carry a leading dot). */
  private field(name: string): FieldPath {
    if (name === '' || name === '.') return this.prefix;
    return childPath(this.prefix, name.startsWith('.') ? name.slice(1) : name);
  }

  /** Composite (anyOf/oneOf/allOf/not) failures are plain errors, which kube files under the parent path. */
  private composite(detail: string): StatusCause {
    return invalid(this.prefix, '', detail);
  }

  validate(value: unknown, s: JSONSchemaProps, name: string): StatusCause[] {
    const errs: StatusCause[] = [];
    const types = schemaTypes(s);
    const format = isSupportedFormat(s.format) ? s.format : '';

    if (value === null || value === undefined) {
      if (types.length > 0 && !s.nullable) {
        errs.push(
          typeInvalid(this.field(name), 'null', `${name} in body must be of type ${types.join(',')}: "null"`),
        );
      }
      errs.push(...this.checkEnum(value ?? null, s, name));
      return errs;
    }

    const kind = jsonTypeOf(value);
    errs.push(...this.checkType(kind, types, format, name));
    errs.push(...this.checkCombinators(value, s, name));
    if (typeof value === 'string') {
      errs.push(...this.checkString(value, s, name));
      if (format !== '' && matchesFormat(format, value) === false) {
        errs.push(
          typeInvalid(
            this.field(name),
            value,
            `${name} in body must be of type ${format}: ${goQuote(value)}`,
          ),
        );
      }
    }
    if (typeof value === 'number') errs.push(...this.checkNumber(value, kind, s, name));
    if (Array.isArray(value)) errs.push(...this.checkArray(value, s, name));
    errs.push(...this.checkEnum(value, s, name));
    if (isJsonObject(value)) errs.push(...this.checkObject(value, s, name));
    return errs;
  }

  private checkType(kind: JsonType, types: string[], format: string, name: string): StatusCause[] {
    if (types.length === 0 && format === '') return [];
    const intAsNumber = kind === 'integer' && types.includes('number');
    const typeMatches = types.includes(kind) || intAsNumber;
    const stringLike = kind === 'string' || kind === 'array';
    if (!stringLike && format !== '' && !(typeMatches || inferredFormat(kind) === format)) {
      const got = inferredFormat(kind);
      return [
        typeInvalid(this.field(name), got, `${name} in body must be of type ${format}: ${goQuote(got)}`),
      ];
    }
    // kube-openapi skips the type check of formatted strings and lists (a quirk kept for fidelity).
    if (!types.includes('number') && !types.includes('integer') && format !== '' && stringLike) return [];
    if (types.length > 0 && !typeMatches) {
      return [
        typeInvalid(this.field(name), kind, `${name} in body must be of type ${types.join(',')}: "${kind}"`),
      ];
    }
    return [];
  }

  private checkCombinators(value: unknown, s: JSONSchemaProps, name: string): StatusCause[] {
    const errs: StatusCause[] = [];
    const quoted = goQuote(name);
    if (s.anyOf && s.anyOf.length > 0) {
      let best: StatusCause[] | undefined;
      let succeeded = false;
      for (const sub of s.anyOf) {
        const result = this.validate(value, sub, name);
        if (result.length === 0) {
          succeeded = true;
          best = undefined;
          break;
        }
        if (best === undefined || result.length < best.length) best = result;
      }
      if (!succeeded) errs.push(this.composite(`${quoted} must validate at least one schema (anyOf)`));
      if (best) errs.push(...best);
    }
    if (s.oneOf && s.oneOf.length > 0) {
      let best: StatusCause[] | undefined;
      let valid = 0;
      for (const sub of s.oneOf) {
        const result = this.validate(value, sub, name);
        if (result.length === 0) {
          valid++;
          best = undefined;
        } else if (valid === 0 && (best === undefined || result.length < best.length)) {
          best = result;
        }
      }
      if (valid !== 1) {
        const found = valid === 0 ? 'Found none valid' : `Found ${valid} valid alternatives`;
        errs.push(this.composite(`${quoted} must validate one and only one schema (oneOf). ${found}`));
        if (best) errs.push(...best);
      }
    }
    if (s.allOf && s.allOf.length > 0) {
      let valid = 0;
      for (const sub of s.allOf) {
        const result = this.validate(value, sub, name);
        if (result.length === 0) valid++;
        errs.push(...result);
      }
      if (valid !== s.allOf.length) {
        const none = valid === 0 ? '. None validated' : '';
        errs.push(this.composite(`${quoted} must validate all the schemas (allOf)${none}`));
      }
    }
    if (s.not && this.validate(value, s.not, name).length === 0) {
      errs.push(this.composite(`${quoted} must not validate the schema (not)`));
    }
    return errs;
  }

  private checkString(value: string, s: JSONSchemaProps, name: string): StatusCause[] {
    const errs: StatusCause[] = [];
    // Lengths count characters (runes), not bytes.
    const length = [...value].length;
    if (s.maxLength !== undefined && length > s.maxLength) errs.push(tooLong(this.field(name), s.maxLength));
    if (s.minLength !== undefined && length < s.minLength) {
      errs.push(
        invalid(this.field(name), value, `${name} in body should be at least ${s.minLength} chars long`),
      );
    }
    if (s.pattern !== undefined && s.pattern !== '') {
      let matches = false;
      try {
        matches = goRegexpMatches(s.pattern, value);
      } catch {
        matches = false; // an uncompilable pattern never matches, as in kube-openapi
      }
      if (!matches)
        errs.push(invalid(this.field(name), value, `${name} in body should match '${s.pattern}'`));
    }
    return errs;
  }

  private checkNumber(value: number, kind: JsonType, s: JSONSchemaProps, name: string): StatusCause[] {
    const errs: StatusCause[] = [];
    // Integer data is compared to integral bounds as int64; otherwise as float64 (`1e+06`).
    const bound = (b: number) => (kind === 'integer' && Number.isInteger(b) ? goNumber(b) : goFloat(b));
    if (s.multipleOf !== undefined && s.multipleOf > 0 && !isMultipleOf(value, s.multipleOf)) {
      errs.push(
        invalid(this.field(name), value, `${name} in body should be a multiple of ${bound(s.multipleOf)}`),
      );
    }
    if (s.maximum !== undefined) {
      const over = s.exclusiveMaximum ? value >= s.maximum : value > s.maximum;
      if (over) {
        const relation = s.exclusiveMaximum ? 'less than' : 'less than or equal to';
        errs.push(
          invalid(this.field(name), value, `${name} in body should be ${relation} ${bound(s.maximum)}`),
        );
      }
    }
    if (s.minimum !== undefined) {
      const under = s.exclusiveMinimum ? value <= s.minimum : value < s.minimum;
      if (under) {
        const relation = s.exclusiveMinimum ? 'greater than' : 'greater than or equal to';
        errs.push(
          invalid(this.field(name), value, `${name} in body should be ${relation} ${bound(s.minimum)}`),
        );
      }
    }
    return errs;
  }

  private checkArray(value: unknown[], s: JSONSchemaProps, name: string): StatusCause[] {
    const errs: StatusCause[] = [];
    if (s.items) {
      const items = s.items;
      value.forEach((item, i) => {
        errs.push(...this.validate(item, items, `${name}[${i}]`));
      });
    }
    if (s.minItems !== undefined && value.length < s.minItems) {
      errs.push(
        invalid(this.field(name), value.length, `${name} in body should have at least ${s.minItems} items`),
      );
    }
    if (s.maxItems !== undefined && value.length > s.maxItems) {
      errs.push(tooMany(this.field(name), value.length, s.maxItems));
    }
    if (s.uniqueItems && hasDuplicates(value)) {
      errs.push(invalid(this.field(name), '', `${name} in body shouldn't contain duplicates`));
    }
    return errs;
  }

  private checkEnum(value: unknown, s: JSONSchemaProps, name: string): StatusCause[] {
    if (!s.enum || s.enum.length === 0) return [];
    if (s.enum.some((allowed) => jsonEqual(allowed, value))) return [];
    const supported = s.enum.map((allowed) => (typeof allowed === 'string' ? allowed : goJson(allowed)));
    return [notSupported(this.field(name), value, supported)];
  }

  private checkObject(value: Record<string, unknown>, s: JSONSchemaProps, name: string): StatusCause[] {
    const count = Object.keys(value).length;
    // kube-openapi stops at a property-count failure without looking inside.
    if (s.minProperties !== undefined && count < s.minProperties) {
      return [
        invalid(
          this.field(name),
          count,
          `${name} in body should have at least ${s.minProperties} properties`,
        ),
      ];
    }
    if (s.maxProperties !== undefined && count > s.maxProperties) {
      return [tooMany(this.field(name), count, s.maxProperties)];
    }
    const errs: StatusCause[] = [];
    const properties = s.properties ?? {};
    const additional = s.additionalProperties;
    for (const [key, item] of Object.entries(value)) {
      if (Object.hasOwn(properties, key)) continue;
      if (additional === false) {
        errs.push(invalid(this.field(name), key, `${name}.${key} in body is a forbidden property`));
      } else if (typeof additional === 'object') {
        errs.push(...this.validate(item, additional, `${name}.${key}`));
      }
    }
    for (const [key, propertySchema] of Object.entries(properties)) {
      if (!Object.hasOwn(value, key)) continue;
      errs.push(...this.validate(value[key], propertySchema, name === '' ? key : `${name}.${key}`));
    }
    for (const key of s.required ?? []) {
      if (!Object.hasOwn(value, key)) errs.push(required(this.field(`${name}.${key}`)));
    }
    return errs;
  }
}

/**
 * Validates value against schema. Causes are filed under `fieldPrefix` (kube validates CRD defaults
 * with the prefix `…properties[x].default`); composite and root failures land on the prefix itself,
 * which prints as `<nil>` when empty, exactly as kube does.
 */
export const validateAgainstSchema: SchemaValidator = (value, schema, fieldPrefix = '') =>
  new SchemaValidation(fieldPrefix).validate(value, schema, '');
