// Events expire, as kube-apiserver's do (--event-ttl, one hour by default): there etcd deletes an
// Event's key when the lease its last write attached runs out; here this controller does, an Event
// living `ttlMs` from its last write as this server saw it. core/v1 and events.k8s.io/v1 Events are one
// store (the second a view over the first), so both expire together. The deletion is the store's, as
// etcd's lease expiry is: no finalizers, no owners, a DELETED event for watchers.
//
// The Events are kept in a Map in the order they expire: every write moves its key to the end with the
// newest expiry, so each sweep stops at the first Event still alive. Events written before this server
// started expire `ttlMs` after the newest of their own timestamps (never later than `ttlMs` from now).

import type { Store, StoreEvent } from '../storage/types.ts';

export const DEFAULT_EVENT_TTL_MS = 60 * 60_000;
const EVENT_PREFIX = '/core/events/';
/** Deletions per sweep step; more go on in the next turn, so a sweep never holds the server long. */
const DELETES_PER_STEP = 2000;

export interface EventTtlOptions {
  ttlMs?: number;
  now?: () => number;
  /** A deletion that failed (the store refused it); the sweep stops and the next one tries again. */
  onError?: (error: unknown, key: string) => void;
}

function timeOf(value: unknown): number {
  const ms = typeof value === 'string' ? Date.parse(value) : Number.NaN;
  return Number.isNaN(ms) ? 0 : ms;
}

/** The newest moment an Event written before this server started says it was recorded. */
function recordedAt(event: Record<string, any>): number {
  return Math.max(
    timeOf(event.lastTimestamp),
    timeOf(event.eventTime),
    timeOf(event.series?.lastObservedTime),
    timeOf(event.metadata?.creationTimestamp),
  );
}

export class EventTtlController {
  private readonly store: Store;
  private readonly ttlMs: number;
  private readonly now: () => number;
  private readonly onError: (error: unknown, key: string) => void;
  /** Event key → when it expires, in expiry order. */
  private readonly expiries = new Map<string, number>();
  private timer: NodeJS.Timeout | undefined;
  private unsubscribe: (() => void) | undefined;
  private sweeping = false;

  constructor(store: Store, options: EventTtlOptions = {}) {
    const ttlMs = options.ttlMs ?? DEFAULT_EVENT_TTL_MS;
    if (!Number.isFinite(ttlMs) || ttlMs <= 0)
      throw new TypeError(`eventTtlMs must be positive, got ${ttlMs}`);
    this.store = store;
    this.ttlMs = ttlMs;
    this.now = options.now ?? Date.now;
    this.onError = options.onError ?? (() => {});
  }

  start(): void {
    const now = this.now();
    const known = this.store
      .list(EVENT_PREFIX)
      .items.map((item) => ({ key: item.key, at: Math.min(now, recordedAt(item.object)) + this.ttlMs }))
      .sort((a, b) => a.at - b.at);
    for (const { key, at } of known) this.expiries.set(key, at);
    this.unsubscribe = this.store.subscribe((event) => this.onEvent(event));
    // A tenth of the TTL (so an Event outlives it by at most that), between 100 ms and a minute.
    const every = Math.min(60_000, Math.max(100, Math.floor(this.ttlMs / 10)));
    this.timer = setInterval(() => this.sweep(), every);
    this.timer.unref();
  }

  private onEvent(event: StoreEvent): void {
    if (!event.key.startsWith(EVENT_PREFIX)) return;
    this.expiries.delete(event.key);
    if (event.type !== 'DELETED') this.expiries.set(event.key, this.now() + this.ttlMs);
  }

  /** Deletes the Events whose time is up; returns how many it deleted in this step. */
  sweep(): number {
    if (this.sweeping) return 0;
    const now = this.now();
    let deleted = 0;
    for (const [key, at] of this.expiries) {
      if (at > now) break;
      if (deleted === DELETES_PER_STEP) {
        // The rest in the next turn, leaving requests their share of the event loop.
        this.sweeping = true;
        setImmediate(() => {
          this.sweeping = false;
          if (this.unsubscribe !== undefined) this.sweep();
        });
        break;
      }
      try {
        // The DELETED event this publishes removes the key from expiries.
        if (this.store.get(key) !== undefined) this.store.delete(key);
        else this.expiries.delete(key);
        deleted++;
      } catch (error) {
        // The store refuses (it failed): this Event and those after it are tried at the next sweep.
        this.onError(error, key);
        break;
      }
    }
    return deleted;
  }

  stop(): void {
    this.unsubscribe?.();
    this.unsubscribe = undefined;
    if (this.timer) clearInterval(this.timer);
  }
}
