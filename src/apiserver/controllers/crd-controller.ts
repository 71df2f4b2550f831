// Serves CustomResourceDefinitions: accepts their names, marks them Established, keeps the registry
// in step with the store, and on deletion removes every custom resource before the CRD goes away.

import { kubeTime } from '../../util/kube-time.ts';
import { ApiError } from '../errors.ts';
import type { ObjectService } from '../objects/object-service.ts';
import type { KindStrategy } from '../objects/strategy.ts';
import type { ResourceRegistry } from '../registry/resource-registry.ts';
import type { KubeObject, Store, StoreEvent } from '../storage/types.ts';
import { DeferredQueue, definitionForKey } from './keys.ts';

export const CRD_CLEANUP_FINALIZER = 'customresourcecleanup.apiextensions.k8s.io';
const CRD_PREFIX = '/apiextensions.k8s.io/customresourcedefinitions/';
const RETRY_MS = 500;

function condition(type: string, status: string, reason: string, message: string, now: string): KubeObject {
  return { type, status, reason, message, lastTransitionTime: now };
}

/** Keeps conditions' lastTransitionTime when their status did not change. */
function mergeConditions(previous: KubeObject[] | undefined, next: KubeObject[]): KubeObject[] {
  return next.map((c) => {
    const before = previous?.find((p) => p.type === c.type);
    return before && before.status === c.status ? { ...c, lastTransitionTime: before.lastTransitionTime } : c;
  });
}

/**
 * Sets status on every write, synchronously, so a CRD is usable as soon as its create returns
 * (kubectl apply of a CRD followed by its resources works without waiting).
 */
export function crdStrategy(registry: ResourceRegistry): KindStrategy {
  return {
    prepare(obj, old, ctx) {
      if (ctx.operation === 'create') {
        const finalizers: string[] = obj.metadata.finalizers ?? [];
        if (!finalizers.includes(CRD_CLEANUP_FINALIZER))
          obj.metadata.finalizers = [...finalizers, CRD_CLEANUP_FINALIZER];
      }
      if (ctx.subresource === 'status' && old) return;
      const now = kubeTime();
      const clash = registry.namesConflict(obj);
      const names = obj.spec?.names ?? {};
      const accepted = {
        plural: names.plural,
        singular: names.singular || String(names.kind ?? '').toLowerCase(),
        kind: names.kind,
        listKind: names.listKind || `${names.kind}List`,
        ...(names.shortNames ? { shortNames: names.shortNames } : {}),
        ...(names.categories ? { categories: names.categories } : {}),
      };
      const terminating = obj.metadata.deletionTimestamp !== undefined;
      const conditions = clash
        ? [
            condition('NamesAccepted', 'False', 'MultipleNamesNotAllowed', clash, now),
            condition('Established', 'False', 'NotAccepted', 'not all names are accepted', now),
          ]
        : [
            condition('NamesAccepted', 'True', 'NoConflicts', 'no conflicts found', now),
            condition(
              'Established',
              'True',
              'InitialNamesAccepted',
              'the initial names have been accepted',
              now,
            ),
          ];
      if (terminating) {
        conditions.push(
          condition(
            'Terminating',
            'True',
            'InstanceDeletionInProgress',
            'CustomResource deletion is in progress',
            now,
          ),
        );
      }
      obj.status = {
        ...(obj.status ?? {}),
        conditions: mergeConditions(old?.status?.conditions, conditions),
        acceptedNames: clash ? (old?.status?.acceptedNames ?? {}) : accepted,
        storedVersions: [
          ...new Set([
            ...(old?.status?.storedVersions ?? []),
            ...((obj.spec?.versions ?? []) as KubeObject[]).filter((v) => v.storage).map((v) => v.name),
          ]),
        ],
      };
    },
  };
}

export class CrdController {
  private readonly store: Store;
  private readonly registry: ResourceRegistry;
  private readonly objects: ObjectService;
  private readonly queue = new DeferredQueue();
  private unsubscribe: (() => void) | undefined;
  private retry: NodeJS.Timeout | undefined;

  constructor(store: Store, registry: ResourceRegistry, objects: ObjectService) {
    this.store = store;
    this.registry = registry;
    this.objects = objects;
  }

  /** Loads every stored CRD into the registry, then follows changes. */
  start(): void {
    for (const item of this.store.list(CRD_PREFIX).items) this.observe(item.object);
    this.unsubscribe = this.store.subscribe((event) => this.onEvent(event));
  }

  private onEvent(event: StoreEvent): void {
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
      // Instances with finalizers of their own: look again shortly.
      if (!this.retry) {
        this.retry = setTimeout(() => {
          this.retry = undefined;
          this.queue.add(name, () => this.cleanup(name));
        }, RETRY_MS);
        this.retry.unref();
      }
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

  stop(): void {
    this.unsubscribe?.();
    this.queue.close();
    if (this.retry) clearTimeout(this.retry);
  }
}
