// x-kubernetes-validations (CEL) rules are not evaluated by this server. This finds them so the server
// can say so (a Warning header on CRD writes) instead of silently accepting what kube would reject.

import type { JSONSchemaProps } from '../registry/resource-definition.ts';
import { childPath, type FieldPath, keyPath } from './field-path.ts';

export interface ValidationRuleRef {
  /** Where the rule applies in objects: `spec.files[*]`, `spec.labels[*]`, '' for the root. */
  path: FieldPath;
  /** Where the rule sits in the schema: `openAPIV3Schema.properties[spec].x-kubernetes-validations[0]`. */
  schemaPath: string;
  rule: string;
  message?: string;
}

function collect(s: JSONSchemaProps, path: FieldPath, schemaPath: string, out: ValidationRuleRef[]): void {
  s['x-kubernetes-validations']?.forEach((v, i) => {
    const ref: ValidationRuleRef = {
      path,
      schemaPath: `${schemaPath}.x-kubernetes-validations[${i}]`,
      rule: v.rule,
    };
    if (v.message !== undefined) ref.message = v.message;
    out.push(ref);
  });
  for (const [name, sub] of Object.entries(s.properties ?? {})) {
    collect(sub, childPath(path, name), keyPath(`${schemaPath}.properties`, name), out);
  }
  if (typeof s.additionalProperties === 'object') {
    collect(s.additionalProperties, `${path}[*]`, `${schemaPath}.additionalProperties`, out);
  }
  if (s.items) collect(s.items, `${path}[*]`, `${schemaPath}.items`, out);
  for (const junctor of ['allOf', 'anyOf', 'oneOf'] as const) {
    s[junctor]?.forEach((sub, i) => {
      collect(sub, path, `${schemaPath}.${junctor}[${i}]`, out);
    });
  }
  if (s.not) collect(s.not, path, `${schemaPath}.not`, out);
}

/** Every CEL rule in the schema, outermost first. */
export function findValidationRules(
  schema: JSONSchemaProps,
  schemaPath = 'openAPIV3Schema',
): ValidationRuleRef[] {
  const out: ValidationRuleRef[] = [];
  collect(schema, '', schemaPath, out);
  return out;
}
