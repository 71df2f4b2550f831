// The order kube-apiserver applies schema steps to a custom resource it decodes (a request body, or an
// object read back from storage): prune unknown fields, drop nulls the schema forbids and cannot
// default, then fill defaults. Validation (validateCustomResource) comes after, on writes only.

import type { JSONSchemaProps } from '../registry/resource-definition.ts';
import type { KubeObject } from '../storage/types.ts';
import { applyDefaults } from './defaulting.ts';
import { pruneNonNullableNulls, pruneUnknownFields } from './pruning.ts';

/** Prunes, drops disallowed nulls and defaults obj in place; returns the unknown fields' paths. */
export function decodeCustomResource(obj: KubeObject, schema: JSONSchemaProps | undefined): string[] {
  const unknown = pruneUnknownFields(obj, schema);
  if (schema) {
    pruneNonNullableNulls(obj, schema);
    applyDefaults(obj, schema);
  }
  return unknown;
}
