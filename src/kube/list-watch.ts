// The one list-watch loop of every cache (the controller's informers, the agent's single-object
// watches, a waiting agent's slot Leases, a simulated fleet's Nodes): list once, then one long-lived
// watch with bookmarks, resumed from the last resourceVersion it saw (bookmarks included) when it ends
// or breaks, so a server restart costs one watch request, not a re-list. 410 Expired re-lists at once
// the first time; a re-list whose watch expires again straight away backs off, so a server that keeps
// answering 410 is not hammered. A watch that ends healthy (it delivered events, or lasted
// minHealthyWatchMs) is resumed at once; failures back off exponentially with jitter; silence beyond
// the inactivity timeout drops the connection as dead. What to do with a list and with events is the
// caller's (a cache reconciles a list against what it holds; a single-object watch keeps one).

import { monotonicMs } from '../util/monotonic.ts';
import type { ApiClient } from './api-client.ts';
import { Backoff, type BackoffOptions } from './backoff.ts';
import type { WatchEnd, WatchHandle, WatchOptions, WatchQuery } from './kube-watch.ts';
import { WakeableSleep } from './wakeable-sleep.ts';

/** The object shape the loop needs: a name and a resourceVersion. */
export interface Versioned {
  metadata?: { name?: string; resourceVersion?: string };
}

/** A collection the loop lists and watches (an adapter over a client: see the callers). */
/** An ADDED, MODIFIED or DELETED event (the watch handles BOOKMARK and ERROR itself). */
export interface ListWatchEvent<T> {
  type: 'ADDED' | 'MODIFIED' | 'DELETED';
  object: T;
}

export interface ListWatchSource<T extends Versioned> {
  list(query: { labelSelector?: string; fieldSelector?: string }): Promise<{
    items: T[];
    metadata?: { resourceVersion?: string };
  }>;
  watch(
    query: WatchQuery,
    onEvent: (event: ListWatchEvent<T>) => void,
    options: WatchOptions,
  ): WatchHandle | Promise<WatchHandle>;
}

/** A collection of the API server, listed and watched through a client. */
export function collectionSource<T extends Versioned>(client: ApiClient, path: string): ListWatchSource<T> {
  return {
    list: (query) => client.list<T>(path, query),
    watch: (query, onEvent, options) => client.watch<T>(path, query, { onEvent }, options),
  };
}

export interface ListWatchOptions<T extends Versioned> {
  labelSelector?: string;
  fieldSelector?: string;
  /** A list completed: `items` is the whole collection now (the caller drops what it no longer has). */
  onList(items: T[]): void;
  /** An ADDED, MODIFIED or DELETED event; a throw ends the watch as failed. */
  onEvent(event: ListWatchEvent<T>): void;
  /** Failed lists and watches (and dead connections); the loop keeps going. */
  onError?(error: Error, during: 'list' | 'watch'): void;
  /** Silence after which the connection counts as dead (0 or unset: never). */
  inactivityTimeoutMs?: number;
  /** Each watch asks the server to end it after a random time in this range (unset: the server's). */
  watchTimeoutSeconds?: [number, number];
  backoff?: BackoffOptions;
  /** A watch that ends without events sooner than this counts as a failure and backs off (default 1 s). */
  minHealthyWatchMs?: number;
  random?: () => number;
  /** The retry timer alone does not keep the process alive. */
  unrefTimers?: boolean;
}

export interface ListWatchStats {
  lists: number;
  /** Re-lists forced by 410 Expired. */
  relists: number;
  watches: number;
  /** Watches resumed from a resourceVersion without a list. */
  resumes: number;
  /** Watches dropped by the inactivity detector. */
  inactive: number;
  failures: number;
  /** Watch events received, bookmarks included. */
  events: number;
}

/** Counts of a loop that has done nothing yet. */
export const NO_LIST_WATCH_STATS: Readonly<ListWatchStats> = Object.freeze({
  lists: 0,
  relists: 0,
  watches: 0,
  resumes: 0,
  inactive: 0,
  failures: 0,
  events: 0,
});

export class ListWatch<T extends Versioned> {
  private readonly source: ListWatchSource<T>;
  private readonly options: ListWatchOptions<T>;
  private readonly backoff: Backoff;
  private readonly random: () => number;
  private readonly sleeper: WakeableSleep;
  private readonly counts: ListWatchStats = { ...NO_LIST_WATCH_STATS };
  private lastResourceVersion: string | undefined;
  private stopped = false;
  private running: Promise<void> | undefined;
  private activeWatch: WatchHandle | undefined;
  private lastEndExpired = false;

  constructor(source: ListWatchSource<T>, options: ListWatchOptions<T>) {
    this.source = source;
    this.options = options;
    this.random = options.random ?? Math.random;
    this.backoff = new Backoff({ random: this.random, ...options.backoff });
    this.sleeper = new WakeableSleep({ unref: options.unrefTimers ?? false });
    const range = options.watchTimeoutSeconds;
    if (range && !(range[0] > 0 && range[1] >= range[0]))
      throw new RangeError('watchTimeoutSeconds must be a range of positive numbers');
  }

  /** The resourceVersion a resumed watch would start from. */
  get resourceVersion(): string | undefined {
    return this.lastResourceVersion;
  }

  get stopping(): boolean {
    return this.stopped;
  }

  stats(): ListWatchStats {
    return { ...this.counts };
  }

  start(): void {
    if (this.running || this.stopped) throw new Error('a list-watch starts once');
    this.running = this.run();
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
        // onList may have stopped the loop.
        if (this.stopped) break;
      } else {
        this.counts.resumes++;
      }
      const started = monotonicMs();
      const end = await this.watchOnce();
      if (this.stopped) break;
      const healthy = end.events > 0 || monotonicMs() - started >= (this.options.minHealthyWatchMs ?? 1000);
      if (healthy) {
        this.backoff.reset();
        this.lastEndExpired = false;
      }
      if (end.reason === 'closed' && healthy) continue;
      if (end.reason === 'expired') {
        needList = true;
        this.counts.relists++;
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
          new Error(`watch silent for ${this.options.inactivityTimeoutMs} ms, connection dropped`),
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
      const { labelSelector, fieldSelector } = this.options;
      const list = await this.source.list({ labelSelector, fieldSelector });
      if (this.stopped) return false;
      this.lastResourceVersion = list.metadata?.resourceVersion;
      this.options.onList(list.items);
      return true;
    } catch (err) {
      this.counts.failures++;
      this.report(err as Error, 'list');
      return false;
    }
  }

  private async watchOnce(): Promise<WatchEnd> {
    const range = this.options.watchTimeoutSeconds;
    this.counts.watches++;
    const query: WatchQuery = {
      labelSelector: this.options.labelSelector,
      fieldSelector: this.options.fieldSelector,
      resourceVersion: this.lastResourceVersion,
      allowWatchBookmarks: true,
      ...(range ? { timeoutSeconds: Math.round(range[0] + this.random() * (range[1] - range[0])) } : {}),
    };
    let watch: WatchHandle;
    try {
      watch = await this.source.watch(query, (event) => this.options.onEvent(event), {
        inactivityTimeoutMs: this.options.inactivityTimeoutMs,
      });
    } catch (err) {
      // The watch could not even be opened (credentials could not be read, say).
      return { reason: 'failed', resourceVersion: this.lastResourceVersion, events: 0, error: err as Error };
    }
    this.activeWatch = watch;
    if (this.stopped) watch.abort();
    const end = await watch.done;
    this.activeWatch = undefined;
    this.counts.events += end.events;
    if (end.resourceVersion !== undefined) this.lastResourceVersion = end.resourceVersion;
    return end;
  }

  private report(error: Error, during: 'list' | 'watch'): void {
    try {
      this.options.onError?.(error, during);
    } catch {
      // A failing error handler must not stop the loop.
    }
  }

  private sleep(ms: number): Promise<void> {
    return this.stopped ? Promise.resolve() : this.sleeper.sleep(ms);
  }
}
