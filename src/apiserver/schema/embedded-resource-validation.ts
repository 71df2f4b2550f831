// Objects nested in a custom resource with x-kubernetes-embedded-resource (apiextensions
// schema/objectmeta.Validate): apiVersion and kind are required, metadata follows ObjectMeta rules
// with path-segment names (metadata itself is optional).

import type { StatusCause } from '../errors.ts';
import type { JSONSchemaProps } from '../registry/resource-definition.ts';
import { invalid, required } from './field-errors.ts';
import { childPath, type FieldPath, indexPath, keyPath } from './field-path.ts';
import { isJsonObject } from './json-value.ts';
import { isDNS1035Label, validatePathSegmentName } from './names.ts';
import { validateObjectMeta } from './object-meta-validation.ts';
import type { SchemaValidator } from './structural-validation.ts';

function validateEmbeddedResource(path: FieldPath, obj: Record<string, unknown>): StatusCause[] {
  const causes: StatusCause[] = [];
  if (!Object.hasOwn(obj, 'apiVersion'))
    causes.push(required(childPath(path, 'apiVersion'), 'must not be empty'));
  if (!Object.hasOwn(obj, 'kind')) causes.push(required(childPath(path, 'kind'), 'must not be empty'));
  for (const [key, value] of Object.entries(obj)) {
    if (key === 'apiVersion') {
      const at = childPath(path, 'apiVersion');
      if (typeof value !== 'string') causes.push(invalid(at, value, 'must be a string'));
      else if (value === '') causes.push(invalid(at, value, 'must not be empty'));
      else if (value.split('/').length > 2)
        causes.push(invalid(at, value, `unexpected GroupVersion string: ${value}`));
    } else if (key === 'kind') {
      const at = childPath(path, 'kind');
      if (typeof value !== 'string') causes.push(invalid(at, value, 'must be a string'));
      else if (value === '') causes.push(invalid(at, value, 'must not be empty'));
      else {
        const errs = isDNS1035Label(value.toLowerCase());
        if (errs.length > 0) {
          causes.push(
            invalid(at, value, `may have mixed case, but should otherwise match: ${errs.join(',')}`),
          );
        }
      }
    } else if (key === 'metadata') {
      if (!isJsonObject(value)) {
        causes.push(invalid(childPath(path, 'metadata'), value, 'must be an object'));
        continue;
      }
      // kube fills in a name so that a nameless embedded object is not reported for it.
      const meta = {
        ...value,
        name: typeof value.name === 'string' && value.name !== '' ? value.name : 'fakename',
      };
      const namespaced = typeof value.namespace === 'string' && value.namespace !== '';
      causes.push(
        ...validateObjectMeta(meta, {
          namespaced,
          nameValidator: validatePathSegmentName,
          path: childPath(path, 'metadata'),
        }),
      );
    }
  }
  return causes;
}

function walk(path: FieldPath, value: unknown, s: JSONSchemaProps | undefined): StatusCause[] {
  if (!s) return [];
  const causes: StatusCause[] = [];
  if (isJsonObject(value)) {
    if (s['x-kubernetes-embedded-resource']) causes.push(...validateEmbeddedResource(path, value));
    const additional = typeof s.additionalProperties === 'object' ? s.additionalProperties : undefined;
    for (const [key, item] of Object.entries(value)) {
      const property = s.properties?.[key];
      if (property) causes.push(...walk(childPath(path, key), item, property));
      else if (additional) causes.push(...walk(keyPath(path, key), item, additional));
    }
  } else if (Array.isArray(value)) {
    value.forEach((item, i) => {
      causes.push(...walk(indexPath(path, i), item, s.items));
    });
  }
  return causes;
}

/** Validates every embedded resource in obj (the root's own metadata is the server's job). */
export const validateEmbeddedResources: SchemaValidator = (obj, schema, path = '') => walk(path, obj, schema);
