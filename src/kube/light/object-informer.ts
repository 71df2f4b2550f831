// Follows one named object (the agent's own Node, its revision) with a single long-lived watch and
// no polling: list once (by fieldSelector metadata.name, which also gives a resourceVersion when the
// object does not exist), then watch from there with bookmarks and a long randomised timeout. When
// the stream ends or breaks it resumes from the last resourceVersion seen (bookmarks included), so a
// server restart costs one watch request, not a re-list; only 410 Expired forces a re-list. Failures
// back off exponentially with jitter; silence longer than a few bookmark intervals drops the
// connection as dead. onChange runs only when the object's resourceVersion changes.

import { Backoff, type BackoffOptions } from './backoff.ts';
import type { WatchEnd, WatchHandle } from './kube-watch.ts';
import type { LightKubeClient } from './light-kube-client.ts';
import type { KubeObject, WatchEvent } from './types.ts';
import { WakeableSleep } from './wakeable-sleep.ts';

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

export interface ObjectInformerStats {
  lists: number;
  /** Re-lists forced by 410 Expired. */
  relists: number;
  watches: number;
  /** Watches resumed from a resourceVersion without a list. */
  resumes: number;
  /** Watches dropped by the inactivity detector. */
  inactive: number;
  failures: number;
  changes: number;
}

export class ObjectInformer<T extends KubeObject = KubeObject> {
  private readonly client: LightKubeClient;
  private readonly options: ObjectInformerOptions<T>;
  private readonly backoff: Backoff;
  private readonly random: () => number;
  private readonly inactivityTimeoutMs: number;
  private readonly counts: ObjectInformerStats = {
    lists: 0,
    relists: 0,
    watches: 0,
    resumes: 0,
    inactive: 0,
    failures: 0,
    changes: 0,
  };
  private current: T | undefined;
  private lastResourceVersion: string | undefined;
  private hasSynced = false;
  private syncWaiters: (() => void)[] = [];
  private stopped = false;
  private running: Promise<void> | undefined;
  private activeWatch: WatchHandle | undefined;
  private readonly sleeper = new WakeableSleep();
  private lastEndExpired = false;

  constructor(client: LightKubeClient, options: ObjectInformerOptions<T>) {
    this.client = client;
    this.options = options;
    this.random = options.random ?? Math.random;
    this.backoff = new Backoff({ random: this.random, ...options.backoff });
    this.inactivityTimeoutMs =
      options.inactivityTimeoutMs ?? (options.missedBookmarks ?? 3) * (options.bookmarkIntervalMs ?? 60_000);
    const [low, high] = options.watchTimeoutSeconds ?? [30 * 60, 60 * 60];
    if (!(low > 0 && high >= low))
      throw new RangeError('watchTimeoutSeconds must be a range of positive numbers');
  }

  /** The object as last seen (undefined before the first list or when it does not exist). */
  get object(): T | undefined {
    return this.current;
  }

  /** The resourceVersion a resumed watch would start from. */
  get resourceVersion(): string | undefined {
    return this.lastResourceVersion;
  }

  get synced(): boolean {
    return this.hasSynced;
  }

  stats(): ObjectInformerStats {
    return { ...this.counts };
  }

  start(): this {
    if (this.running || this.stopped) throw new Error('an informer starts once');
    this.running = this.run();
    return this;
  }

  /** Resolves with the object once the first list has completed. */
  whenSynced(): Promise<T | undefined> {
    if (this.hasSynced) return Promise.resolve(this.current);
    return new Promise((resolve) => this.syncWaiters.push(() => resolve(this.current)));
  }

  /** Ends the watch and any pending retry; resolves when the loop has exited. */
  async stop(): Promise<void> {
    this.stopped = true;
    this.activeWatch?.abort();
    this.sleeper.wake();
    await this.running;
  }

  private async run(): Promise<void> {
    let needList = true;
    while (!this.stopped) {
      if (needList) {
        if (!(await this.list())) {
          await this.sleep(this.backoff.next());
          continue;
        }
        needList = false;
        // onChange or a sync waiter may have stopped the informer while the list completed.
        if (this.stopped) break;
      } else {
        this.counts.resumes++;
      }
      const started = performance.now();
      const end = await this.watchOnce();
      if (this.stopped) break;
      const healthy =
        end.events > 0 || performance.now() - started >= (this.options.minHealthyWatchMs ?? 1000);
      if (healthy) {
        this.backoff.reset();
        this.lastEndExpired = false;
      }
      if (end.reason === 'closed' && healthy) continue;
      if (end.reason === 'expired') {
        needList = true;
        this.counts.relists++;
        // The first 410 re-lists at once; a re-list that expires again straight away backs off.
        if (!this.lastEndExpired) {
          this.lastEndExpired = true;
          continue;
        }
      } else {
        this.lastEndExpired = false;
      }
      this.counts.failures++;
      if (end.reason === 'inactive') {
        this.counts.inactive++;
        this.report(
          new Error(`watch silent for ${this.inactivityTimeoutMs} ms, connection dropped`),
          'watch',
        );
      }
      if (end.error) this.report(end.error, 'watch');
      await this.sleep(this.backoff.next());
    }
  }

  private async list(): Promise<boolean> {
    this.counts.lists++;
    try {
      const list = await this.client.list<T>(this.options.collectionPath, {
        fieldSelector: `metadata.name=${this.options.name}`,
      });
      if (this.stopped) return false;
      this.lastResourceVersion = list.metadata?.resourceVersion;
      this.lastEndExpired = false;
      this.update(list.items.find((item) => item.metadata?.name === this.options.name));
      if (!this.hasSynced) {
        this.hasSynced = true;
        for (const waiter of this.syncWaiters.splice(0)) waiter();
      }
      return true;
    } catch (err) {
      this.counts.failures++;
      this.report(err as Error, 'list');
      return false;
    }
  }

  private async watchOnce(): Promise<WatchEnd> {
    const [low, high] = this.options.watchTimeoutSeconds ?? [30 * 60, 60 * 60];
    this.counts.watches++;
    const watch = this.client.watch<T>(
      this.options.collectionPath,
      {
        fieldSelector: `metadata.name=${this.options.name}`,
        resourceVersion: this.lastResourceVersion,
        allowWatchBookmarks: true,
        timeoutSeconds: Math.round(low + this.random() * (high - low)),
      },
      { onEvent: (event) => this.onEvent(event) },
      { inactivityTimeoutMs: this.inactivityTimeoutMs },
    );
    this.activeWatch = watch;
    const end = await watch.done;
    this.activeWatch = undefined;
    if (end.resourceVersion !== undefined) this.lastResourceVersion = end.resourceVersion;
    return end;
  }

  private onEvent(event: WatchEvent<T>): void {
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
    this.counts.changes++;
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

  private sleep(ms: number): Promise<void> {
    return this.stopped ? Promise.resolve() : this.sleeper.sleep(ms);
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
