// Validation of a custom resource against its CRD's structural schema, as kube-apiserver's
// customResourceStrategy.Validate runs it: the OpenAPI schema, then embedded resources, then the
// uniqueness of set/map lists, then the CEL rules (x-kubernetes-validations, cel-rules.ts) unless an
// earlier error makes the object unfit for them.
// The root's metadata (name, namespace, labels...) is validated by the server with validateObjectMeta.

import type { StatusCause } from '../errors.ts';
import type { JSONSchemaProps } from '../registry/resource-definition.ts';
import { hasValidationRules, validateCelRules } from './cel-rules.ts';
import { validateEmbeddedResources } from './embedded-resource-validation.ts';
import { invalid } from './field-errors.ts';
import type { FieldPath } from './field-path.ts';
import { validateListSetsAndMaps } from './list-type-validation.ts';
import { validateAgainstSchema } from './openapi-validation.ts';

export { validateAgainstSchema } from './openapi-validation.ts';

/**
 * One of the schema checks of a custom resource: the causes for `obj` against `schema`, filed under
 * `path` ('' is the root; a CRD's defaults are checked under the path of their `default`).
 */
export type SchemaValidator = (obj: unknown, schema: JSONSchemaProps, path?: FieldPath) => StatusCause[];

/** kube's order: the OpenAPI schema, then embedded resources, then set and map lists. */
const SCHEMA_VALIDATORS: readonly SchemaValidator[] = [
  validateAgainstSchema,
  validateEmbeddedResources,
  validateListSetsAndMaps,
];

// kube's hasBlockingErr: rules expect values of their schema's type and enum.
const blocking = new Set(['FieldValueNotSupported', 'FieldValueTypeInvalid']);

/**
 * All schema causes for a (pruned and defaulted) custom resource; empty when it is valid. `old` is
 * the stored object on update (for transition rules and ratcheting of CEL rules).
 */
export function validateCustomResource(obj: unknown, schema: JSONSchemaProps, old?: unknown): StatusCause[] {
  const causes = SCHEMA_VALIDATORS.flatMap((validate) => validate(obj, schema));
  if (!hasValidationRules(schema)) return causes;
  if (causes.some((c) => blocking.has(c.type ?? ''))) {
    causes.push(
      invalid(
        '',
        null,
        'some validation rules were not checked because the object was invalid; correct the existing errors to complete validation',
      ),
    );
    return causes;
  }
  return [...causes, ...validateCelRules(obj, old, schema)];
}
