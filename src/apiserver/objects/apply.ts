// Server-side apply: the applied configuration merged into the live object by its type, fields the
// manager stopped applying removed, ownership planned and checked (conflicts unless forced), and kubectl's
// last-applied annotation kept in step. An object that does not exist is created from the configuration.

import { ApiError, badRequest, conflict, notFound } from '../errors.ts';
import {
  lastAppliedFields,
  lastAppliedValue,
  managersForApply,
  planApply,
} from '../managedfields/managers.ts';
import { mergeApplied, removeFields } from '../managedfields/structured-merge.ts';
import type { ResourceDefinition } from '../registry/resource-definition.ts';
import { apiVersionOf } from '../registry/resource-definition.ts';
import { objectKey } from '../storage/keys.ts';
import type { KubeObject } from '../storage/types.ts';
import { clone, isPlainObject, type ObjectContext, refOf, timestamp } from './context.ts';
import { createObject } from './create.ts';
import { fieldTypeOf, storedManagers, writeScope } from './field-management.ts';
import { PATCH_RETRIES } from './patch.ts';
import type { ApplyOwnership, WriteOptions, WriteResult } from './types.ts';
import { writeUpdate } from './update.ts';
import { checkTypeMeta } from './write-checks.ts';

/**
 * Server-side apply of `config` (an object decoded from application/apply-patch+yaml) by
 * `options.fieldManager`: merged into the live object per its schema, fields the manager no longer
 * applies removed unless others own them, conflicts with other managers refused unless forced. An
 * object that does not exist is created from the configuration, as kube does.
 */
export function apply(
  ctx: ObjectContext,
  def: ResourceDefinition,
  namespace: string | undefined,
  name: string,
  config: KubeObject,
  options: WriteOptions,
): WriteResult {
  const manager = options.fieldManager ?? '';
  const meta: KubeObject = isPlainObject(config.metadata) ? config.metadata : {};
  if (meta.managedFields !== undefined && meta.managedFields !== null) {
    throw badRequest('metadata.managedFields must be nil');
  }
  const expectedVersion = apiVersionOf(def);
  if (
    typeof config.apiVersion === 'string' &&
    config.apiVersion !== '' &&
    config.apiVersion !== expectedVersion
  ) {
    throw badRequest(
      `Incorrect version specified in apply patch. Specified patch version: ${config.apiVersion}, expected: ${expectedVersion}`,
    );
  }
  if (meta.name !== undefined && meta.name !== name) {
    throw badRequest(
      `the name of the object (${String(meta.name)}) does not match the name on the URL (${name})`,
    );
  }
  checkTypeMeta(def, config);
  for (let attempt = 0; ; attempt++) {
    const key = objectKey(def.group, def.resource, def.namespaced ? namespace : undefined, name);
    const current = ctx.store.get(key);
    const scope = writeScope(def, options.subresource, timestamp(ctx));
    const type = fieldTypeOf(def);
    if (!current) {
      if (options.subresource) throw notFound(refOf(def, name));
      const plan = planApply(config, [], manager, scope);
      const body = mergeApplied({}, config, type) as KubeObject;
      body.metadata = { ...(body.metadata ?? {}), name };
      delete body.metadata.resourceVersion;
      try {
        const created = createObject(ctx, def, namespace, body, options, {
          managers: [],
          plan,
          force: options.force === true,
        });
        return { ...created, created: true };
      } catch (err) {
        // Someone created it meanwhile: apply to theirs.
        if (err instanceof ApiError && err.reason === 'AlreadyExists' && attempt < PATCH_RETRIES) continue;
        throw err;
      }
    }
    // The merge below shares parts of the live object with its result, which the write then changes.
    const live = clone(current.object);
    const pinned = meta.resourceVersion;
    if (pinned !== undefined && pinned !== '' && String(pinned) !== String(current.revision)) {
      throw conflict(refOf(def, name));
    }
    const managers = managersForApply(live, storedManagers(live), scope);
    const plan = planApply(config, managers, manager, scope);
    const merged = removeFields(
      mergeApplied(live, config, type),
      plan.released,
      plan.kept,
      type,
    ) as KubeObject;
    delete merged.metadata?.resourceVersion;
    const kubectl = manager === 'kubectl';
    const ownership: ApplyOwnership = {
      managers,
      plan,
      force: options.force === true,
      allowed: kubectl ? lastAppliedFields(live, scope) : undefined,
      lastApplied: kubectl ? lastAppliedValue(config) : undefined,
    };
    try {
      return writeUpdate(ctx, def, current, merged, options, ownership);
    } catch (err) {
      const retriable = err instanceof ApiError && err.reason === 'Conflict' && !err.details?.causes;
      if (!retriable || pinned !== undefined || attempt >= PATCH_RETRIES) throw err;
    }
  }
}
