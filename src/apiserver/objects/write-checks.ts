// The checks every write makes before it is stored, whatever its verb: the body's apiVersion and kind
// against the URL's, the kind's strategies (pruning, defaulting, validation) and the generic metadata
// rules (names, labels, annotations, finalizers, owner references).

import { badRequest, type StatusCause } from '../errors.ts';
import type { ResourceDefinition } from '../registry/resource-definition.ts';
import { apiVersionOf } from '../registry/resource-definition.ts';
import { validateAnnotations, validateLabels } from '../schema/names.ts';
import type { KubeObject } from '../storage/types.ts';
import { isPlainObject } from './context.ts';
import type { KindStrategy, StrategyContext } from './strategy.ts';
import type { NameValidator, WriteOptions } from './types.ts';

export function strategyContext(
  def: ResourceDefinition,
  operation: 'create' | 'update',
  subresource?: string,
): StrategyContext {
  return { def, operation, subresource };
}

/** Prunes (reporting unknown fields per fieldValidation), prepares, then validates with every strategy. */
export function runStrategies(
  strategies: KindStrategy[],
  obj: KubeObject,
  old: KubeObject | undefined,
  ctx: StrategyContext,
  fieldValidation: WriteOptions['fieldValidation'],
): { causes: StatusCause[]; warnings: string[] } {
  const warnings: string[] = [];
  for (const s of strategies) {
    const pruned = s.prune?.(obj, ctx) ?? [];
    if (pruned.length > 0) {
      if (fieldValidation === 'Strict') {
        throw badRequest(`strict decoding error: ${pruned.map((p) => `unknown field "${p}"`).join(', ')}`);
      }
      if (fieldValidation === 'Warn') warnings.push(...pruned.map((p) => `unknown field "${p}"`));
    }
  }
  for (const s of strategies) s.prepare?.(obj, old, ctx);
  let causes: StatusCause[] = [];
  for (const s of strategies) {
    const found = s.validate?.(obj, old, ctx) ?? [];
    if (s.supersedesEarlierCauses && found.length > 0) causes = withoutFieldsOf(causes, found);
    causes.push(...found);
  }
  return { causes, warnings };
}

/**
 * `earlier` without the causes about a field `later` reports on: the same field, a composite schema
 * cause (oneOf, anyOf: reported with no field, the field quoted in its message) about it or an object
 * holding it, and the note that CEL rules were skipped (the later validator checked the object whole).
 */
function withoutFieldsOf(earlier: StatusCause[], later: StatusCause[]): StatusCause[] {
  const fields = new Set(later.flatMap((c) => (c.field ? [c.field] : [])));
  const reportsOnOrUnder = (field: string) =>
    [...fields].some((f) => f === field || f.startsWith(`${field}.`) || f.startsWith(`${field}[`));
  return earlier.filter((c) => {
    if (c.message?.includes('some validation rules were not checked')) return false;
    // '<nil>' is the field of a cause about no one field, as kube prints it.
    if (c.field && c.field !== '<nil>') return !fields.has(c.field);
    const quoted = /"([^"]+)" must (?:not )?validate/.exec(c.message ?? '')?.[1];
    return quoted === undefined || !reportsOnOrUnder(quoted);
  });
}

export function checkTypeMeta(def: ResourceDefinition, body: KubeObject): void {
  if (!isPlainObject(body)) throw badRequest('the body of the request was not a JSON object');
  const expectedVersion = apiVersionOf(def);
  if (body.apiVersion !== undefined && body.apiVersion !== '' && body.apiVersion !== expectedVersion) {
    // kube accepts other served versions of the same group; we serve without conversion so insist on the URL's.
    const sameGroup =
      typeof body.apiVersion === 'string' &&
      (def.group === '' ? !body.apiVersion.includes('/') : body.apiVersion.startsWith(`${def.group}/`));
    if (!sameGroup) {
      throw badRequest(
        `the API version in the data (${body.apiVersion}) does not match the expected API version (${expectedVersion})`,
      );
    }
  }
  if (body.kind !== undefined && body.kind !== '' && body.kind !== def.kind) {
    throw badRequest(
      `the kind in the data (${String(body.kind)}) does not match the expected kind (${def.kind})`,
    );
  }
  if (body.metadata !== undefined && !isPlainObject(body.metadata)) {
    throw badRequest('metadata: must be an object');
  }
}

export function checkMetadata(
  def: ResourceDefinition,
  meta: KubeObject,
  nameValidator: NameValidator,
): StatusCause[] {
  const causes: StatusCause[] = [];
  const name = meta.name;
  if (typeof name !== 'string' || name === '') {
    causes.push({
      type: 'FieldValueRequired',
      field: 'metadata.name',
      message: 'Required value: name or generateName is required',
    });
  } else {
    const problem = nameValidator(def, name);
    if (problem)
      causes.push({
        type: 'FieldValueInvalid',
        field: 'metadata.name',
        message: `Invalid value: "${name}": ${problem}`,
      });
  }
  for (const field of ['labels', 'annotations'] as const) {
    const value = meta[field];
    if (value === undefined || value === null) continue;
    if (!isPlainObject(value) || Object.values(value).some((v) => typeof v !== 'string')) {
      causes.push({
        type: 'FieldValueTypeInvalid',
        field: `metadata.${field}`,
        message: 'must be a map of string to string',
      });
    } else if (field === 'labels') {
      // Keys are qualified names, values label values (kube's ValidateLabels).
      causes.push(...validateLabels(value, 'metadata.labels'));
    } else {
      causes.push(...validateAnnotations(value, 'metadata.annotations'));
    }
  }
  if (meta.finalizers !== undefined && meta.finalizers !== null) {
    if (
      !Array.isArray(meta.finalizers) ||
      meta.finalizers.some((f: unknown) => typeof f !== 'string' || f === '')
    ) {
      causes.push({
        type: 'FieldValueInvalid',
        field: 'metadata.finalizers',
        message: 'must be a list of non-empty strings',
      });
    }
  }
  if (meta.ownerReferences !== undefined && meta.ownerReferences !== null) {
    if (!Array.isArray(meta.ownerReferences)) {
      causes.push({
        type: 'FieldValueTypeInvalid',
        field: 'metadata.ownerReferences',
        message: 'must be a list',
      });
    } else {
      meta.ownerReferences.forEach((ref: unknown, i: number) => {
        const r = ref as KubeObject;
        for (const f of ['apiVersion', 'kind', 'name', 'uid']) {
          if (!isPlainObject(r) || typeof r[f] !== 'string' || r[f] === '') {
            causes.push({
              type: 'FieldValueRequired',
              field: `metadata.ownerReferences[${i}].${f}`,
              message: 'Required value',
            });
          }
        }
      });
    }
  }
  return causes;
}
