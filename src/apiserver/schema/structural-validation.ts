// Validation of a custom resource against its CRD's structural schema, as kube-apiserver's
// customResourceStrategy.Validate runs it: the OpenAPI schema, then embedded resources, then the
// uniqueness of set/map lists. CEL rules (x-kubernetes-validations) are not evaluated; see cel-rules.ts.
// The root's metadata (name, namespace, labels...) is validated by the server with validateObjectMeta.

import type { StatusCause } from '../errors.ts';
import type { JSONSchemaProps } from '../registry/resource-definition.ts';
import { validateEmbeddedResources } from './embedded-resource-validation.ts';
import { validateListSetsAndMaps } from './list-type-validation.ts';
import { validateAgainstSchema } from './openapi-validation.ts';

export { findValidationRules, type ValidationRuleRef } from './cel-rules.ts';
export { validateAgainstSchema } from './openapi-validation.ts';

/** All schema causes for a (pruned and defaulted) custom resource; empty when it is valid. */
export function validateCustomResource(obj: unknown, schema: JSONSchemaProps): StatusCause[] {
  return [
    ...validateAgainstSchema(obj, schema),
    ...validateEmbeddedResources(obj, schema),
    ...validateListSetsAndMaps(obj, schema),
  ];
}
