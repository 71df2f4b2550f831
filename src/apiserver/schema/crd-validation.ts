// Validation of apiextensions.k8s.io/v1 CustomResourceDefinitions as kube-apiserver does it
// (apiextensions validation.ValidateCustomResourceDefinition), after the v1 defaults.
//
// Paths follow kube's internal version, which is what kube reports: when every version carries the
// same schema (a single-version CRD always does) it is validated as the top-level
// `spec.validation.openAPIV3Schema`; likewise `spec.subresources` and `spec.additionalPrinterColumns`.
// Otherwise errors sit under `spec.versions[i].schema.openAPIV3Schema`.
// The openAPIV3Schema (with its CEL rules) is validated by crd-schema-validation.ts. Not done:
// selectableFields, webhook URL/service details, status.storedVersions (the server sets them on create).

import type { StatusCause } from '../errors.ts';
import { enumString, list, obj, str, validateCrdSchema } from './crd-schema-validation.ts';
import { forbidden, invalid, required } from './field-errors.ts';
import { childPath, type FieldPath, indexPath, keyPath } from './field-path.ts';
import { isJsonObject, type JsonObject, jsonEqual } from './json-value.ts';
import { JsonPathError, parseJsonPath } from './jsonpath.ts';
import { isDNS1035Label, isDNS1123Subdomain, nameIsDNSSubdomain } from './names.ts';
import { validateObjectMeta } from './object-meta-validation.ts';

const printerColumnTypes = ['boolean', 'date', 'integer', 'number', 'string'];
const printerColumnFormats = ['byte', 'date', 'date-time', 'double', 'float', 'int32', 'int64', 'password'];
const approvalAnnotation = 'api-approved.kubernetes.io';

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

/** spec.group: required, a DNS subdomain with at least one dot. */
function groupCauses(group: string, groupPath: FieldPath): StatusCause[] {
  if (group === '') return [required(groupPath)];
  const groupErrs = isDNS1123Subdomain(group);
  if (groupErrs.length > 0) return [invalid(groupPath, group, groupErrs.join(','))];
  if (group.split('.').length < 2)
    return [invalid(groupPath, group, 'should be a domain with at least one dot')];
  return [];
}

/** Which of a CRD's per-version fields are the same in every version, and so validated at the top. */
interface Hoisted {
  schemaHoisted: boolean;
  subresourcesHoisted: boolean;
  columnsHoisted: boolean;
  topSchema: unknown;
  topSubresources: unknown;
}

/**
 * spec.versions: a schema for each, valid unique names, one storage version, and each version's own
 * schema, subresources and printer columns where they are not the same in every version.
 */
function versionCauses(spec: JsonObject, versions: JsonObject[], hoisted: Hoisted): StatusCause[] {
  const specPath = 'spec';
  const { schemaHoisted, subresourcesHoisted, columnsHoisted, topSchema, topSubresources } = hoisted;
  const causes: StatusCause[] = [];
  // Every version needs a schema (v1 requires one).
  if (!isJsonObject(obj(topSchema).openAPIV3Schema)) {
    versions.forEach((v, i) => {
      if (!isJsonObject(obj(v.schema).openAPIV3Schema)) {
        causes.push(
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
    if (nameErrs.length > 0) causes.push(invalid(childPath(vPath, 'name'), name, nameErrs.join(',')));
    for (const flag of ['served', 'storage']) {
      if (v[flag] !== undefined && typeof v[flag] !== 'boolean')
        causes.push(invalid(childPath(vPath, flag), v[flag], 'must be a boolean'));
    }
    causes.push(...deprecationWarning(v, vPath));
    const statusEnabled = hasStatus(subresourcesHoisted ? topSubresources : v.subresources);
    if (!schemaHoisted)
      causes.push(...validateCrdSchema(v.schema, statusEnabled, childPath(vPath, 'schema')));
    if (!subresourcesHoisted) causes.push(...subresources(v.subresources, childPath(vPath, 'subresources')));
    if (!columnsHoisted) {
      list(v.additionalPrinterColumns).forEach((col, j) => {
        causes.push(...printerColumn(col, indexPath(childPath(vPath, 'additionalPrinterColumns'), j)));
      });
    }
  });
  if (!unique)
    causes.push(
      invalid(childPath(specPath, 'versions'), spec.versions ?? [], 'must contain unique version names'),
    );
  if (storageCount !== 1) {
    causes.push(
      invalid(
        childPath(specPath, 'versions'),
        spec.versions ?? [],
        'must have exactly one version marked as storage version',
      ),
    );
  }
  return causes;
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

  errs.push(...groupCauses(group, childPath(specPath, 'group')));
  errs.push(...enumString(childPath(specPath, 'scope'), str(spec.scope), ['Cluster', 'Namespaced']));

  const schemaHoisted = identical(versions, 'schema');
  const subresourcesHoisted = identical(versions, 'subresources');
  const columnsHoisted = identical(versions, 'additionalPrinterColumns');
  const topSchema = schemaHoisted ? versions[0]?.schema : undefined;
  const topSubresources = subresourcesHoisted ? versions[0]?.subresources : undefined;
  const topColumns = columnsHoisted ? list(versions[0]?.additionalPrinterColumns) : [];

  errs.push(
    ...versionCauses(spec, versions, {
      schemaHoisted,
      subresourcesHoisted,
      columnsHoisted,
      topSchema,
      topSubresources,
    }),
  );

  for (const field of ['plural', 'singular', 'kind', 'listKind']) {
    if (str(crdNames[field]) === '') errs.push(required(childPath(specPath, 'names', field)));
  }
  errs.push(...names(spec.names, childPath(specPath, 'names')));

  const anyStatus = hasStatus(topSubresources) || versions.some((v) => hasStatus(v.subresources));
  errs.push(...validateCrdSchema(topSchema, anyStatus, childPath(specPath, 'validation')));
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
