// Field management for the object service: which manager a write records, how an object's type
// merges (from its CRD schema or a built-in kind's patch metadata), and metadata.managedFields before
// and after a write, as kube-apiserver's fieldmanager keeps them.

import { ApiError } from '../errors.ts';
import {
  type FieldType,
  objectFieldType,
  patchMetaFieldType,
  schemaFieldType,
} from '../managedfields/field-types.ts';
import {
  decodeManagedFields,
  encodeManagedFields,
  isResetRequest,
  type Manager,
  recordUpdate,
  type WriteScope,
} from '../managedfields/managers.ts';
import { metadataOnly, objectMeta } from '../patch/builtin-patch-meta.ts';
import type { ResourceDefinition } from '../registry/resource-definition.ts';
import { apiVersionOf } from '../registry/resource-definition.ts';
import type { KubeObject } from '../storage/types.ts';

/** The manager of writes that name none and come from inside the server (its own controllers). */
export const DEFAULT_FIELD_MANAGER = 'nodeherd-apiserver';
const MAX_FIELD_MANAGER_LENGTH = 128;

const fieldTypes = new WeakMap<ResourceDefinition, FieldType>();

/** How objects of a resource merge: built-ins by their patch metadata, custom resources by their schema. */
export function fieldTypeOf(def: ResourceDefinition): FieldType {
  let type = fieldTypes.get(def);
  if (type === undefined) {
    type = def.builtin
      ? patchMetaFieldType(def.patchMeta ?? metadataOnly)
      : objectFieldType(objectMeta, schemaFieldType(def.schema));
    fieldTypes.set(def, type);
  }
  return type;
}

export function writeScope(
  def: ResourceDefinition,
  subresource: string | undefined,
  now: string,
): WriteScope {
  return {
    type: fieldTypeOf(def),
    apiVersion: apiVersionOf(def),
    subresource: subresource === 'status' ? 'status' : '',
    statusSubresource: def.subresources.status === true,
    now,
  };
}

/** The managers recorded on a stored object; unreadable entries count as none (kube drops them too). */
export function storedManagers(object: KubeObject | undefined): Manager[] {
  try {
    return decodeManagedFields(object?.metadata?.managedFields);
  } catch {
    return [];
  }
}

/**
 * The managers a create, update or non-apply patch starts from: what the client sent in
 * metadata.managedFields when it sent any that decode (`[{}]` clears them), else the live object's.
 * Subresource writes always keep the live object's.
 */
export function managersBeforeUpdate(
  live: KubeObject | undefined,
  requested: unknown,
  scope: WriteScope,
): Manager[] {
  if (scope.subresource !== '') return storedManagers(live);
  if (isResetRequest(requested)) return [];
  try {
    const sent = decodeManagedFields(requested);
    if (sent.length > 0) return sent;
  } catch {
    // Fall back to the live object's, so a client that mangles managedFields cannot erase them.
  }
  return storedManagers(live);
}

/** Ownership after a create/update/patch by `manager`, encoded into `object.metadata`. */
export function recordUpdateOwnership(
  live: KubeObject | undefined,
  requested: unknown,
  object: KubeObject,
  manager: string,
  scope: WriteScope,
): void {
  const managers = recordUpdate(
    live ?? {},
    object,
    managersBeforeUpdate(live, requested, scope),
    manager,
    scope,
  );
  setManagedFields(object, managers);
}

export function setManagedFields(object: KubeObject, managers: readonly Manager[]): void {
  if (managers.length > 0) object.metadata.managedFields = encodeManagedFields(managers);
  else delete object.metadata.managedFields;
}

/**
 * kube's ValidateFieldManager, for the options kind of the request (CreateOptions, UpdateOptions,
 * PatchOptions): 422 Invalid for names that are too long or not printable.
 */
export function validateFieldManager(optionsKind: string, fieldManager: string | undefined): void {
  if (fieldManager === undefined) return;
  let detail: string | undefined;
  if (fieldManager.length > MAX_FIELD_MANAGER_LENGTH) {
    detail = `Too long: may not be more than ${MAX_FIELD_MANAGER_LENGTH} bytes`;
  } else if (/[^\P{C}]/u.test(fieldManager)) {
    detail = `Invalid value: ${JSON.stringify(fieldManager)}: must be printable`;
  }
  if (detail) throw optionsInvalid(optionsKind, [{ field: 'fieldManager', message: detail }]);
}

/** `PatchOptions.meta.k8s.io "" is invalid: fieldManager: Required value: is required for apply patch`. */
export function optionsInvalid(
  optionsKind: string,
  causes: { field: string; message: string; type?: string }[],
): ApiError {
  const texts = causes.map((c) => `${c.field}: ${c.message}`);
  const summary = texts.length === 1 ? texts[0]! : `[${texts.join(', ')}]`;
  return new ApiError(422, 'Invalid', `${optionsKind}.meta.k8s.io "" is invalid: ${summary}`, {
    group: 'meta.k8s.io',
    kind: optionsKind,
    causes: causes.map((c) => ({
      type: c.type ?? (c.message.startsWith('Required') ? 'FieldValueRequired' : 'FieldValueInvalid'),
      message: c.message,
      field: c.field,
    })),
  });
}
