// Updating an object: the new state laid over the stored one with every lifecycle rule (status
// subresource, a kind's own subresources, server-owned metadata, generation, finalizers of an object
// being deleted, removal once the last finalizer is gone), then a compare-and-swap. Patch and apply end
// here too.

import { jsonEqual } from '../../util/json-equal.ts';
import { badRequest, conflict, invalid, type StatusCause } from '../errors.ts';
import { LAST_APPLIED_ANNOTATION, recordApply } from '../managedfields/managers.ts';
import type { ResourceDefinition } from '../registry/resource-definition.ts';
import { apiVersionOf } from '../registry/resource-definition.ts';
import type { KubeObject, StoredItem } from '../storage/types.ts';
import {
  clone,
  dropEmptyMetadata,
  isPlainObject,
  type ObjectContext,
  present,
  readItem,
  refOf,
  removalBlocked,
  subresourceWrite,
  timestamp,
  translateStoreError,
  viewResult,
  withoutKeys,
} from './context.ts';
import {
  DEFAULT_FIELD_MANAGER,
  recordUpdateOwnership,
  setManagedFields,
  writeScope,
} from './field-management.ts';
import type { KindStrategy } from './strategy.ts';
import type { ApplyOwnership, WriteOptions, WriteResult } from './types.ts';
import { checkMetadata, checkTypeMeta, runStrategies, strategyContext } from './write-checks.ts';

/**
 * Replaces an object. With a status subresource, main-resource writes keep the stored status and
 * /status writes keep everything but status.
 */
export function update(
  ctx: ObjectContext,
  def: ResourceDefinition,
  namespace: string | undefined,
  name: string,
  body: KubeObject,
  options: WriteOptions = {},
): WriteResult {
  checkTypeMeta(def, body);
  if (def.storedAs) {
    const view = def.storedAs;
    return viewResult(def, update(ctx, view.def, namespace, name, view.toStorage(body), options));
  }
  const meta: KubeObject = isPlainObject(body.metadata) ? body.metadata : {};
  if (meta.name !== undefined && meta.name !== name) {
    throw badRequest(
      `the name of the object (${String(meta.name)}) does not match the name on the URL (${name})`,
    );
  }
  if (
    def.namespaced &&
    meta.namespace !== undefined &&
    meta.namespace !== '' &&
    meta.namespace !== namespace
  ) {
    throw badRequest('the namespace of the provided object does not match the namespace sent on the request');
  }
  const requestedRv = meta.resourceVersion;
  if ((requestedRv === undefined || requestedRv === '') && !def.builtin) {
    throw invalid(refOf(def, name), [
      {
        type: 'FieldValueInvalid',
        field: 'metadata.resourceVersion',
        message: 'Invalid value: 0x0: must be specified for an update',
      },
    ]);
  }
  const current = readItem(ctx, def, namespace, name);
  if (requestedRv !== undefined && requestedRv !== '' && String(requestedRv) !== String(current.revision)) {
    throw conflict(refOf(def, name));
  }
  return writeUpdate(ctx, def, current, clone(body), options);
}

/**
 * The state a write makes from the stored object: a /status write changes status only, a kind's own
 * subresource (a Namespace's /finalize) what its strategy says, a main-resource write everything but a
 * status kept by its subresource.
 */
function newState(
  def: ResourceDefinition,
  old: KubeObject,
  incoming: KubeObject,
  subresource: string | undefined,
  strategies: readonly KindStrategy[],
): KubeObject {
  if (subresource === 'status') {
    const obj = clone(old);
    if (incoming.status === undefined) delete obj.status;
    else obj.status = incoming.status;
    return obj;
  }
  const kindWrite =
    subresource === undefined ? undefined : subresourceWrite(strategies, subresource, old, incoming);
  if (kindWrite !== undefined) return kindWrite;
  if (def.subresources.status) {
    if (old.status === undefined) delete incoming.status;
    else incoming.status = clone(old.status);
  }
  return incoming;
}

/** Server-owned metadata cannot be changed by clients: it is taken from the stored object. */
function keepServerMetadata(def: ResourceDefinition, obj: KubeObject, oldMeta: KubeObject): KubeObject {
  const meta: KubeObject = isPlainObject(obj.metadata) ? obj.metadata : {};
  obj.metadata = meta;
  meta.name = oldMeta.name;
  if (def.namespaced) meta.namespace = oldMeta.namespace;
  else delete meta.namespace;
  meta.uid = oldMeta.uid;
  meta.creationTimestamp = oldMeta.creationTimestamp;
  if (oldMeta.deletionTimestamp !== undefined) {
    meta.deletionTimestamp = oldMeta.deletionTimestamp;
    if (oldMeta.deletionGracePeriodSeconds !== undefined)
      meta.deletionGracePeriodSeconds = oldMeta.deletionGracePeriodSeconds;
  } else {
    delete meta.deletionTimestamp;
    delete meta.deletionGracePeriodSeconds;
  }
  delete meta.resourceVersion;
  delete meta.managedFields;
  dropEmptyMetadata(meta);
  if (def.tracksGeneration) meta.generation = oldMeta.generation ?? 1;
  else delete meta.generation;
  obj.apiVersion = apiVersionOf(def);
  obj.kind = def.kind;
  return meta;
}

/** An object being deleted takes no new finalizers (kube's ValidateObjectMetaUpdate). */
function finalizersAddedWhileDeleting(oldMeta: KubeObject, meta: KubeObject): StatusCause[] {
  if (oldMeta.deletionTimestamp === undefined) return [];
  const before = new Set<string>(oldMeta.finalizers ?? []);
  const added = (meta.finalizers ?? []).filter((f: string) => !before.has(f));
  if (added.length === 0) return [];
  return [
    {
      type: 'FieldValueForbidden',
      field: 'metadata.finalizers',
      message: `Forbidden: no new finalizers can be added if the object is being deleted, found new finalizers ${JSON.stringify(added)}`,
    },
  ];
}

/** metadata.generation moves when anything but metadata (and a subresource's status) changed. */
function bumpGeneration(def: ResourceDefinition, obj: KubeObject, old: KubeObject): void {
  if (!def.tracksGeneration) return;
  const ignored = def.subresources.status
    ? ['metadata', 'status', 'apiVersion', 'kind']
    : ['metadata', 'apiVersion', 'kind'];
  if (!jsonEqual(withoutKeys(obj, ignored), withoutKeys(old, ignored)))
    obj.metadata.generation = (old.metadata.generation ?? 1) + 1;
}

/** Applies the new state on top of the stored one with every lifecycle rule, then compare-and-swaps. */
export function writeUpdate(
  ctx: ObjectContext,
  def: ResourceDefinition,
  current: StoredItem,
  incoming: KubeObject,
  options: WriteOptions,
  apply?: ApplyOwnership,
): WriteResult {
  const old = current.object;
  const requestedManagedFields = isPlainObject(incoming.metadata)
    ? incoming.metadata.managedFields
    : undefined;
  const oldMeta: KubeObject = old.metadata;
  const strategies = ctx.strategies(def);
  const obj = newState(def, old, incoming, options.subresource, strategies);
  const meta = keepServerMetadata(def, obj, oldMeta);

  const kindCtx = strategyContext(def, 'update', options.subresource);
  const { causes, warnings } = runStrategies(strategies, obj, old, kindCtx, options.fieldValidation);
  causes.unshift(...checkMetadata(def, meta, ctx.nameValidator).filter((c) => c.field !== 'metadata.name'));
  causes.push(...finalizersAddedWhileDeleting(oldMeta, meta));
  if (causes.length > 0) throw invalid(refOf(def, oldMeta.name), causes);
  recordOwnership(ctx, def, old, requestedManagedFields, obj, options, apply);
  options.admit?.({
    operation: 'UPDATE',
    def,
    subresource: options.subresource,
    namespace: oldMeta.namespace,
    object: obj,
    oldObject: old,
  });
  bumpGeneration(def, obj, old);
  return commitUpdate(ctx, def, current, obj, strategies, options.dryRun === true, warnings);
}

/**
 * Stores the new state: a dry run answers it with the current resourceVersion, an object whose last
 * finalizer went is removed, a no-op keeps the stored object (and its resourceVersion), anything else is a
 * compare-and-swap on the revision read.
 */
function commitUpdate(
  ctx: ObjectContext,
  def: ResourceDefinition,
  current: StoredItem,
  obj: KubeObject,
  strategies: readonly KindStrategy[],
  dryRun: boolean,
  warnings: string[],
): WriteResult {
  const old = current.object;
  const oldMeta: KubeObject = old.metadata;
  const meta: KubeObject = obj.metadata;
  // The stored object carries its resourceVersion; the new state never does, so compare without it.
  const unchanged = jsonEqual(withoutKeys(obj, ['apiVersion', 'kind']), {
    ...withoutKeys(old, ['apiVersion', 'kind']),
    metadata: withoutKeys(oldMeta, ['resourceVersion']),
  });
  const finalized =
    oldMeta.deletionTimestamp !== undefined &&
    (meta.finalizers ?? []).length === 0 &&
    !removalBlocked(strategies, obj);
  if (dryRun) {
    // kube answers a dry-run update with the object's current resourceVersion (kubectl diff relies on it).
    meta.resourceVersion = String(current.revision);
    return { object: present(def, obj), warnings };
  }
  if (finalized) {
    // The last finalizer is gone: the object disappears now.
    try {
      const gone = ctx.store.delete(current.key, current.revision);
      return { object: present(def, gone.object), warnings };
    } catch (err) {
      throw translateStoreError(err, def, oldMeta.name);
    }
  }
  // A no-op write keeps the resourceVersion, as kube does; watchers see nothing.
  if (unchanged) return { object: present(def, old), warnings };
  try {
    return {
      object: present(def, ctx.store.update(current.key, current.revision, obj).object),
      warnings,
    };
  } catch (err) {
    throw translateStoreError(err, def, oldMeta.name);
  }
}

/** Fills metadata.managedFields of the object about to be written: an Update by the writer, or an Apply. */
export function recordOwnership(
  ctx: ObjectContext,
  def: ResourceDefinition,
  live: KubeObject | undefined,
  requested: unknown,
  obj: KubeObject,
  options: WriteOptions,
  apply: ApplyOwnership | undefined,
): void {
  const scope = writeScope(def, options.subresource, timestamp(ctx));
  if (!apply) {
    recordUpdateOwnership(live, requested, obj, options.fieldManager || DEFAULT_FIELD_MANAGER, scope);
    return;
  }
  const managers = recordApply(
    live ?? {},
    obj,
    apply.managers,
    apply.plan,
    apply.force,
    scope,
    apply.allowed,
  );
  setManagedFields(obj, managers);
  if (apply.lastApplied !== undefined && obj.metadata.annotations?.[LAST_APPLIED_ANNOTATION] !== undefined) {
    obj.metadata.annotations[LAST_APPLIED_ANNOTATION] = apply.lastApplied;
  }
}
