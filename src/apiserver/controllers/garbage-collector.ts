// Cascading deletion through ownerReferences, as kube's garbage collector does it: dependents of a
// deleted owner are deleted (background), orphaned (Orphan), or deleted first (Foreground). Indexes by
// uid are kept in memory from the store's event stream, so finding dependents costs no scan.

import { ApiError } from '../errors.ts';
import type { ObjectService } from '../objects/object-service.ts';
import type { ResourceRegistry } from '../registry/resource-registry.ts';
import type { KubeObject, Store, StoreEvent } from '../storage/types.ts';
import { definitionForKey } from './keys.ts';
import { StoreController } from './store-controller.ts';

const RETRY_MS = 500;

interface OwnerRef {
  uid: string;
  blockOwnerDeletion?: boolean;
}

function ownerRefsOf(object: KubeObject): OwnerRef[] {
  const refs = object.metadata?.ownerReferences;
  return Array.isArray(refs) ? refs.filter((r: KubeObject) => typeof r?.uid === 'string') : [];
}

function sameList(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((value, i) => value === b[i]);
}

export class GarbageCollector extends StoreController {
  private readonly registry: ResourceRegistry;
  /** uid → key of every live object. */
  private readonly keyByUid = new Map<string, string>();
  /** owner uid → keys of objects naming it as owner. */
  private readonly dependents = new Map<string, Set<string>>();
  /** key → owner uids it was indexed under. */
  private readonly ownersByKey = new Map<string, string[]>();

  constructor(store: Store, registry: ResourceRegistry, objects: ObjectService) {
    super(store, objects);
    this.registry = registry;
  }

  start(): void {
    const all = this.store.list('/').items;
    for (const item of all) this.index(item.key, item.object);
    this.followStore();
    // Dependents whose owners vanished while the server was down (or mid-cascade) go now.
    for (const item of all) {
      const refs = ownerRefsOf(item.object);
      if (refs.length > 0 && refs.every((r) => !this.keyByUid.has(r.uid)))
        this.queue.add(item.key, () => this.collect(item.key));
      if (item.object.metadata?.deletionTimestamp !== undefined) this.scheduleOwner(item.key, item.object);
    }
  }

  private index(key: string, object: KubeObject): void {
    const uid = object.metadata?.uid;
    const owners = ownerRefsOf(object).map((r) => r.uid);
    // Most writes change neither the uid nor the owners (a status, a Lease renewal): nothing to redo.
    const indexed = this.ownersByKey.get(key);
    if (
      indexed !== undefined &&
      sameList(indexed, owners) &&
      (typeof uid !== 'string' || this.keyByUid.get(uid) === key)
    ) {
      return;
    }
    this.unindex(key);
    if (typeof uid === 'string') this.keyByUid.set(uid, key);
    this.ownersByKey.set(key, owners);
    for (const owner of owners) {
      let set = this.dependents.get(owner);
      if (!set) {
        set = new Set();
        this.dependents.set(owner, set);
      }
      set.add(key);
    }
  }

  private unindex(key: string, uid?: string): void {
    for (const owner of this.ownersByKey.get(key) ?? []) {
      const set = this.dependents.get(owner);
      set?.delete(key);
      if (set?.size === 0) this.dependents.delete(owner);
    }
    this.ownersByKey.delete(key);
    if (uid && this.keyByUid.get(uid) === key) this.keyByUid.delete(uid);
  }

  protected onEvent(event: StoreEvent): void {
    if (event.type === 'DELETED') {
      const uid = event.object.metadata?.uid;
      this.unindex(event.key, uid);
      for (const dependent of this.dependents.get(uid) ?? [])
        this.queue.add(dependent, () => this.collect(dependent));
      return;
    }
    this.index(event.key, event.object);
    if (event.object.metadata?.deletionTimestamp !== undefined) this.scheduleOwner(event.key, event.object);
  }

  private scheduleOwner(key: string, object: KubeObject): void {
    const finalizers: string[] = object.metadata?.finalizers ?? [];
    if (finalizers.includes('foregroundDeletion') || finalizers.includes('orphan')) {
      this.queue.add(`owner:${key}`, () => this.finishOwner(key));
    }
  }

  /** A dependent whose owners are all gone is deleted; one that still has a live owner loses the dead refs. */
  private collect(key: string): void {
    const item = this.store.get(key);
    if (!item) return;
    const def = definitionForKey(this.registry, key);
    if (!def) return;
    const refs: KubeObject[] = item.object.metadata?.ownerReferences ?? [];
    const live = refs.filter((r) => this.keyByUid.has(r.uid));
    const meta = item.object.metadata;
    try {
      if (live.length === 0) {
        if (refs.length > 0 && meta.deletionTimestamp === undefined)
          this.objects.delete(def, meta.namespace, meta.name);
      } else if (live.length < refs.length) {
        this.objects.patch(
          def,
          meta.namespace,
          meta.name,
          'application/merge-patch+json',
          Buffer.from(JSON.stringify({ metadata: { ownerReferences: live } })),
        );
      }
    } catch (err) {
      if (!(err instanceof ApiError && err.code === 404)) this.later(key, () => this.collect(key));
    }
  }

  /** Foreground: delete dependents first, drop the finalizer when none remain. Orphan: detach them. */
  private finishOwner(key: string): void {
    const item = this.store.get(key);
    if (!item || item.object.metadata?.deletionTimestamp === undefined) return;
    const owner = item.object;
    const uid: string = owner.metadata.uid;
    const finalizers: string[] = owner.metadata.finalizers ?? [];
    const dependentKeys = [...(this.dependents.get(uid) ?? [])];
    let done: string | undefined;
    if (finalizers.includes('orphan')) {
      for (const depKey of dependentKeys) this.detach(depKey, uid);
      done = 'orphan';
    } else if (finalizers.includes('foregroundDeletion')) {
      for (const depKey of dependentKeys) {
        const dep = this.store.get(depKey);
        const def = definitionForKey(this.registry, depKey);
        if (!dep || !def || dep.object.metadata.deletionTimestamp !== undefined) continue;
        try {
          this.objects.delete(def, dep.object.metadata.namespace, dep.object.metadata.name, {
            propagationPolicy: 'Foreground',
          });
        } catch (err) {
          if (!(err instanceof ApiError && err.code === 404)) throw err;
        }
      }
      const blocking = [...(this.dependents.get(uid) ?? [])].filter((depKey) => {
        const dep = this.store.get(depKey);
        return dep && ownerRefsOf(dep.object).some((r) => r.uid === uid && r.blockOwnerDeletion);
      });
      if (blocking.length > 0) {
        this.later(`owner:${key}`, () => this.finishOwner(key));
        return;
      }
      done = 'foregroundDeletion';
    }
    if (!done) return;
    const def = definitionForKey(this.registry, key);
    if (!def) return;
    try {
      this.objects.patch(
        def,
        owner.metadata.namespace,
        owner.metadata.name,
        'application/merge-patch+json',
        Buffer.from(JSON.stringify({ metadata: { finalizers: finalizers.filter((f) => f !== done) } })),
      );
    } catch (err) {
      if (!(err instanceof ApiError && err.code === 404))
        this.later(`owner:${key}`, () => this.finishOwner(key));
    }
  }

  private detach(depKey: string, ownerUid: string): void {
    const dep = this.store.get(depKey);
    const def = definitionForKey(this.registry, depKey);
    if (!dep || !def) return;
    const refs: KubeObject[] = (dep.object.metadata.ownerReferences ?? []).filter(
      (r: KubeObject) => r.uid !== ownerUid,
    );
    try {
      this.objects.patch(
        def,
        dep.object.metadata.namespace,
        dep.object.metadata.name,
        'application/merge-patch+json',
        Buffer.from(JSON.stringify({ metadata: { ownerReferences: refs.length > 0 ? refs : null } })),
      );
    } catch (err) {
      if (!(err instanceof ApiError && err.code === 404)) throw err;
    }
  }

  private later(id: string, work: () => void): void {
    this.retryLater(id, RETRY_MS, () => this.queue.add(id, work));
  }
}
