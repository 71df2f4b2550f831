// Namespace lifecycle: a deleted namespace refuses new content, has everything in it deleted, and is
// finalized once it is empty. What a namespace's own writes do (Active on create, Terminating on delete,
// kept by spec.finalizers until /finalize) is its kind's: kinds/core/namespace.ts.

import { ApiError } from '../errors.ts';
import type { ObjectService } from '../objects/object-service.ts';
import type { ResourceDefinition } from '../registry/resource-definition.ts';
import type { ResourceRegistry } from '../registry/resource-registry.ts';
import type { Store, StoreEvent } from '../storage/types.ts';
import { StoreController } from './store-controller.ts';

const NAMESPACE_PREFIX = '/core/namespaces/';
const RETRY_MS = 500;
/** The namespaces kube creates; the profile may add its own (ApiServerProfile.namespaces). */
export const DEFAULT_NAMESPACES = ['default', 'kube-system', 'kube-public', 'kube-node-lease'];

export class NamespaceController extends StoreController {
  private readonly registry: ResourceRegistry;
  private readonly namespaces: ResourceDefinition;
  private readonly initial: readonly string[];

  constructor(
    store: Store,
    registry: ResourceRegistry,
    objects: ObjectService,
    extraNamespaces: readonly string[] = [],
  ) {
    super(store, objects);
    this.initial = [...DEFAULT_NAMESPACES, ...extraNamespaces];
    this.registry = registry;
    this.namespaces = registry.get('', 'v1', 'namespaces')!;
  }

  start(): void {
    for (const name of this.initial) {
      if (!this.objects.tryGet(this.namespaces, undefined, name)) {
        this.objects.create(this.namespaces, undefined, { metadata: { name } });
      }
    }
    for (const item of this.store.list(NAMESPACE_PREFIX).items) {
      if (item.object.metadata.deletionTimestamp !== undefined) this.schedule(item.object.metadata.name);
    }
    this.followStore();
  }

  /** Admission: objects may be created only in namespaces that exist and are not terminating. */
  admit(namespace: string): void {
    const ns = this.objects.tryGet(this.namespaces, undefined, namespace);
    if (!ns) {
      throw new ApiError(404, 'NotFound', `namespaces "${namespace}" not found`, {
        name: namespace,
        kind: 'namespaces',
      });
    }
    if (ns.metadata.deletionTimestamp !== undefined) {
      throw new ApiError(
        403,
        'Forbidden',
        `unable to create new content in namespace ${namespace} because it is being terminated`,
        { name: namespace, kind: 'namespaces' },
      );
    }
  }

  protected onEvent(event: StoreEvent): void {
    if (!event.key.startsWith(NAMESPACE_PREFIX) || event.type === 'DELETED') return;
    if (event.object.metadata.deletionTimestamp !== undefined) this.schedule(event.object.metadata.name);
  }

  private schedule(name: string): void {
    this.queue.add(name, () => this.finalize(name));
  }

  private finalize(name: string): void {
    const ns = this.objects.tryGet(this.namespaces, undefined, name);
    if (!ns || ns.metadata.deletionTimestamp === undefined) return;
    let remaining = 0;
    for (const def of this.namespacedResources()) {
      const prefix = `/${def.group || 'core'}/${def.resource}/${name}/`;
      for (const item of this.store.list(prefix).items) {
        remaining++;
        if (item.object.metadata.deletionTimestamp !== undefined) continue;
        try {
          this.objects.delete(def, name, item.object.metadata.name);
        } catch (err) {
          if (!(err instanceof ApiError && err.code === 404)) throw err;
        }
      }
    }
    const stillThere = this.namespacedResources().some(
      (def) => this.store.count(`/${def.group || 'core'}/${def.resource}/${name}/`) > 0,
    );
    if (remaining > 0 && stillThere) {
      this.retryLater(name, RETRY_MS, () => this.schedule(name));
      return;
    }
    // Empty: drop the lifecycle finalizer; the object service removes the namespace when none are left.
    const current = this.store.get(`${NAMESPACE_PREFIX}/${name}`);
    if (!current) return;
    const next = structuredClone(current.object);
    next.spec = { ...(next.spec ?? {}), finalizers: [] };
    if ((next.metadata.finalizers ?? []).length === 0) {
      this.store.delete(current.key, current.revision);
    } else {
      this.store.update(current.key, current.revision, next);
    }
  }

  /** One definition per namespaced resource (versions share storage). */
  private namespacedResources(): ResourceDefinition[] {
    const seen = new Set<string>();
    const defs: ResourceDefinition[] = [];
    for (const def of this.registry.definitions()) {
      const id = `${def.group}/${def.resource}`;
      if (!def.namespaced || seen.has(id)) continue;
      seen.add(id);
      defs.push(def);
    }
    return defs;
  }
}
