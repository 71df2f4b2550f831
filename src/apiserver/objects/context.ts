// What every verb of the object service shares: the store and the injected parts (kind strategies, the
// patch applier, name rules, namespace admission, the clock), and the small steps each verb repeats:
// reading one object, presenting a stored object as the client's resource sees it, and translating the
// store's errors into API errors.

import { kubeTime } from '../../util/kube-time.ts';
import { isPlainObject } from '../../util/plain-object.ts';
import { alreadyExists, conflict, notFound, objectTooLarge, storageQuotaExceeded } from '../errors.ts';
import type { ResourceDefinition } from '../registry/resource-definition.ts';
import { apiVersionOf } from '../registry/resource-definition.ts';
import { cloneJson } from '../storage/json-clone.ts';
import { objectKey } from '../storage/keys.ts';
import {
  type KubeObject,
  type Store,
  StoreConflictError,
  type StoredItem,
  StoreExistsError,
  StoreNotFoundError,
  StoreQuotaExceededError,
  StoreTooLargeError,
} from '../storage/types.ts';
import type { KindStrategy, StrategyLookup } from './strategy.ts';
import type { NameValidator, PatchApplier, WriteResult } from './types.ts';

export { isPlainObject } from '../../util/plain-object.ts';

/** The store and the parts the verbs are given (ObjectServiceOptions, with the clock filled in). */
export interface ObjectContext {
  store: Store;
  strategies: StrategyLookup;
  patcher: PatchApplier;
  nameValidator: NameValidator;
  /** Decides whether a namespace accepts new objects; throws ApiError when it does not. */
  admitNamespace: ((namespace: string) => void) | undefined;
  now: () => Date;
}

export function refOf(def: ResourceDefinition, name: string) {
  return { group: def.group, resource: def.resource, kind: def.kind, name };
}

/** A private copy of a JSON value (a request body, or a frozen object of the store) to change. */
export function clone<T>(value: T): T {
  return cloneJson(value);
}

/**
 * Empty metadata maps and lists are not kept: kube round-trips metadata through its Go type, whose
 * omitempty fields drop them (otherwise `annotations: {}` from a patch shows up in kubectl diff).
 */
export function dropEmptyMetadata(meta: KubeObject): void {
  for (const field of ['labels', 'annotations', 'finalizers', 'ownerReferences']) {
    const value = meta[field];
    if (
      (Array.isArray(value) && value.length === 0) ||
      (isPlainObject(value) && Object.keys(value).length === 0)
    ) {
      delete meta[field];
    }
  }
}

export function withoutKeys(obj: KubeObject, keys: string[]): KubeObject {
  const copy: KubeObject = { ...obj };
  for (const k of keys) delete copy[k];
  return copy;
}

/** Where a resource's objects are kept: its own key space, or the one it is a view over. */
export function storageOf(def: ResourceDefinition): ResourceDefinition {
  return def.storedAs?.def ?? def;
}

export function timestamp(ctx: ObjectContext): string {
  return kubeTime(ctx.now().getTime());
}

/** The storage key of an object of `def` (a view's objects are kept under the resource it views). */
export function keyOf(def: ResourceDefinition, namespace: string | undefined, name: string): string {
  const keyed = storageOf(def);
  return objectKey(keyed.group, keyed.resource, def.namespaced ? namespace : undefined, name);
}

/**
 * The object as the client of `def` sees it. Objects of the store are frozen and shared (types.ts):
 * one that already reads as `def` is answered as it is, anything else is a new object.
 */
export function present(def: ResourceDefinition, stored: KubeObject): KubeObject {
  const apiVersion = apiVersionOf(def);
  if (def.storedAs && stored.apiVersion !== apiVersion) {
    // A view over another resource's storage converts (once: an object already in the view's form stays).
    const object = def.storedAs.fromStorage(stored);
    object.apiVersion = apiVersion;
    object.kind = def.kind;
    return object;
  }
  if (stored.apiVersion === apiVersion && stored.kind === def.kind) return stored;
  // Served versions share storage without conversion: report the version the client asked for.
  return { ...stored, apiVersion, kind: def.kind };
}

export function viewResult(def: ResourceDefinition, result: WriteResult): WriteResult {
  return { ...result, object: present(def, result.object) };
}

export function readItem(
  ctx: ObjectContext,
  def: ResourceDefinition,
  namespace: string | undefined,
  name: string,
): StoredItem {
  const item = ctx.store.get(keyOf(def, namespace, name));
  if (!item) throw notFound(refOf(def, name));
  return item;
}

export function translateStoreError(err: unknown, def: ResourceDefinition, name: string): unknown {
  if (err instanceof StoreConflictError) return conflict(refOf(def, name));
  if (err instanceof StoreNotFoundError) return notFound(refOf(def, name));
  if (err instanceof StoreExistsError) return alreadyExists(refOf(def, name));
  if (err instanceof StoreTooLargeError) return objectTooLarge();
  if (err instanceof StoreQuotaExceededError) return storageQuotaExceeded(err.message);
  return err;
}

/** Whether a kind's rules keep a deleted object beyond its metadata.finalizers (a Namespace's spec.finalizers). */
export function removalBlocked(strategies: readonly KindStrategy[], obj: KubeObject): boolean {
  return strategies.some((s) => s.blocksRemoval?.(obj) === true);
}

/** The new state a kind's own subresource write makes, from the first strategy that claims it. */
export function subresourceWrite(
  strategies: readonly KindStrategy[],
  subresource: string,
  old: KubeObject,
  incoming: KubeObject,
): KubeObject | undefined {
  for (const s of strategies) {
    const written = s.subresourceWrite?.(subresource, old, incoming);
    if (written !== undefined) return written;
  }
  return undefined;
}
