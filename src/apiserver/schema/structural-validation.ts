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
import { validateListSetsAndMaps } from './list-type-validation.ts';
import { validateAgainstSchema } from './openapi-validation.ts';

export { validateAgainstSchema } from './openapi-validation.ts';

// kube's hasBlockingErr: rules expect values of their schema's type and enum.
const blocking = new Set(['FieldValueNotSupported', 'FieldValueTypeInvalid']);

/**
 * All schema causes for a (pruned and defaulted) custom resource; empty when it is valid. `old` is
 * the stored object on update (for transition rules and ratcheting of CEL rules).
 */
export function validateCustomResource(obj: unknown, schema: JSONSchemaProps, old?: unknown): StatusCause[] {
  const causes = [
    ...validateAgainstSchema(obj, schema),
    ...validateEmbeddedResources(obj, schema),
    ...validateListSetsAndMaps(obj, schema),
  ];
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
