// The slot Leases of the one pool this agent watches, if any: opened for a waiter's pool (another
// pool's watch goes first), awaited until its first list is in (or syncTimeoutMs), and closed when the
// agent parks, holds a slot while the controller hands them out, or is done; closing forgets what was
// seen. Every event goes into the store; only news wakes the agent's reconcile (onChange): a slot freed
// or gone, this node written in or out, or the first hand-over seen (a waiter may stop watching then).
// A renewal only moves an expiry, which a waiter looks at again at its recheckAt (1,000 waiters woken
// by every renewal of 100 holders would swamp the agents and the API server); a slot passing from one
// node to another only makes its expiry later (waking every waiter at every hand-over cost 1,000 agents
// a reconcile each per turn). Where the Waiting message names the holders (few slots), every change is
// news.

import type { LightKubeClient } from '../../kube/light/light-kube-client.ts';
import type { KubeObject } from '../../kube/light/types.ts';
import type { Clock } from '../clock.ts';
import type { Logger } from '../logger.ts';
import type { ControllerLiveness } from './controller-liveness.ts';
import type { SlotLeaseStore } from './slot-lease-store.ts';
import { SlotLeaseWatch } from './slot-lease-watch.ts';
import { holderOf, NAMED_HOLDERS_MAX_SLOTS, type SlotLease } from './slot-semaphore.ts';

export interface PoolWatchOptions {
  client: LightKubeClient;
  identity: string;
  clock: Clock;
  logger: Logger;
  store: SlotLeaseStore;
  liveness: ControllerLiveness;
  /** Bookmark interval of the Lease watch (tests shorten it). */
  bookmarkIntervalMs?: number;
  /** How long open() waits for the first list (default 5 s). */
  syncTimeoutMs?: number;
  /** A Lease changed holder or went: the holder side looks whether it is its own. */
  onHolderChange(name: string): void;
  /** Whether the agent holds a slot (the first hand-over seen is no news to a holder). */
  holding(): boolean;
  /** News for a waiting agent: look again. */
  onChange(): void;
}

export class PoolWatch {
  private readonly options: PoolWatchOptions;
  private watch: SlotLeaseWatch | undefined;
  private pool: string | undefined;
  /** The slot count of the gate last watched for. */
  private slots: number | undefined;
  /** When (this agent's clock) the first list of the watched pool came in; undefined: not yet. */
  private listedAt: number | undefined;
  private syncWaiters: (() => void)[] = [];

  constructor(options: PoolWatchOptions) {
    this.options = options;
  }

  get watching(): boolean {
    return this.watch !== undefined;
  }

  /** When the first list of the watched pool came in (this agent's clock), if it did. */
  get syncedAt(): number | undefined {
    return this.listedAt;
  }

  /** Watches the pool's slot Leases (for a gate of `slots`), and waits for the first list. */
  async open(pool: string, slots: number): Promise<void> {
    this.slots = slots;
    if (this.pool !== pool) {
      await this.close();
      // What was read without the watch (a hand-over's Lease) is read again by the list.
      this.options.store.clear();
      this.pool = pool;
      const { client, logger, bookmarkIntervalMs } = this.options;
      this.watch = new SlotLeaseWatch({
        client,
        pool,
        logger,
        ...(bookmarkIntervalMs !== undefined ? { bookmarkIntervalMs } : {}),
        onLease: (lease, deleted) => this.heard(lease, deleted),
        onSynced: () => this.synced(),
      }).start();
    }
    if (this.listedAt !== undefined) return;
    await new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, this.options.syncTimeoutMs ?? 5000);
      this.syncWaiters.push(() => {
        clearTimeout(timer);
        resolve();
      });
    });
  }

  /** Stops watching (if it did) and forgets the slot Leases seen. */
  async close(): Promise<void> {
    const watch = this.watch;
    this.watch = undefined;
    this.pool = undefined;
    this.listedAt = undefined;
    this.options.store.clear();
    for (const waiter of this.syncWaiters.splice(0)) waiter();
    await watch?.stop();
  }

  private heard(lease: KubeObject, deleted: boolean): void {
    const { store, liveness } = this.options;
    const name = lease.metadata?.name ?? '';
    const before = holderOf(store.get(name)?.lease);
    const wasLive = liveness.isLive();
    let news = deleted;
    if (deleted) store.forget(name);
    else news = store.observe(lease as SlotLease);
    if (news) this.options.onHolderChange(name);
    // The first hand-over seen is news to a waiter too: it may stop watching now.
    const nowLive = !wasLive && liveness.isLive();
    const after = deleted ? undefined : holderOf(lease as SlotLease);
    if (
      this.listedAt !== undefined &&
      ((news && this.wakes(before, after)) || (nowLive && !this.options.holding()))
    )
      this.options.onChange();
  }

  private synced(): void {
    this.listedAt = this.options.clock.now();
    for (const waiter of this.syncWaiters.splice(0)) waiter();
    this.options.onChange();
  }

  /**
   * Whether a change of holder (from `before` to `after`) is news to this agent's reconcile: a slot
   * freed (or gone), or this node in it or out of it; any change where few slots are named.
   */
  private wakes(before: string | undefined, after: string | undefined): boolean {
    const { identity } = this.options;
    return (
      after === undefined ||
      after === identity ||
      before === identity ||
      (this.slots ?? 0) <= NAMED_HOLDERS_MAX_SLOTS
    );
  }
}
