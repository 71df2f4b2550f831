// Creating an object: the namespace and name (generateName) it gets, the server-owned metadata, the
// kind's strategies and metadata checks, namespace admission, field ownership, admission, then the store.

import { randomUUID } from 'node:crypto';
import { alreadyExists, badRequest, invalid } from '../errors.ts';
import type { ResourceDefinition } from '../registry/resource-definition.ts';
import { apiVersionOf } from '../registry/resource-definition.ts';
import { objectKey } from '../storage/keys.ts';
import type { KubeObject } from '../storage/types.ts';
import {
  clone,
  dropEmptyMetadata,
  isPlainObject,
  type ObjectContext,
  present,
  refOf,
  timestamp,
  translateStoreError,
  viewResult,
} from './context.ts';
import type { ApplyOwnership, WriteOptions, WriteResult } from './types.ts';
import { recordOwnership } from './update.ts';
import { checkMetadata, checkTypeMeta, runStrategies, strategyContext } from './write-checks.ts';

/** Random suffix alphabet used by kube for generateName (no vowels, no look-alikes). */
const NAME_ALPHABET = 'bcdfghjklmnpqrstvwxz2456789';

export function createObject(
  ctx: ObjectContext,
  def: ResourceDefinition,
  namespace: string | undefined,
  body: KubeObject,
  options: WriteOptions,
  apply?: ApplyOwnership,
): WriteResult {
  checkTypeMeta(def, body);
  if (def.storedAs) {
    const view = def.storedAs;
    return viewResult(def, createObject(ctx, view.def, namespace, view.toStorage(body), options));
  }
  const obj = clone(body);
  const meta: KubeObject = isPlainObject(obj.metadata) ? obj.metadata : {};
  obj.metadata = meta;
  const requestedManagedFields = meta.managedFields;
  dropEmptyMetadata(meta);
  if (def.namespaced) {
    if (
      meta.namespace !== undefined &&
      meta.namespace !== '' &&
      namespace !== undefined &&
      meta.namespace !== namespace
    ) {
      throw badRequest(
        'the namespace of the provided object does not match the namespace sent on the request',
      );
    }
    const ns = namespace ?? meta.namespace;
    if (!ns) throw badRequest('the server could not find the requested resource: a namespace is required');
    meta.namespace = ns;
  } else {
    delete meta.namespace;
  }
  if (meta.resourceVersion !== undefined && meta.resourceVersion !== '') {
    throw badRequest('resourceVersion should not be set on objects to be created');
  }
  if ((!meta.name || meta.name === '') && typeof meta.generateName === 'string' && meta.generateName !== '') {
    let suffix = '';
    for (let i = 0; i < 5; i++) suffix += NAME_ALPHABET[Math.floor(Math.random() * NAME_ALPHABET.length)];
    meta.name = `${meta.generateName}${suffix}`;
  }
  meta.uid = randomUUID();
  meta.creationTimestamp = timestamp(ctx);
  delete meta.deletionTimestamp;
  delete meta.deletionGracePeriodSeconds;
  delete meta.resourceVersion;
  delete meta.managedFields;
  if (def.tracksGeneration) meta.generation = 1;
  else delete meta.generation;
  // A status subresource means status is written only through /status; kube drops it on create for CRs.
  if (def.subresources.status && !def.builtin) delete obj.status;
  obj.apiVersion = apiVersionOf(def);
  obj.kind = def.kind;

  const kindCtx = strategyContext(def, 'create');
  const { causes, warnings } = runStrategies(
    ctx.strategies(def),
    obj,
    undefined,
    kindCtx,
    options.fieldValidation,
  );
  causes.unshift(...checkMetadata(def, meta, ctx.nameValidator));
  if (causes.length > 0) throw invalid(refOf(def, String(meta.name ?? '')), causes);
  if (def.namespaced && ctx.admitNamespace) ctx.admitNamespace(meta.namespace);
  recordOwnership(ctx, def, undefined, requestedManagedFields, obj, options, apply);
  options.admit?.({
    operation: 'CREATE',
    def,
    subresource: undefined,
    namespace: meta.namespace,
    object: obj,
    oldObject: undefined,
  });

  const key = objectKey(def.group, def.resource, def.namespaced ? meta.namespace : undefined, meta.name);
  if (options.dryRun) {
    if (ctx.store.get(key)) throw alreadyExists(refOf(def, meta.name));
    return { object: present(def, obj), warnings };
  }
  try {
    return { object: present(def, ctx.store.create(key, obj).object), warnings };
  } catch (err) {
    throw translateStoreError(err, def, meta.name);
  }
}
