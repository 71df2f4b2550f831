// Fans committed store events out to open watches. Watches are indexed by resource and, when they
// select one object by name (every node agent does), by name too, so an event costs work only for the
// watches that can want it, however many thousands are open.

import type { KubeObject, Store, StoreEvent } from '../storage/types.ts';

export type WatchEventType = 'ADDED' | 'MODIFIED' | 'DELETED';

export interface WatchDelivery {
  type: WatchEventType;
  object: KubeObject;
  revision: number;
}

export interface Watcher {
  /** Key prefix of the list this watch follows, e.g. `/core/pods/default/`. */
  prefix: string;
  /** Exact metadata.name the watch selects, when it does: used to index it. */
  name?: string;
  filter?: (object: KubeObject) => boolean;
  deliver(event: WatchDelivery): void;
}

/** `/group/resource/` of a key `/group/resource/namespace/name`. */
function resourceOf(key: string): string {
  const third = key.indexOf('/', key.indexOf('/', 1) + 1);
  return key.slice(0, third + 1);
}

function nameOf(key: string): string {
  return key.slice(key.lastIndexOf('/') + 1);
}

/** Translates a store event into what one filtered watch sees (kube's cacher rules). */
export function eventForWatcher(watcher: Watcher, event: StoreEvent): WatchDelivery | undefined {
  if (!event.key.startsWith(watcher.prefix)) return undefined;
  if (watcher.name !== undefined && nameOf(event.key) !== watcher.name) return undefined;
  const filter = watcher.filter;
  if (!filter) return { type: event.type, object: event.object, revision: event.revision };
  if (event.type === 'ADDED') {
    return filter(event.object)
      ? { type: 'ADDED', object: event.object, revision: event.revision }
      : undefined;
  }
  if (event.type === 'DELETED') {
    return filter(event.object)
      ? { type: 'DELETED', object: event.object, revision: event.revision }
      : undefined;
  }
  const now = filter(event.object);
  const before = event.prevObject !== undefined && filter(event.prevObject);
  if (now && before) return { type: 'MODIFIED', object: event.object, revision: event.revision };
  if (now) return { type: 'ADDED', object: event.object, revision: event.revision };
  if (before && event.prevObject) {
    // Leaving the selection looks like a deletion of the previous state, stamped with this revision
    // (a new top level and metadata; the rest is the store's frozen object, shared).
    const gone = {
      ...event.prevObject,
      metadata: { ...event.prevObject.metadata, resourceVersion: String(event.revision) },
    };
    return { type: 'DELETED', object: gone, revision: event.revision };
  }
  return undefined;
}

export class WatchHub {
  private readonly byResource = new Map<string, Set<Watcher>>();
  private readonly byName = new Map<string, Set<Watcher>>();
  private readonly unsubscribe: () => void;
  private count = 0;

  constructor(store: Store) {
    this.unsubscribe = store.subscribe((event) => this.dispatch(event));
  }

  get size(): number {
    return this.count;
  }

  register(watcher: Watcher): () => void {
    const resource = resourceOf(watcher.prefix);
    const index = watcher.name !== undefined ? this.byName : this.byResource;
    const indexKey = watcher.name !== undefined ? resource + watcher.name : resource;
    let set = index.get(indexKey);
    if (!set) {
      set = new Set();
      index.set(indexKey, set);
    }
    set.add(watcher);
    this.count++;
    let active = true;
    return () => {
      if (!active) return;
      active = false;
      this.count--;
      set.delete(watcher);
      if (set.size === 0) index.delete(indexKey);
    };
  }

  private dispatch(event: StoreEvent): void {
    const resource = resourceOf(event.key);
    const general = this.byResource.get(resource);
    const named = this.byName.get(resource + nameOf(event.key));
    for (const set of [general, named]) {
      if (!set) continue;
      for (const watcher of set) {
        const delivery = eventForWatcher(watcher, event);
        if (delivery) watcher.deliver(delivery);
      }
    }
  }

  close(): void {
    this.unsubscribe();
    this.byResource.clear();
    this.byName.clear();
    this.count = 0;
  }
}
