// A cache of one collection kept current by the list-watch loop (list-watch.ts): the controller reads
// from memory and learns of every change at once. A re-list after 410 Expired is reconciled against the
// cache, so what changed or vanished meanwhile is delivered as add/update/delete like any other change.
// upsert() lets the controller put the object its own write returned into the cache immediately, so
// its next decision never works from a copy older than what it just wrote.

import type { Logger } from '../util/logger.ts';
import type { KubeClient } from './kube-client.ts';
import {
  collectionSource,
  ListWatch,
  type ListWatchEvent,
  type ListWatchSource,
  type ListWatchStats,
  NO_LIST_WATCH_STATS,
} from './list-watch.ts';
import { isNewerVersion } from './resource-version.ts';
import type { KubeObject, Node, Pod } from './types.ts';

export type InformerEventType = 'add' | 'update' | 'delete';

export type InformerHandler<T> = (type: InformerEventType, object: T, old: T | undefined) => void;

export interface InformerOptions<T extends KubeObject = KubeObject> {
  /** Collection path, e.g. `/api/v1/nodes` or `/apis/nodeherd.io/v1alpha1/nodeconfigpools`. */
  path: string;
  labelSelector?: string;
  fieldSelector?: string;
  /** Server-side watch timeout range in seconds (the server ends the watch; we resume); default 300–600. */
  watchTimeoutSeconds?: [number, number];
  /** Silence after which the connection counts as dead; default 3 minutes. */
  inactivityMs?: number;
  logger?: Logger;
  /**
   * Applied to every object before it is cached or handed to the handlers: keeps only what the
   * reader uses (client-go's SetTransform), so a cache of thousands of Nodes does not hold their
   * managedFields, images and the like. The result must keep metadata (name, namespace,
   * resourceVersion).
   */
  transform?: (object: T) => T;
  /** Objects per page of a list; default LIST_PAGE_SIZE. */
  listPageSize?: number;
}

/** A transform for informers whose readers never look at managedFields (every nodeherd reader). */
export function withoutManagedFields<T extends KubeObject>(object: T): T {
  if (object.metadata.managedFields === undefined) return object;
  const { managedFields: _managedFields, ...metadata } = object.metadata;
  return { ...object, metadata };
}

/** What nodeherd's controllers read of a Node: metadata, spec, the conditions of its status and its kubelet's version. */
export function trimNode<T extends Node>(node: T): T {
  const { managedFields: _managedFields, ...metadata } = node.metadata;
  const kubeletVersion = node.status?.nodeInfo?.kubeletVersion;
  return {
    ...(node.apiVersion ? { apiVersion: node.apiVersion } : {}),
    ...(node.kind ? { kind: node.kind } : {}),
    metadata,
    ...(node.spec ? { spec: node.spec } : {}),
    ...(node.status?.conditions || kubeletVersion
      ? {
          status: {
            ...(node.status?.conditions ? { conditions: node.status.conditions } : {}),
            // The kubelet's version: a revision pinning the kubelet waits for it (issue 35).
            ...(kubeletVersion ? { nodeInfo: { kubeletVersion } } : {}),
          },
        }
      : {}),
  } as T;
}

/** Marks a mirror (static) pod, which a drain leaves alone: the one Pod annotation nodeherd reads. */
export const MIRROR_POD_ANNOTATION = 'kubernetes.io/config.mirror';

/**
 * What a drain and the pod index read of a Pod: metadata (of its annotations only the mirror pod's:
 * sidecar and CNI status annotations run to kilobytes, on every pod of the cluster), the node it is
 * on, its phase and conditions.
 */
export function trimPod<T extends Pod>(pod: T): T {
  const { managedFields: _managedFields, annotations, ...rest } = pod.metadata;
  const mirror = annotations?.[MIRROR_POD_ANNOTATION];
  const metadata =
    mirror !== undefined ? { ...rest, annotations: { [MIRROR_POD_ANNOTATION]: mirror } } : rest;
  const status = pod.status
    ? {
        ...(pod.status.phase ? { phase: pod.status.phase } : {}),
        ...(pod.status.conditions ? { conditions: pod.status.conditions } : {}),
      }
    : undefined;
  return {
    ...(pod.apiVersion ? { apiVersion: pod.apiVersion } : {}),
    ...(pod.kind ? { kind: pod.kind } : {}),
    metadata,
    ...(pod.spec?.nodeName !== undefined ? { spec: { nodeName: pod.spec.nodeName } } : {}),
    ...(status ? { status } : {}),
  } as T;
}

/**
 * Objects per page of a list (client-go's pager asks for 500): a cache of 5,000 Nodes never holds the
 * whole untransformed list, its response text and its parse at once (issue 17).
 */
export const LIST_PAGE_SIZE = 500;

/** The collection listed page by page, each page transformed as it arrives; watched as one. */
function pagedSource<T extends KubeObject>(
  client: KubeClient,
  path: string,
  pageSize: number,
  transform: ((object: T) => T) | undefined,
): ListWatchSource<T> {
  const source = collectionSource<T>(client, path);
  return {
    async list(query) {
      const items: T[] = [];
      let resourceVersion: string | undefined;
      let next: string | undefined;
      do {
        const page = await client.list<T>(path, {
          ...query,
          limit: pageSize,
          ...(next ? { continue: next } : {}),
        });
        for (const item of page.items) items.push(transform ? transform(item) : item);
        // Every page is of the same snapshot; the first names its resourceVersion.
        resourceVersion ??= page.metadata?.resourceVersion;
        next = page.metadata?.continue || undefined;
      } while (next);
      return { items, ...(resourceVersion !== undefined ? { metadata: { resourceVersion } } : {}) };
    },
    watch: source.watch,
  };
}

function keyOf(object: KubeObject): string {
  const { namespace, name } = object.metadata;
  return namespace ? `${namespace}/${name}` : name;
}

export class Informer<T extends KubeObject> {
  private readonly client: KubeClient;
  private readonly options: InformerOptions<T>;
  private readonly items = new Map<string, T>();
  private readonly handlers: InformerHandler<T>[] = [];
  private hasSynced = false;
  private syncWaiters: { resolve: () => void; reject: (e: Error) => void }[] = [];
  private loop: ListWatch<T> | undefined;
  /** Counts of loops stopped before the current one (an informer may be started again). */
  private earlier: ListWatchStats = NO_LIST_WATCH_STATS;

  constructor(client: KubeClient, options: InformerOptions<T>) {
    this.client = client;
    this.options = options;
  }

  get path(): string {
    return this.options.path;
  }

  get synced(): boolean {
    return this.hasSynced;
  }

  /** Lists, watches, failures and events so far, for tests and metrics. */
  get stats(): ListWatchStats {
    const now = this.loop?.stats() ?? NO_LIST_WATCH_STATS;
    const sum = { ...this.earlier };
    for (const key of Object.keys(sum) as (keyof ListWatchStats)[]) sum[key] += now[key];
    return sum;
  }

  on(handler: InformerHandler<T>): void {
    this.handlers.push(handler);
  }

  get(name: string, namespace?: string): T | undefined {
    return this.items.get(namespace ? `${namespace}/${name}` : name);
  }

  list(): T[] {
    return [...this.items.values()];
  }

  get size(): number {
    return this.items.size;
  }

  start(): void {
    if (this.loop && !this.loop.stopping) return;
    if (this.loop) this.earlier = this.stats;
    const { path, labelSelector, fieldSelector, logger } = this.options;
    const pageSize = this.options.listPageSize ?? LIST_PAGE_SIZE;
    this.loop = new ListWatch<T>(pagedSource<T>(this.client, path, pageSize, this.options.transform), {
      labelSelector,
      fieldSelector,
      watchTimeoutSeconds: this.options.watchTimeoutSeconds ?? [300, 600],
      inactivityTimeoutMs: this.options.inactivityMs ?? 180_000,
      backoff: { initialMs: 250, maxMs: 10_000 },
      onList: (items) => this.onList(items),
      onEvent: (event) => this.apply(event.type, event.object),
      onError: (err, during) =>
        during === 'list'
          ? logger?.warn({ path, err }, 'list failed')
          : logger?.debug({ path, err }, 'watch ended'),
    });
    this.loop.start();
  }

  /** Resolves once the first list is in the cache. */
  waitForSync(): Promise<void> {
    if (this.hasSynced) return Promise.resolve();
    return new Promise((resolve, reject) => this.syncWaiters.push({ resolve, reject }));
  }

  async stop(): Promise<void> {
    const stopping = this.loop?.stop();
    for (const waiter of this.syncWaiters.splice(0))
      waiter.reject(new Error(`informer ${this.path} stopped`));
    await stopping;
  }

  /** Puts an object returned by our own write into the cache (ignored when the cache is newer). */
  upsert(object: T): void {
    this.apply('MODIFIED', object);
  }

  /** Drops an object our own delete removed. */
  forget(object: KubeObject): void {
    const old = this.items.get(keyOf(object));
    if (!old) return;
    this.items.delete(keyOf(object));
    this.emit('delete', old, old);
  }

  private onList(items: T[]): void {
    const seen = new Set<string>();
    for (const item of items) {
      seen.add(keyOf(item));
      this.apply('MODIFIED', item, true);
    }
    for (const [key, old] of [...this.items]) {
      if (seen.has(key)) continue;
      this.items.delete(key);
      this.emit('delete', old, old);
    }
    if (!this.hasSynced) {
      this.hasSynced = true;
      for (const waiter of this.syncWaiters.splice(0)) waiter.resolve();
    }
  }

  /** `transformed`: the object has been through the transform already (a list's items have). */
  private apply(type: ListWatchEvent<T>['type'], received: T, transformed = false): void {
    const object = this.options.transform && !transformed ? this.options.transform(received) : received;
    const key = keyOf(object);
    const old = this.items.get(key);
    if (type === 'DELETED') {
      if (!old) return;
      this.items.delete(key);
      this.emit('delete', object, old);
      return;
    }
    if (old) {
      const rv = object.metadata.resourceVersion;
      if (rv === old.metadata.resourceVersion) return;
      // Keep the newer copy: our own write may be ahead of the stream (and of a list's snapshot).
      if (!isNewerVersion(rv, old.metadata.resourceVersion)) return;
    }
    this.items.set(key, object);
    this.emit(old ? 'update' : 'add', object, old);
  }

  private emit(type: InformerEventType, object: T, old: T | undefined): void {
    for (const handler of this.handlers) {
      try {
        handler(type, object, old);
      } catch (err) {
        this.options.logger?.error({ path: this.path, err }, 'informer handler failed');
      }
    }
  }
}
