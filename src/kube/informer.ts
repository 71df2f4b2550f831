// A cache of one collection kept current by list + watch: the controller reads from memory and learns
// of every change at once. Watches ask for BOOKMARKs, so an idle watch costs the API server nothing
// and resumes from the last resourceVersion after a disconnect; only 410 Expired forces a re-list,
// whose differences are delivered as add/update/delete like any other change. Failures back off.
// upsert() lets the controller put the object its own write returned into the cache immediately, so
// its next decision never works from a copy older than what it just wrote.

import type { Logger } from 'pino';
import type { KubeClient } from './kube-client.ts';
import { Backoff } from './light/backoff.ts';
import { isNewerVersion } from './resource-version.ts';
import type { KubeObject, WatchEventType } from './types.ts';
import type { WatchEnd } from './watch-stream.ts';

export type InformerEventType = 'add' | 'update' | 'delete';

export type InformerHandler<T> = (type: InformerEventType, object: T, old: T | undefined) => void;

export interface InformerOptions {
  /** Collection path, e.g. `/api/v1/nodes` or `/apis/nodeherd.io/v1alpha1/nodeconfigpools`. */
  path: string;
  labelSelector?: string;
  fieldSelector?: string;
  /** Server-side watch timeout range in seconds (the server ends the watch; we resume). */
  watchTimeoutSeconds?: [number, number];
  inactivityMs?: number;
  logger?: Logger;
}

function keyOf(object: KubeObject): string {
  const { namespace, name } = object.metadata;
  return namespace ? `${namespace}/${name}` : name;
}

export class Informer<T extends KubeObject> {
  private readonly client: KubeClient;
  private readonly options: InformerOptions;
  private readonly items = new Map<string, T>();
  private readonly handlers: InformerHandler<T>[] = [];
  private readonly backoff = new Backoff({ initialMs: 250, maxMs: 10_000 });
  private resourceVersion = '';
  private stopped = true;
  private hasSynced = false;
  private syncWaiters: { resolve: () => void; reject: (e: Error) => void }[] = [];
  private running: Promise<void> | undefined;
  private abortWatch: (() => void) | undefined;
  private wakeSleep: (() => void) | undefined;
  /** Lists and watches made, for tests and metrics. */
  readonly stats = { lists: 0, watches: 0, failures: 0, events: 0 };

  constructor(client: KubeClient, options: InformerOptions) {
    this.client = client;
    this.options = options;
  }

  get path(): string {
    return this.options.path;
  }

  get synced(): boolean {
    return this.hasSynced;
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
    if (!this.stopped) return;
    this.stopped = false;
    this.running = this.run();
  }

  /** Resolves once the first list is in the cache. */
  waitForSync(): Promise<void> {
    if (this.hasSynced) return Promise.resolve();
    return new Promise((resolve, reject) => this.syncWaiters.push({ resolve, reject }));
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.abortWatch?.();
    this.wakeSleep?.();
    for (const waiter of this.syncWaiters.splice(0))
      waiter.reject(new Error(`informer ${this.path} stopped`));
    await this.running;
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

  private async run(): Promise<void> {
    while (!this.stopped) {
      try {
        if (!this.resourceVersion) await this.relist();
        if (this.stopped) break;
        const end = await this.watchOnce();
        if (end.reason === 'expired') this.resourceVersion = '';
        if (
          end.reason === 'failed' ||
          end.reason === 'inactive' ||
          (end.reason === 'closed' && end.events === 0)
        ) {
          this.stats.failures++;
          this.options.logger?.debug({ path: this.path, reason: end.reason, err: end.error }, 'watch ended');
          await this.sleep(this.backoff.next());
        } else {
          this.backoff.reset();
        }
      } catch (err) {
        this.stats.failures++;
        this.options.logger?.warn({ path: this.path, err }, 'list failed');
        await this.sleep(this.backoff.next());
      }
    }
  }

  private async relist(): Promise<void> {
    this.stats.lists++;
    const list = await this.client.list<T>(this.path, {
      labelSelector: this.options.labelSelector,
      fieldSelector: this.options.fieldSelector,
    });
    const seen = new Set<string>();
    for (const item of list.items) {
      seen.add(keyOf(item));
      this.apply('MODIFIED', item);
    }
    for (const [key, old] of [...this.items]) {
      if (seen.has(key)) continue;
      this.items.delete(key);
      this.emit('delete', old, old);
    }
    this.resourceVersion = list.metadata.resourceVersion ?? '';
    if (!this.hasSynced) {
      this.hasSynced = true;
      for (const waiter of this.syncWaiters.splice(0)) waiter.resolve();
    }
  }

  private async watchOnce(): Promise<WatchEnd> {
    const [lo, hi] = this.options.watchTimeoutSeconds ?? [300, 600];
    this.stats.watches++;
    const handle = await this.client.watch<T>(
      this.path,
      {
        resourceVersion: this.resourceVersion,
        allowWatchBookmarks: true,
        timeoutSeconds: Math.round(lo + Math.random() * (hi - lo)),
        labelSelector: this.options.labelSelector,
        fieldSelector: this.options.fieldSelector,
      },
      {
        inactivityMs: this.options.inactivityMs,
        onEvent: (type, object) => this.onWatchEvent(type, object),
      },
    );
    this.abortWatch = handle.abort;
    if (this.stopped) handle.abort();
    const end = await handle.ended;
    this.abortWatch = undefined;
    return end;
  }

  private onWatchEvent(type: WatchEventType, object: T): void {
    this.stats.events++;
    const rv = object.metadata?.resourceVersion;
    if (type !== 'BOOKMARK') this.apply(type, object);
    if (rv) this.resourceVersion = rv;
  }

  private apply(type: WatchEventType, object: T): void {
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

  private sleep(ms: number): Promise<void> {
    if (this.stopped) return Promise.resolve();
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        this.wakeSleep = undefined;
        resolve();
      }, ms);
      this.wakeSleep = () => {
        clearTimeout(timer);
        this.wakeSleep = undefined;
        resolve();
      };
    });
  }
}
