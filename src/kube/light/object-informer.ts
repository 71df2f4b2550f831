// Follows one named object (the agent's own Node, its revision) with the list-watch loop
// (../list-watch.ts) narrowed by fieldSelector metadata.name, which also gives a resourceVersion when
// the object does not exist: one long-lived watch with bookmarks and a long randomised timeout, no
// polling. onChange runs only when the object's resourceVersion changes.

import type { BackoffOptions } from '../backoff.ts';
import { collectionSource, ListWatch, type ListWatchEvent, type ListWatchStats } from '../list-watch.ts';
import type { LightKubeClient } from './light-kube-client.ts';
import type { KubeObject } from './types.ts';

export interface ObjectInformerOptions<T extends KubeObject> {
  /** Collection the object lives in, e.g. `/api/v1/nodes`. */
  collectionPath: string;
  name: string;
  /**
   * The object changed (undefined: it does not exist). Called once after the first list, then only
   * when the resourceVersion changes. A returned promise is not awaited; its rejection is reported.
   */
  onChange(object: T | undefined): void | Promise<void>;
  /** Failed lists and watches, and throwing onChange calls; the informer keeps going. */
  onError?(error: Error, during: 'list' | 'watch' | 'onChange'): void;
  /** Each watch asks the server to end it after a random time in this range (default 30–60 min). */
  watchTimeoutSeconds?: [number, number];
  /** How often the server sends BOOKMARKs (default 60 s, kube's cadence; the embedded server: 15 s). */
  bookmarkIntervalMs?: number;
  /** Bookmarks that may be missed before the connection counts as dead (default 3). */
  missedBookmarks?: number;
  /** Overrides missedBookmarks × bookmarkIntervalMs. */
  inactivityTimeoutMs?: number;
  backoff?: BackoffOptions;
  /** A watch that ends without events sooner than this counts as a failure and backs off (default 1 s). */
  minHealthyWatchMs?: number;
  random?: () => number;
}

export interface ObjectInformerStats extends ListWatchStats {
  changes: number;
}

export class ObjectInformer<T extends KubeObject = KubeObject> {
  private readonly options: ObjectInformerOptions<T>;
  private readonly loop: ListWatch<T>;
  private current: T | undefined;
  private hasSynced = false;
  private syncWaiters: (() => void)[] = [];
  private started = false;
  private changes = 0;

  constructor(client: LightKubeClient, options: ObjectInformerOptions<T>) {
    this.options = options;
    const { collectionPath, name } = options;
    this.loop = new ListWatch<T>(collectionSource<T>(client, collectionPath), {
      fieldSelector: `metadata.name=${name}`,
      watchTimeoutSeconds: options.watchTimeoutSeconds ?? [30 * 60, 60 * 60],
      inactivityTimeoutMs:
        options.inactivityTimeoutMs ??
        (options.missedBookmarks ?? 3) * (options.bookmarkIntervalMs ?? 60_000),
      ...(options.backoff ? { backoff: options.backoff } : {}),
      ...(options.minHealthyWatchMs !== undefined ? { minHealthyWatchMs: options.minHealthyWatchMs } : {}),
      ...(options.random ? { random: options.random } : {}),
      onList: (items) => this.onList(items),
      onEvent: (event) => this.onEvent(event),
      onError: (error, during) => this.report(error, during),
    });
  }

  /** The object as last seen (undefined before the first list or when it does not exist). */
  get object(): T | undefined {
    return this.current;
  }

  /** The resourceVersion a resumed watch would start from. */
  get resourceVersion(): string | undefined {
    return this.loop.resourceVersion;
  }

  get synced(): boolean {
    return this.hasSynced;
  }

  stats(): ObjectInformerStats {
    return { ...this.loop.stats(), changes: this.changes };
  }

  start(): this {
    if (this.started) throw new Error('an informer starts once');
    this.started = true;
    this.loop.start();
    return this;
  }

  /** Resolves with the object once the first list has completed. */
  whenSynced(): Promise<T | undefined> {
    if (this.hasSynced) return Promise.resolve(this.current);
    return new Promise((resolve) => this.syncWaiters.push(() => resolve(this.current)));
  }

  /** Ends the watch and any pending retry; resolves when the loop has exited. */
  async stop(): Promise<void> {
    this.started = true;
    await this.loop.stop();
  }

  private onList(items: T[]): void {
    this.update(items.find((item) => item.metadata?.name === this.options.name));
    if (!this.hasSynced) {
      this.hasSynced = true;
      for (const waiter of this.syncWaiters.splice(0)) waiter();
    }
  }

  private onEvent(event: ListWatchEvent<T>): void {
    if (event.object.metadata?.name !== this.options.name) return;
    this.update(event.type === 'DELETED' ? undefined : event.object);
  }

  private update(next: T | undefined): void {
    const previous = this.current;
    if (this.hasSynced) {
      if (previous === undefined && next === undefined) return;
      if (previous && next && previous.metadata?.resourceVersion === next.metadata?.resourceVersion) return;
    }
    this.current = next;
    this.changes++;
    try {
      const result = this.options.onChange(next);
      if (result && typeof result.then === 'function')
        result.catch((err: Error) => this.report(err, 'onChange'));
    } catch (err) {
      this.report(err as Error, 'onChange');
    }
  }

  private report(error: Error, during: 'list' | 'watch' | 'onChange'): void {
    try {
      this.options.onError?.(error, during);
    } catch {
      // A failing error handler must not stop the informer.
    }
  }
}

/** Starts an informer on one object; stop() it when done. */
export function watchObject<T extends KubeObject = KubeObject>(
  client: LightKubeClient,
  collectionPath: string,
  name: string,
  onChange: (object: T | undefined) => void | Promise<void>,
  options: Omit<ObjectInformerOptions<T>, 'collectionPath' | 'name' | 'onChange'> = {},
): ObjectInformer<T> {
  return new ObjectInformer<T>(client, { ...options, collectionPath, name, onChange }).start();
}
