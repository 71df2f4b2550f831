// Serves CustomResourceDefinitions: keeps the registry in step with the store, and on deletion removes
// every custom resource before the CRD goes away. A CRD's own rules (defaults, validation, accepted
// names and conditions on every write) are its kind's: kinds/apiextensions/customresourcedefinition.ts.

import { ApiError } from '../errors.ts';
import { CRD_CLEANUP_FINALIZER } from '../kinds/apiextensions/customresourcedefinition.ts';
import type { ObjectService } from '../objects/object-service.ts';
import type { ResourceRegistry } from '../registry/resource-registry.ts';
import type { KubeObject, Store, StoreEvent } from '../storage/types.ts';
import { definitionForKey } from './keys.ts';
import { StoreController } from './store-controller.ts';

const CRD_PREFIX = '/apiextensions.k8s.io/customresourcedefinitions/';
const RETRY_MS = 500;

export class CrdController extends StoreController {
  private readonly registry: ResourceRegistry;

  constructor(store: Store, registry: ResourceRegistry, objects: ObjectService) {
    super(store, objects);
    this.registry = registry;
  }

  /** Loads every stored CRD into the registry, then follows changes. */
  start(): void {
    for (const item of this.store.list(CRD_PREFIX).items) this.observe(item.object);
    this.followStore();
  }

  protected onEvent(event: StoreEvent): void {
    if (!event.key.startsWith(CRD_PREFIX)) return;
    if (event.type === 'DELETED') {
      this.registry.removeCustomResourceDefinition(event.object.metadata.name);
      return;
    }
    this.observe(event.object);
  }

  private observe(crd: KubeObject): void {
    // Registry updates are not store writes, so they are safe inside the store callback.
    this.registry.applyCustomResourceDefinition(crd);
    if (
      crd.metadata.deletionTimestamp !== undefined &&
      (crd.metadata.finalizers ?? []).includes(CRD_CLEANUP_FINALIZER)
    ) {
      this.queue.add(crd.metadata.name, () => this.cleanup(crd.metadata.name));
    }
  }

  /** Deletes every instance of a terminating CRD; removes the finalizer once none is left. */
  private cleanup(name: string): void {
    const crdDef = this.registry.get('apiextensions.k8s.io', 'v1', 'customresourcedefinitions');
    if (!crdDef) return;
    const crd = this.objects.tryGet(crdDef, undefined, name);
    if (!crd || crd.metadata.deletionTimestamp === undefined) return;
    const group: string = crd.spec?.group ?? '';
    const plural: string = crd.status?.acceptedNames?.plural ?? crd.spec?.names?.plural ?? '';
    const prefix = `/${group}/${plural}/`;
    let remaining = 0;
    for (const item of this.store.list(prefix).items) {
      remaining++;
      const def = definitionForKey(this.registry, item.key);
      if (!def || item.object.metadata.deletionTimestamp !== undefined) continue;
      try {
        this.objects.delete(def, item.object.metadata.namespace, item.object.metadata.name);
      } catch (err) {
        if (!(err instanceof ApiError && err.code === 404)) throw err;
      }
    }
    if (remaining > 0 && this.store.count(prefix) > 0) {
      // Instances with finalizers of their own: look again shortly. A retry per CRD: their instances'
      // deletions are not events this controller follows, so a CRD without one would wait for ever.
      this.retryLater(`cleanup/${name}`, RETRY_MS, () => this.queue.add(name, () => this.cleanup(name)));
      return;
    }
    const finalizers = (crd.metadata.finalizers ?? []).filter((f: string) => f !== CRD_CLEANUP_FINALIZER);
    try {
      this.objects.patch(
        crdDef,
        undefined,
        name,
        'application/merge-patch+json',
        Buffer.from(JSON.stringify({ metadata: { finalizers } })),
      );
    } catch (err) {
      if (!(err instanceof ApiError && err.code === 404)) throw err;
    }
  }
}
