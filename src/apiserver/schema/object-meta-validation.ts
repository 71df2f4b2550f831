// ValidateObjectMeta (apimachinery pkg/api/validation/objectmeta.go): the checks every object's metadata
// gets on create and update, with a per-kind name rule. Paths start at `metadata` unless told otherwise.

import type { StatusCause } from '../errors.ts';
import { forbidden, invalid, required } from './field-errors.ts';
import { childPath, type FieldPath } from './field-path.ts';
import { isJsonObject } from './json-value.ts';
import {
  isQualifiedName,
  type NameValidator,
  nameIsDNSSubdomain,
  validateAnnotations,
  validateLabels,
  validateNamespaceName,
} from './names.ts';

export interface ObjectMetaRules {
  /** Whether the kind lives in namespaces (namespace required) or not (namespace forbidden). */
  namespaced: boolean;
  /** The kind's name rule; custom resources use DNS subdomains. */
  nameValidator?: NameValidator;
  /** Where metadata sits; `metadata` for a top-level object. */
  path?: FieldPath;
}

const orphanFinalizer = 'orphan';
const foregroundFinalizer = 'foregroundDeletion';

function str(value: unknown): string {
  return typeof value === 'string' ? value : '';
}

function validateOwnerReferences(refs: unknown, path: FieldPath): StatusCause[] {
  if (!Array.isArray(refs)) return [];
  const causes: StatusCause[] = [];
  let firstController = '';
  for (const ref of refs) {
    if (!isJsonObject(ref)) continue;
    const apiVersion = str(ref.apiVersion);
    const version = apiVersion.includes('/') ? apiVersion.slice(apiVersion.indexOf('/') + 1) : apiVersion;
    // Kube reports these on the list's path, not per index.
    if (version === '')
      causes.push(invalid(childPath(path, 'apiVersion'), apiVersion, 'version must not be empty'));
    if (str(ref.kind) === '')
      causes.push(invalid(childPath(path, 'kind'), str(ref.kind), 'must not be empty'));
    if (str(ref.name) === '')
      causes.push(invalid(childPath(path, 'name'), str(ref.name), 'must not be empty'));
    if (str(ref.uid) === '') causes.push(invalid(childPath(path, 'uid'), str(ref.uid), 'must not be empty'));
    if (ref.controller === true) {
      const current = `${str(ref.kind)}/${str(ref.name)}`;
      if (firstController === '') firstController = current;
      else {
        causes.push(
          invalid(
            path,
            refs,
            `Only one reference can have Controller set to true. Found "true" in references for ${firstController} and ${current}`,
          ),
        );
      }
    }
  }
  return causes;
}

function validateFinalizers(finalizers: unknown, path: FieldPath): StatusCause[] {
  if (!Array.isArray(finalizers)) return [];
  const causes: StatusCause[] = [];
  for (const finalizer of finalizers) {
    const name = str(finalizer);
    for (const msg of isQualifiedName(name)) causes.push(invalid(path, name, msg));
  }
  if (finalizers.includes(orphanFinalizer) && finalizers.includes(foregroundFinalizer)) {
    causes.push(
      invalid(path, finalizers, `finalizer ${orphanFinalizer} and ${foregroundFinalizer} cannot be both set`),
    );
  }
  return causes;
}

export function validateObjectMeta(metadata: unknown, rules: ObjectMetaRules): StatusCause[] {
  const path = rules.path ?? 'metadata';
  const nameFn = rules.nameValidator ?? nameIsDNSSubdomain;
  const meta = isJsonObject(metadata) ? metadata : {};
  const causes: StatusCause[] = [];

  const generateName = str(meta.generateName);
  if (generateName !== '') {
    for (const msg of nameFn(generateName, true))
      causes.push(invalid(childPath(path, 'generateName'), generateName, msg));
  }
  const name = str(meta.name);
  if (name === '') causes.push(required(childPath(path, 'name'), 'name or generateName is required'));
  else for (const msg of nameFn(name, false)) causes.push(invalid(childPath(path, 'name'), name, msg));

  const namespace = str(meta.namespace);
  if (rules.namespaced) {
    if (namespace === '') causes.push(required(childPath(path, 'namespace')));
    else {
      for (const msg of validateNamespaceName(namespace, false)) {
        causes.push(invalid(childPath(path, 'namespace'), namespace, msg));
      }
    }
  } else if (namespace !== '') {
    causes.push(forbidden(childPath(path, 'namespace'), 'not allowed on this type'));
  }

  if (typeof meta.generation === 'number' && meta.generation < 0) {
    causes.push(
      invalid(childPath(path, 'generation'), meta.generation, 'must be greater than or equal to 0'),
    );
  }
  causes.push(...validateLabels(meta.labels, childPath(path, 'labels')));
  causes.push(...validateAnnotations(meta.annotations, childPath(path, 'annotations')));
  causes.push(...validateOwnerReferences(meta.ownerReferences, childPath(path, 'ownerReferences')));
  causes.push(...validateFinalizers(meta.finalizers, childPath(path, 'finalizers')));
  return causes;
}
