// Deleting objects: preconditions, admission, propagation finalizers, and either removal or a
// deletionTimestamp that leaves the object to its finalizers (and its kind's markDeleting hook: a
// Namespace turns Terminating); deleteCollection deletes what a list would return.

import { jsonEqual } from '../../util/json-equal.ts';
import { ApiError } from '../errors.ts';
import type { ResourceDefinition } from '../registry/resource-definition.ts';
import type { KubeObject } from '../storage/types.ts';
import {
  clone,
  type ObjectContext,
  present,
  readItem,
  removalBlocked,
  timestamp,
  translateStoreError,
} from './context.ts';
import { list } from './list.ts';
import type { DeleteOptions, DeleteResult, ObjectFilter } from './types.ts';

export function deleteObject(
  ctx: ObjectContext,
  def: ResourceDefinition,
  namespace: string | undefined,
  name: string,
  options: DeleteOptions = {},
): DeleteResult {
  if (def.storedAs) {
    const result = deleteObject(ctx, def.storedAs.def, namespace, name, options);
    return { ...result, object: present(def, result.object) };
  }
  const current = readItem(ctx, def, namespace, name);
  const obj = clone(current.object);
  const meta: KubeObject = obj.metadata;
  const pre = options.preconditions;
  if (pre?.uid && pre.uid !== meta.uid) {
    throw new ApiError(
      409,
      'Conflict',
      `Operation cannot be fulfilled on ${def.group ? `${def.resource}.${def.group}` : def.resource} "${name}": Precondition failed: UID in precondition: ${pre.uid}, UID in object meta: ${meta.uid}`,
      { name, group: def.group, kind: def.resource },
    );
  }
  if (pre?.resourceVersion && pre.resourceVersion !== String(current.revision)) {
    throw new ApiError(
      409,
      'Conflict',
      `Operation cannot be fulfilled on ${def.group ? `${def.resource}.${def.group}` : def.resource} "${name}": Precondition failed: ResourceVersion in precondition: ${pre.resourceVersion}, ResourceVersion in object meta: ${current.revision}`,
      { name, group: def.group, kind: def.resource },
    );
  }

  options.admit?.({
    operation: 'DELETE',
    def,
    subresource: undefined,
    namespace: meta.namespace,
    object: undefined,
    oldObject: current.object,
  });

  const finalizers: string[] = [...(meta.finalizers ?? [])];
  if (options.propagationPolicy === 'Foreground' && !finalizers.includes('foregroundDeletion')) {
    finalizers.push('foregroundDeletion');
  }
  if (options.propagationPolicy === 'Orphan' && !finalizers.includes('orphan')) finalizers.push('orphan');
  const blocked = finalizers.length > 0 || removalBlocked(ctx.strategies(def), obj);
  if (!blocked) {
    if (options.dryRun) return { object: present(def, obj), deleted: true };
    try {
      const gone = ctx.store.delete(current.key, current.revision);
      return { object: present(def, gone.object), deleted: true };
    } catch (err) {
      throw translateStoreError(err, def, name);
    }
  }
  if (meta.deletionTimestamp !== undefined && jsonEqual(finalizers, meta.finalizers ?? [])) {
    // Already being deleted: deleting again changes nothing.
    return { object: present(def, obj), deleted: false };
  }
  meta.deletionTimestamp ??= timestamp(ctx);
  meta.deletionGracePeriodSeconds ??= 0;
  meta.finalizers = finalizers;
  for (const strategy of ctx.strategies(def)) strategy.markDeleting?.(obj);
  if (options.dryRun) return { object: present(def, obj), deleted: false };
  try {
    const written = ctx.store.update(current.key, current.revision, obj);
    return { object: present(def, written.object), deleted: false };
  } catch (err) {
    throw translateStoreError(err, def, name);
  }
}

/** Deletes every object a list would return; finalizers are honoured per object. */
export function deleteCollection(
  ctx: ObjectContext,
  def: ResourceDefinition,
  namespace: string | undefined,
  filter: ObjectFilter | undefined,
  options: DeleteOptions = {},
): KubeObject[] {
  const page = list(ctx, def, namespace, filter ? { filter } : {});
  const deleted: KubeObject[] = [];
  for (const item of page.items) {
    try {
      deleted.push(deleteObject(ctx, def, item.metadata.namespace, item.metadata.name, options).object);
    } catch (err) {
      if (!(err instanceof ApiError && err.code === 404)) throw err;
    }
  }
  return deleted;
}
