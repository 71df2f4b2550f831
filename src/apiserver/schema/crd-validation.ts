// Validation of apiextensions.k8s.io/v1 CustomResourceDefinitions as kube-apiserver does it
// (apiextensions validation.ValidateCustomResourceDefinition), after the v1 defaults.
//
// Paths follow kube's internal version, which is what kube reports: when every version carries the
// same schema (a single-version CRD always does) it is validated as the top-level
// `spec.validation.openAPIV3Schema`; likewise `spec.subresources` and `spec.additionalPrinterColumns`.
// Otherwise errors sit under `spec.versions[i].schema.openAPIV3Schema`.
// CEL rules (x-kubernetes-validations) are compiled here: one that does not compile makes the CRD
// invalid (cel-rules.ts). Not done: selectableFields, webhook URL/service details, status.storedVersions (the server sets them on create).

import type { StatusCause } from '../errors.ts';
import type { JSONSchemaProps } from '../registry/resource-definition.ts';
import { compileSchemaRules } from './cel-rules.ts';
import { validateEmbeddedResources } from './embedded-resource-validation.ts';
import { forbidden, invalid, notSupported, required } from './field-errors.ts';
import { childPath, type FieldPath, indexPath, keyPath } from './field-path.ts';
import { isJsonObject, type JsonObject, jsonEqual } from './json-value.ts';
import { JsonPathError, parseJsonPath } from './jsonpath.ts';
import { isDNS1035Label, isDNS1123Subdomain, nameIsDNSSubdomain } from './names.ts';
import { validateObjectMeta } from './object-meta-validation.ts';
import { validateAgainstSchema } from './openapi-validation.ts';
import { pruneUnknownFields } from './pruning.ts';
import { validateStructuralSchema } from './structural-schema-check.ts';

const printerColumnTypes = ['boolean', 'date', 'integer', 'number', 'string'];
const printerColumnFormats = ['byte', 'date', 'date-time', 'double', 'float', 'int32', 'int64', 'password'];
const openAPIV3Types = ['array', 'boolean', 'integer', 'number', 'object', 'string'];
const typeAndObjectMeta = new Set(['metadata', 'kind', 'apiVersion']);
const approvalAnnotation = 'api-approved.kubernetes.io';

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

function obj(value: unknown): JsonObject {
  return isJsonObject(value) ? value : {};
}

function str(value: unknown): string {
  return typeof value === 'string' ? value : '';
}

function list(value: unknown): unknown[] {
  return Array.isArray(value) ? value : [];
}

/** Go's zero value test, used to find which JSONSchemaProps fields a root schema sets. */
function isZero(value: unknown): boolean {
  return value === undefined || value === null || value === false || value === 0 || value === '';
}

function enumString(path: FieldPath, value: string, accepted: string[]): StatusCause[] {
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
function validation(value: unknown, statusEnabled: boolean, path: FieldPath): StatusCause[] {
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
  if (structural.length === 0) errs.push(...compileSchemaRules(schema as JSONSchemaProps, schemaPath));
  return errs;
}

/** A simple JSONPath starting with '.', which the table convertor must also be able to parse. */
function simpleJsonPath(value: string, path: FieldPath): StatusCause[] {
  if (value === '') return [invalid(path, value, 'must not be empty')];
  if (!value.startsWith('.')) return [invalid(path, value, 'must be a simple json path starting with .')];
  try {
    parseJsonPath(`{${value}}`);
  } catch (err) {
    // kube accepts these and then fails every Table request; rejecting them up front is kinder.
    return [
      invalid(
        path,
        value,
        `must be a valid JSONPath: ${err instanceof JsonPathError ? err.message : String(err)}`,
      ),
    ];
  }
  return [];
}

function printerColumn(value: unknown, path: FieldPath): StatusCause[] {
  const col = obj(value);
  const errs: StatusCause[] = [];
  if (str(col.name) === '') errs.push(required(childPath(path, 'name')));
  const type = str(col.type);
  const typeDetail = `must be one of ${printerColumnTypes.join(',')}`;
  if (type === '') errs.push(required(childPath(path, 'type'), typeDetail));
  else if (!printerColumnTypes.includes(type)) errs.push(invalid(childPath(path, 'type'), type, typeDetail));
  const format = str(col.format);
  if (format !== '' && !printerColumnFormats.includes(format)) {
    errs.push(invalid(childPath(path, 'format'), format, `must be one of ${printerColumnFormats.join(',')}`));
  }
  const jsonPath = str(col.jsonPath);
  if (jsonPath === '') errs.push(required(childPath(path, 'JSONPath')));
  else errs.push(...simpleJsonPath(jsonPath, childPath(path, 'JSONPath')));
  return errs;
}

function subresources(value: unknown, path: FieldPath): StatusCause[] {
  if (value === undefined || value === null) return [];
  const sub = obj(value);
  const errs: StatusCause[] = [];
  if (sub.status !== undefined && sub.status !== null && !isJsonObject(sub.status)) {
    errs.push(invalid(childPath(path, 'status'), sub.status, 'must be an empty object'));
  }
  if (sub.scale !== undefined && sub.scale !== null) {
    const scale = obj(sub.scale);
    const check = (field: string, prefixes: string[], detail: string, isRequired: boolean) => {
      const text = str(scale[field]);
      const at = childPath(path, `scale.${field}`);
      if (text === '') {
        if (isRequired) errs.push(required(at));
        return;
      }
      const pathErrs = simpleJsonPath(text, at);
      if (pathErrs.length > 0) errs.push(...pathErrs);
      else if (!prefixes.some((p) => text.startsWith(p))) errs.push(invalid(at, text, detail));
    };
    check('specReplicasPath', ['.spec.'], 'should be a json path under .spec', true);
    check('statusReplicasPath', ['.status.'], 'should be a json path under .status', true);
    check(
      'labelSelectorPath',
      ['.spec.', '.status.'],
      'should be a json path under either .spec or .status',
      false,
    );
  }
  return errs;
}

function hasStatus(value: unknown): boolean {
  return isJsonObject(value) && value.status !== undefined && value.status !== null;
}

function deprecationWarning(version: JsonObject, path: FieldPath): StatusCause[] {
  const warning = version.deprecationWarning;
  if (warning === undefined || warning === null) return [];
  const at = childPath(path, 'deprecationWarning');
  if (version.deprecated !== true) return [invalid(at, warning, 'can only be set for deprecated versions')];
  const text = str(warning);
  const errs: StatusCause[] = [];
  if (Buffer.byteLength(text) > 256) errs.push(invalid(at, text, 'must be <= 256 characters long'));
  if (text === '') errs.push(invalid(at, text, 'must not be an empty string'));
  const bad = [...text].findIndex((ch) => /[\p{C}\p{Zl}\p{Zp}]/u.test(ch));
  if (bad >= 0) {
    errs.push(
      invalid(
        at,
        text,
        `must only contain printable UTF-8 characters; non-printable character found at index ${bad}`,
      ),
    );
  }
  return errs;
}

function names(value: unknown, path: FieldPath): StatusCause[] {
  const n = obj(value);
  const errs: StatusCause[] = [];
  const label = (field: string, text: string) => {
    const e = isDNS1035Label(text);
    if (text !== '' && e.length > 0) errs.push(invalid(childPath(path, field), text, e.join(',')));
  };
  const kindLike = (field: string, text: string) => {
    const e = isDNS1035Label(text.toLowerCase());
    if (text !== '' && e.length > 0) {
      errs.push(
        invalid(
          childPath(path, field),
          text,
          `may have mixed case, but should otherwise match: ${e.join(',')}`,
        ),
      );
    }
  };
  label('plural', str(n.plural));
  label('singular', str(n.singular));
  kindLike('kind', str(n.kind));
  kindLike('listKind', str(n.listKind));
  list(n.shortNames).forEach((shortName, i) => {
    const e = isDNS1035Label(str(shortName));
    if (e.length > 0) errs.push(invalid(indexPath(childPath(path, 'shortNames'), i), shortName, e.join(',')));
  });
  if (str(n.kind) !== '' && n.kind === n.listKind) {
    errs.push(invalid(childPath(path, 'listKind'), n.listKind, 'kind and listKind may not be the same'));
  }
  list(n.categories).forEach((category, i) => {
    const e = isDNS1035Label(str(category));
    if (e.length > 0) errs.push(invalid(indexPath(childPath(path, 'categories'), i), category, e.join(',')));
  });
  return errs;
}

function conversion(value: unknown, path: FieldPath): StatusCause[] {
  if (value === undefined || value === null) return [];
  const c = obj(value);
  const strategy = str(c.strategy);
  const errs = enumString(childPath(path, 'strategy'), strategy, ['None', 'Webhook']);
  // v1's conversion.webhook.{clientConfig,conversionReviewVersions} are reported at their internal paths.
  const webhook = obj(c.webhook);
  const clientConfig = webhook.clientConfig;
  const reviewVersions = list(webhook.conversionReviewVersions);
  if (strategy === 'Webhook') {
    if (!isJsonObject(clientConfig)) {
      errs.push(required(childPath(path, 'webhookClientConfig'), 'required when strategy is set to Webhook'));
    } else if ((clientConfig.url === undefined) === (clientConfig.service === undefined)) {
      errs.push(
        required(childPath(path, 'webhookClientConfig'), 'exactly one of url or service is required'),
      );
    }
    const at = childPath(path, 'conversionReviewVersions');
    if (reviewVersions.length === 0) errs.push(required(at));
    else {
      const seen = new Set<string>();
      reviewVersions.forEach((v, i) => {
        const text = str(v);
        if (seen.has(text)) {
          errs.push(invalid(indexPath(at, i), text, 'duplicate version'));
          return;
        }
        seen.add(text);
        for (const msg of isDNS1035Label(text)) errs.push(invalid(indexPath(at, i), text, msg));
      });
      if (!reviewVersions.some((v) => v === 'v1' || v === 'v1beta1')) {
        errs.push(invalid(at, reviewVersions, 'must include at least one of v1, v1beta1'));
      }
    }
  } else {
    if (clientConfig !== undefined && clientConfig !== null) {
      errs.push(
        forbidden(
          childPath(path, 'webhookClientConfig'),
          'should not be set when strategy is not set to Webhook',
        ),
      );
    }
    if (reviewVersions.length > 0) {
      errs.push(
        forbidden(
          childPath(path, 'conversionReviewVersions'),
          'should not be set when strategy is not set to Webhook',
        ),
      );
    }
  }
  return errs;
}

function apiApproval(group: string, annotations: JsonObject): StatusCause[] {
  const protectedGroup =
    group === 'k8s.io' ||
    group.endsWith('.k8s.io') ||
    group === 'kubernetes.io' ||
    group.endsWith('.kubernetes.io');
  if (!protectedGroup) return [];
  const at = keyPath('metadata.annotations', approvalAnnotation);
  const value = str(annotations[approvalAnnotation]);
  if (value === '') {
    return [
      required(
        at,
        `protected groups must have approval annotation "${approvalAnnotation}", see https://github.com/kubernetes/enhancements/pull/1111`,
      ),
    ];
  }
  if (value.startsWith('unapproved') || value.startsWith('/') || /^[A-Za-z][A-Za-z0-9+.-]*:\S*$/.test(value))
    return [];
  return [
    invalid(
      at,
      value,
      `protected groups must have approval annotation "${approvalAnnotation}" with either a URL or a reason starting with "unapproved", see https://github.com/kubernetes/enhancements/pull/1111`,
    ),
  ];
}

/** Whether every version carries the same value, in which case kube validates it at the top level. */
function identical(versions: JsonObject[], field: string): boolean {
  return versions.length > 0 && versions.every((v) => jsonEqual(v[field], versions[0]![field]));
}

/**
 * All causes for a CustomResourceDefinition (apiextensions.k8s.io/v1) on create; apply
 * applyCustomResourceDefinitionDefaults first, as kube decodes with defaults.
 */
export function validateCustomResourceDefinition(crd: unknown): StatusCause[] {
  const root = obj(crd);
  const metadata = obj(root.metadata);
  const spec = obj(root.spec);
  const specPath = 'spec';
  const group = str(spec.group);
  const crdNames = obj(spec.names);
  const plural = str(crdNames.plural);
  const versions = list(spec.versions).map(obj);
  const errs: StatusCause[] = [];

  errs.push(
    ...validateObjectMeta(root.metadata, {
      namespaced: false,
      nameValidator: (name, prefix) => {
        const msgs = nameIsDNSSubdomain(name, prefix);
        if (name !== `${plural}.${group}`) msgs.push('must be spec.names.plural+"."+spec.group');
        return msgs;
      },
    }),
  );

  const groupPath = childPath(specPath, 'group');
  if (group === '') errs.push(required(groupPath));
  else {
    const groupErrs = isDNS1123Subdomain(group);
    if (groupErrs.length > 0) errs.push(invalid(groupPath, group, groupErrs.join(',')));
    else if (group.split('.').length < 2)
      errs.push(invalid(groupPath, group, 'should be a domain with at least one dot'));
  }
  errs.push(...enumString(childPath(specPath, 'scope'), str(spec.scope), ['Cluster', 'Namespaced']));

  const schemaHoisted = identical(versions, 'schema');
  const subresourcesHoisted = identical(versions, 'subresources');
  const columnsHoisted = identical(versions, 'additionalPrinterColumns');
  const topSchema = schemaHoisted ? versions[0]?.schema : undefined;
  const topSubresources = subresourcesHoisted ? versions[0]?.subresources : undefined;
  const topColumns = columnsHoisted ? list(versions[0]?.additionalPrinterColumns) : [];

  // Every version needs a schema (v1 requires one).
  if (!isJsonObject(obj(topSchema).openAPIV3Schema)) {
    versions.forEach((v, i) => {
      if (!isJsonObject(obj(v.schema).openAPIV3Schema)) {
        errs.push(
          required(
            childPath(indexPath(childPath(specPath, 'versions'), i), 'schema', 'openAPIV3Schema'),
            'schemas are required',
          ),
        );
      }
    });
  }

  let storageCount = 0;
  const seen = new Set<string>();
  let unique = true;
  versions.forEach((v, i) => {
    const vPath = indexPath(childPath(specPath, 'versions'), i);
    if (v.storage === true) storageCount++;
    const name = str(v.name);
    if (seen.has(name)) unique = false;
    seen.add(name);
    const nameErrs = isDNS1035Label(name);
    if (nameErrs.length > 0) errs.push(invalid(childPath(vPath, 'name'), name, nameErrs.join(',')));
    for (const flag of ['served', 'storage']) {
      if (v[flag] !== undefined && typeof v[flag] !== 'boolean')
        errs.push(invalid(childPath(vPath, flag), v[flag], 'must be a boolean'));
    }
    errs.push(...deprecationWarning(v, vPath));
    const statusEnabled = hasStatus(subresourcesHoisted ? topSubresources : v.subresources);
    if (!schemaHoisted) errs.push(...validation(v.schema, statusEnabled, childPath(vPath, 'schema')));
    if (!subresourcesHoisted) errs.push(...subresources(v.subresources, childPath(vPath, 'subresources')));
    if (!columnsHoisted) {
      list(v.additionalPrinterColumns).forEach((col, j) => {
        errs.push(...printerColumn(col, indexPath(childPath(vPath, 'additionalPrinterColumns'), j)));
      });
    }
  });
  if (!unique)
    errs.push(
      invalid(childPath(specPath, 'versions'), spec.versions ?? [], 'must contain unique version names'),
    );
  if (storageCount !== 1) {
    errs.push(
      invalid(
        childPath(specPath, 'versions'),
        spec.versions ?? [],
        'must have exactly one version marked as storage version',
      ),
    );
  }

  for (const field of ['plural', 'singular', 'kind', 'listKind']) {
    if (str(crdNames[field]) === '') errs.push(required(childPath(specPath, 'names', field)));
  }
  errs.push(...names(spec.names, childPath(specPath, 'names')));

  const anyStatus = hasStatus(topSubresources) || versions.some((v) => hasStatus(v.subresources));
  errs.push(...validation(topSchema, anyStatus, childPath(specPath, 'validation')));
  errs.push(...subresources(topSubresources, childPath(specPath, 'subresources')));
  topColumns.forEach((col, j) => {
    errs.push(...printerColumn(col, indexPath(childPath(specPath, 'additionalPrinterColumns'), j)));
  });

  errs.push(...conversion(spec.conversion, childPath(specPath, 'conversion')));
  if (spec.preserveUnknownFields === true) {
    errs.push(
      invalid(
        childPath(specPath, 'preserveUnknownFields'),
        true,
        'cannot set to true, set x-kubernetes-preserve-unknown-fields to true in spec.versions[*].schema instead',
      ),
    );
  }
  errs.push(...apiApproval(group, obj(metadata.annotations)));
  return errs;
}
