// Validation of a CustomResourceDefinition's openAPIV3Schema as kube-apiserver does it
// (apiextensions validation.ValidateCustomResourceDefinitionValidation and the specStandardValidatorV3):
// the fields allowed at the root with a status subresource, the structural-schema rules
// (structural-schema-check.ts), defaults that must be pruned and valid, the keywords structural schemas
// may not use, list and map types, and the shapes of CEL rules, which are compiled here too: one that
// does not compile makes the CRD invalid (cel-rules.ts). The rest of a CRD is crd-validation.ts's.

import type { StatusCause } from '../errors.ts';
import type { JSONSchemaProps } from '../registry/resource-definition.ts';
import { checkSchemaRuleCosts, compileSchemaRules } from './cel-rules.ts';
import { validateEmbeddedResources } from './embedded-resource-validation.ts';
import { forbidden, invalid, notSupported, required } from './field-errors.ts';
import { childPath, type FieldPath, indexPath, keyPath } from './field-path.ts';
import { isJsonObject, type JsonObject, jsonEqual } from './json-value.ts';
import { validateAgainstSchema } from './openapi-validation.ts';
import { pruneUnknownFields } from './pruning.ts';
import { validateStructuralSchema } from './structural-schema-check.ts';

const openAPIV3Types = ['array', 'boolean', 'integer', 'number', 'object', 'string'];
const typeAndObjectMeta = new Set(['metadata', 'kind', 'apiVersion']);

// JSONSchemaProps fields, in Go declaration order, with the names kube prints.
const goFieldNames: [string, string][] = [
  ['id', 'ID'],
  ['$schema', 'Schema'],
  ['$ref', 'Ref'],
  ['description', 'Description'],
  ['type', 'Type'],
  ['format', 'Format'],
  ['title', 'Title'],
  ['default', 'Default'],
  ['maximum', 'Maximum'],
  ['exclusiveMaximum', 'ExclusiveMaximum'],
  ['minimum', 'Minimum'],
  ['exclusiveMinimum', 'ExclusiveMinimum'],
  ['maxLength', 'MaxLength'],
  ['minLength', 'MinLength'],
  ['pattern', 'Pattern'],
  ['maxItems', 'MaxItems'],
  ['minItems', 'MinItems'],
  ['uniqueItems', 'UniqueItems'],
  ['multipleOf', 'MultipleOf'],
  ['enum', 'Enum'],
  ['maxProperties', 'MaxProperties'],
  ['minProperties', 'MinProperties'],
  ['required', 'Required'],
  ['items', 'Items'],
  ['allOf', 'AllOf'],
  ['oneOf', 'OneOf'],
  ['anyOf', 'AnyOf'],
  ['not', 'Not'],
  ['properties', 'Properties'],
  ['additionalProperties', 'AdditionalProperties'],
  ['patternProperties', 'PatternProperties'],
  ['dependencies', 'Dependencies'],
  ['additionalItems', 'AdditionalItems'],
  ['definitions', 'Definitions'],
  ['externalDocs', 'ExternalDocs'],
  ['example', 'Example'],
  ['nullable', 'Nullable'],
  ['x-kubernetes-preserve-unknown-fields', 'XPreserveUnknownFields'],
  ['x-kubernetes-embedded-resource', 'XEmbeddedResource'],
  ['x-kubernetes-int-or-string', 'XIntOrString'],
  ['x-kubernetes-list-map-keys', 'XListMapKeys'],
  ['x-kubernetes-list-type', 'XListType'],
  ['x-kubernetes-map-type', 'XMapType'],
  ['x-kubernetes-validations', 'XValidations'],
];
const allowedAtRootWithStatus = [
  'Description',
  'Type',
  'Format',
  'Title',
  'Maximum',
  'ExclusiveMaximum',
  'Minimum',
  'ExclusiveMinimum',
  'MaxLength',
  'MinLength',
  'Pattern',
  'MaxItems',
  'MinItems',
  'UniqueItems',
  'MultipleOf',
  'Required',
  'Items',
  'Properties',
  'ExternalDocs',
  'Example',
  'XPreserveUnknownFields',
  'XValidations',
];

export function obj(value: unknown): JsonObject {
  return isJsonObject(value) ? value : {};
}

export function str(value: unknown): string {
  return typeof value === 'string' ? value : '';
}

export function list(value: unknown): unknown[] {
  return Array.isArray(value) ? value : [];
}

/** Go's zero value test, used to find which JSONSchemaProps fields a root schema sets. */
function isZero(value: unknown): boolean {
  return value === undefined || value === null || value === false || value === 0 || value === '';
}

export function enumString(path: FieldPath, value: string, accepted: string[]): StatusCause[] {
  if (value === '') return [required(path)];
  return accepted.includes(value) ? [] : [notSupported(path, value, accepted)];
}

interface SchemaContext {
  allowDefaults: boolean;
  disallowDefaultsReason: string;
  insideResourceMeta: boolean;
}

function withForbiddenDefaults(ctx: SchemaContext, reason: string): SchemaContext {
  return { ...ctx, allowDefaults: false, disallowDefaultsReason: reason };
}

/** specStandardValidatorV3.validate: keywords structural CRD schemas may not use. */
function standardKeywords(s: JsonObject, path: FieldPath, ctx: SchemaContext): StatusCause[] {
  const errs: StatusCause[] = [];
  const at = (name: string) => childPath(path, name);
  const type = str(s.type);
  if (type !== '' && !openAPIV3Types.includes(type))
    errs.push(notSupported(at('type'), type, openAPIV3Types));
  if (s.default !== undefined && !ctx.allowDefaults) {
    const reason = ctx.disallowDefaultsReason === '' ? '' : ` ${ctx.disallowDefaultsReason}`;
    errs.push(forbidden(at('default'), `must not be set${reason}`));
  }
  if (str(s.id) !== '') errs.push(forbidden(at('id'), 'id is not supported'));
  if (s.additionalItems !== undefined)
    errs.push(forbidden(at('additionalItems'), 'additionalItems is not supported'));
  if (Object.keys(obj(s.patternProperties)).length > 0) {
    errs.push(forbidden(at('patternProperties'), 'patternProperties is not supported'));
  }
  if (Object.keys(obj(s.definitions)).length > 0)
    errs.push(forbidden(at('definitions'), 'definitions is not supported'));
  if (s.dependencies !== undefined) errs.push(forbidden(at('dependencies'), 'dependencies is not supported'));
  if (s.$ref !== undefined) errs.push(forbidden(at('$ref'), '$ref is not supported'));
  if (type === 'null')
    errs.push(forbidden(at('type'), 'type cannot be set to null, use nullable as an alternative'));
  if (Array.isArray(s.items))
    errs.push(forbidden(at('items'), 'items must be a schema object and not an array'));
  if (ctx.insideResourceMeta && s['x-kubernetes-embedded-resource'] === true) {
    errs.push(forbidden(at('x-kubernetes-embedded-resource'), 'must not be used inside of resource meta'));
  }
  return errs;
}

function listAndMapTypes(s: JsonObject, path: FieldPath): StatusCause[] {
  const errs: StatusCause[] = [];
  const at = (name: string) => childPath(path, name);
  const type = str(s.type);
  const items = isJsonObject(s.items) ? s.items : undefined;
  const listType = s['x-kubernetes-list-type'];
  const mapType = s['x-kubernetes-map-type'];
  const keys = list(s['x-kubernetes-list-map-keys']).map(str);

  if (s['x-kubernetes-preserve-unknown-fields'] === false) {
    errs.push(invalid(at('x-kubernetes-preserve-unknown-fields'), false, 'must be true or undefined'));
  }
  if (mapType !== undefined && type !== 'object') {
    const detail = 'must be object if x-kubernetes-map-type is specified';
    errs.push(type === '' ? required(at('type'), detail) : invalid(at('type'), type, detail));
  }
  if (mapType !== undefined && mapType !== 'atomic' && mapType !== 'granular') {
    errs.push(notSupported(at('x-kubernetes-map-type'), mapType, ['atomic', 'granular']));
  }
  if (listType !== undefined && type !== 'array') {
    const detail = 'must be array if x-kubernetes-list-type is specified';
    errs.push(type === '' ? required(at('type'), detail) : invalid(at('type'), type, detail));
  } else if (listType === 'set' && items) {
    const detail = 'must be atomic as item of a list with x-kubernetes-list-type=set';
    const itemListType = items['x-kubernetes-list-type'];
    if (items.type === 'array' && itemListType !== undefined && itemListType !== 'atomic') {
      errs.push(invalid(childPath(path, 'items', 'x-kubernetes-list-type'), itemListType, detail));
    }
    if (items.type === 'object' && items['x-kubernetes-map-type'] !== 'atomic') {
      // kube reports the item's list type here (nil), not its map type.
      errs.push(invalid(childPath(path, 'items', 'x-kubernetes-map-type'), itemListType ?? null, detail));
    }
  }
  if (listType !== undefined && listType !== 'atomic' && listType !== 'set' && listType !== 'map') {
    errs.push(notSupported(at('x-kubernetes-list-type'), listType, ['atomic', 'set', 'map']));
  }
  if (keys.length > 0) {
    const detail = 'must be map if x-kubernetes-list-map-keys is non-empty';
    if (listType === undefined) errs.push(required(at('x-kubernetes-list-type'), detail));
    else if (listType !== 'map') errs.push(invalid(at('x-kubernetes-list-type'), listType, detail));
  }
  if (listType === 'map') {
    if (keys.length === 0) {
      errs.push(
        required(at('x-kubernetes-list-map-keys'), 'must not be empty if x-kubernetes-list-type is map'),
      );
    }
    if (s.items === undefined)
      errs.push(required(at('items'), 'must have a schema if x-kubernetes-list-type is map'));
    if (items && items.type !== 'object') {
      errs.push(
        invalid(
          childPath(path, 'items', 'type'),
          items.type ?? '',
          "must be object if parent array's x-kubernetes-list-type is map",
        ),
      );
    }
    if (items && items.type === 'object') {
      const seen = new Set<string>();
      const properties = obj(items.properties);
      for (const key of keys) {
        const property = properties[key];
        if (isJsonObject(property)) {
          if (property.type === 'array' || property.type === 'object') {
            errs.push(
              invalid(
                childPath(keyPath(childPath(path, 'items', 'properties'), key), 'type'),
                items.type,
                "must be a scalar type if parent array's x-kubernetes-list-type is map",
              ),
            );
          }
        } else {
          errs.push(
            invalid(at('x-kubernetes-list-map-keys'), keys, 'entries must all be names of item properties'),
          );
        }
        if (seen.has(key))
          errs.push(invalid(at('x-kubernetes-list-map-keys'), keys, 'must not contain duplicate entries'));
        seen.add(key);
      }
    }
  }
  // validateMapListKeysMapSet
  if (items && (listType === 'set' || listType === 'map')) {
    if (items.nullable === true) {
      errs.push(
        forbidden(
          childPath(path, 'items', 'nullable'),
          `cannot be nullable when x-kubernetes-list-type is ${listType}`,
        ),
      );
    }
    if (listType === 'map') {
      const requiredKeys = new Set(list(items.required).map(str));
      const properties = obj(items.properties);
      for (const key of keys) {
        const property = properties[key];
        if (!isJsonObject(property)) continue;
        const keyAt = keyPath(childPath(path, 'items', 'properties'), key);
        if (!requiredKeys.has(key) && property.default === undefined) {
          errs.push(
            required(
              childPath(keyAt, 'default'),
              'this property is in x-kubernetes-list-map-keys, so it must have a default or be a required property',
            ),
          );
        }
        if (property.nullable === true) {
          errs.push(
            forbidden(
              childPath(keyAt, 'nullable'),
              'this property is in x-kubernetes-list-map-keys, so it cannot be nullable',
            ),
          );
        }
      }
    }
  }
  return errs;
}

const supportedValidationReasons = [
  'FieldValueDuplicate',
  'FieldValueForbidden',
  'FieldValueInvalid',
  'FieldValueRequired',
];

/** The shape of x-kubernetes-validations entries; their CEL is compiled by compileSchemaRules. */
function celRuleShapes(s: JsonObject, path: FieldPath): StatusCause[] {
  const errs: StatusCause[] = [];
  list(s['x-kubernetes-validations']).forEach((entry, i) => {
    const rule = obj(entry);
    const at = (name: string) => childPath(indexPath(childPath(path, 'x-kubernetes-validations'), i), name);
    const ruleText = str(rule.rule).trim();
    const message = str(rule.message);
    if (ruleText === '') errs.push(required(at('rule'), 'rule is not specified'));
    else if (message !== '' && message.trim() === '')
      errs.push(invalid(at('message'), message, 'message must be non-empty if specified'));
    else if (/[\n\r]/.test(message.trim()))
      errs.push(invalid(at('message'), message, 'message must not contain line breaks'));
    else if (/[\n\r]/.test(ruleText) && message.trim() === '') {
      errs.push(required(at('message'), 'message must be specified if rule contains line breaks'));
    }
    const messageExpression = str(rule.messageExpression);
    if (messageExpression !== '' && messageExpression.trim() === '') {
      errs.push(required(at('messageExpression'), 'messageExpression must be non-empty if specified'));
    }
    if (rule.reason !== undefined && !supportedValidationReasons.includes(str(rule.reason))) {
      errs.push(notSupported(at('reason'), rule.reason, supportedValidationReasons));
    }
    const fieldPath = str(rule.fieldPath);
    if (fieldPath !== '' && fieldPath.trim() === '')
      errs.push(invalid(at('fieldPath'), fieldPath, 'fieldPath must be non-empty if specified'));
    if (/[\n\r]/.test(fieldPath))
      errs.push(invalid(at('fieldPath'), fieldPath, 'fieldPath must not contain line breaks'));
  });
  return errs;
}

/** ValidateCustomResourceDefinitionOpenAPISchema. */
function openAPISchema(s: unknown, path: FieldPath, ctx: SchemaContext, isRoot: boolean): StatusCause[] {
  if (!isJsonObject(s)) return [];
  const errs = standardKeywords(s, path, ctx);
  if (s.uniqueItems === true) {
    errs.push(
      forbidden(
        childPath(path, 'uniqueItems'),
        'uniqueItems cannot be set to true since the runtime complexity becomes quadratic',
      ),
    );
  }
  const properties = obj(s.properties);
  if (s.additionalProperties !== undefined) {
    const additional = s.additionalProperties;
    if (Object.keys(properties).length > 0 && (additional === false || isJsonObject(additional))) {
      errs.push(
        forbidden(
          childPath(path, 'additionalProperties'),
          'additionalProperties and properties are mutual exclusive',
        ),
      );
    }
    const sub = ctx.insideResourceMeta
      ? withForbiddenDefaults(ctx, 'inside additionalProperties applying to object metadata')
      : ctx;
    errs.push(...openAPISchema(additional, childPath(path, 'additionalProperties'), sub, false));
  }
  for (const [name, property] of Object.entries(properties)) {
    let sub = ctx;
    if ((isRoot || s['x-kubernetes-embedded-resource'] === true) && typeAndObjectMeta.has(name)) {
      sub = { ...sub, insideResourceMeta: true };
      if (isRoot) sub = withForbiddenDefaults(sub, `in top-level ${name}`);
    }
    errs.push(...openAPISchema(property, keyPath(childPath(path, 'properties'), name), sub, false));
  }
  errs.push(...openAPISchema(s.not, childPath(path, 'not'), ctx, false));
  for (const junctor of ['allOf', 'oneOf', 'anyOf'] as const) {
    list(s[junctor]).forEach((sub, i) => {
      errs.push(...openAPISchema(sub, indexPath(childPath(path, junctor), i), ctx, false));
    });
  }
  if (isJsonObject(s.items)) errs.push(...openAPISchema(s.items, childPath(path, 'items'), ctx, false));
  errs.push(...listAndMapTypes(s, path));
  errs.push(...celRuleShapes(s, path));
  return errs;
}

/** structuraldefaulting.ValidateDefaults: defaults must be pruned and valid against their schema. */
function validateDefaults(
  s: JSONSchemaProps,
  path: FieldPath,
  insideMeta: boolean,
  isResourceRoot: boolean,
): StatusCause[] {
  const errs: StatusCause[] = [];
  const embedded = isResourceRoot || !!s['x-kubernetes-embedded-resource'];
  const meta = embedded ? false : insideMeta;
  if (s.default !== undefined && s.default !== null) {
    const at = childPath(path, 'default');
    if (!meta) {
      const pruned = structuredClone(s.default);
      pruneUnknownFields(pruned, s, { isResourceRoot: !!s['x-kubernetes-embedded-resource'] });
      if (!jsonEqual(pruned, s.default)) errs.push(invalid(at, s.default, 'must not have unknown fields'));
    }
    const metaErrs = s['x-kubernetes-embedded-resource'] ? validateEmbeddedResources(s.default, s, at) : [];
    errs.push(...(metaErrs.length > 0 ? metaErrs : validateAgainstSchema(s.default, s, at)));
  }
  if (s.items) errs.push(...validateDefaults(s.items, childPath(path, 'items'), meta, false));
  for (const [name, sub] of Object.entries(s.properties ?? {})) {
    const subMeta = meta || (embedded && typeAndObjectMeta.has(name));
    errs.push(...validateDefaults(sub, keyPath(childPath(path, 'properties'), name), subMeta, false));
  }
  return errs;
}

/** validateCustomResourceDefinitionValidation for one `{openAPIV3Schema}` at path. */
export function validateCrdSchema(value: unknown, statusEnabled: boolean, path: FieldPath): StatusCause[] {
  const schema = obj(value).openAPIV3Schema;
  if (!isJsonObject(schema)) return [];
  const errs: StatusCause[] = [];
  const schemaPath = childPath(path, 'openAPIV3Schema');
  if (statusEnabled) {
    for (const [key, goName] of goFieldNames) {
      if (isZero(schema[key])) continue;
      if (goName === 'Type') {
        if (schema.type !== 'object') {
          errs.push(
            invalid(
              childPath(path, 'openAPIV3Schema.type'),
              schema.type,
              'only "object" is allowed as the type at the root of the schema if the status subresource is enabled',
            ),
          );
          break;
        }
        continue;
      }
      if (!allowedAtRootWithStatus.includes(goName)) {
        errs.push(
          invalid(
            schemaPath,
            schema,
            `only [${allowedAtRootWithStatus.join(' ')}] fields are allowed at the root of the schema if the status subresource is enabled`,
          ),
        );
        break;
      }
    }
  }
  if (schema.nullable === true) {
    errs.push(forbidden(childPath(path, 'openAPIV3Schema.nullable'), 'nullable cannot be true at the root'));
  }
  const structural = validateStructuralSchema(schema as JSONSchemaProps, schemaPath);
  if (structural.length > 0) errs.push(...structural);
  else errs.push(...validateDefaults(schema as JSONSchemaProps, schemaPath, false, true));
  const ctx: SchemaContext = { allowDefaults: true, disallowDefaultsReason: '', insideResourceMeta: false };
  errs.push(...openAPISchema(schema, schemaPath, ctx, true));
  if (structural.length === 0) {
    const compiled = compileSchemaRules(schema as JSONSchemaProps, schemaPath);
    errs.push(...compiled);
    if (compiled.length === 0) errs.push(...checkSchemaRuleCosts(schema as JSONSchemaProps, schemaPath));
  }
  return errs;
}
