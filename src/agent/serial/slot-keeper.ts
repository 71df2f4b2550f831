// The Serial semaphore as one agent uses it: before applying it holds a slot Lease of its pool, and
// once done it gives the slot back. Its states: idle; waiting, watching the pool's slot Leases
// (pool-watch.ts) or parked without the watch; holding or finishing (slot-holder.ts). A waiter comes
// to hold a slot through slot-waiter.ts; the decisions are slot-semaphore.ts, the Leases and their
// compare-and-swap writes slot-lease-store.ts, whether the controller hands the slots out
// controller-liveness.ts. Takes, renewals and releases run one at a time (work-queue.ts).
//
// While the controller hands slots out (this agent saw it write a holder within a lease duration), it
// tells each node it makes a holder on its Node (SERIAL_SLOT_ANNOTATION): the agent reads that one
// Lease and starts. So a Ready waiter that finds every slot held parks, and one whose gate the
// controller gave within a lease duration does not even list the slots; a holder keeps no watch, and a
// finished one leaves its slot to the controller for a grace. Without a hand-over seen (the controller
// down, agents alone), the agents watch, take turns and release by themselves; a waiter whose Node is
// not Ready keeps watching too, as the controller hands slots only to Ready nodes.

import type { SerialGate, SerialSlotHandover } from '../../api/node-protocol.ts';
import type { LightKubeClient } from '../../kube/light/light-kube-client.ts';
import type { Clock } from '../clock.ts';
import type { Logger } from '../logger.ts';
import { ControllerLiveness } from './controller-liveness.ts';
import { PoolWatch } from './pool-watch.ts';
import { SlotHolder } from './slot-holder.ts';
import { type HeldSlot, SlotLeaseStore } from './slot-lease-store.ts';
import { holderOf, slotIndex } from './slot-semaphore.ts';
import { type NodeFacts, type Parked, type SlotAnswer, SlotWaiter } from './slot-waiter.ts';
import { WorkQueue } from './work-queue.ts';

export interface SlotKeeperOptions {
  client: LightKubeClient;
  /** The holder identity: the node's name. */
  identity: string;
  clock: Clock;
  logger: Logger;
  /** The slot Leases changed (a waiting agent should look again). */
  onChange(): void;
  /** Bookmark interval of the Lease watch (tests shorten it). */
  bookmarkIntervalMs?: number;
  /** How long acquire() waits for the first list of the slot Leases (default 5 s). */
  syncTimeoutMs?: number;
  /** How long slots are left to a live controller (default CONTROLLER_GRACE_MS). */
  controllerGraceMs?: number;
}

/**
 * While the controller hands slots out: how long a free slot is left to it before the waiters take
 * turns on it, and how long a finished holder leaves its slot for it to move on before releasing it.
 * A pool reconcile takes tens to hundreds of ms; without the controller, each turn costs this much more.
 */
export const CONTROLLER_GRACE_MS = 2000;

export class SlotKeeper {
  private readonly options: SlotKeeperOptions;
  private readonly queue = new WorkQueue();
  private readonly liveness: ControllerLiveness;
  private readonly store: SlotLeaseStore;
  private readonly watch: PoolWatch;
  private readonly holder: SlotHolder;
  private readonly waiter: SlotWaiter;
  /** Waiting without the watch (never while holding). */
  private parked: Parked | undefined;
  /** The last SERIAL_SLOT_ANNOTATION acted on (lease@time): each hand-over is read once. */
  private handOverRead: string | undefined;

  constructor(options: SlotKeeperOptions) {
    this.options = options;
    const { client, identity, clock, logger } = options;
    const graceMs = options.controllerGraceMs ?? CONTROLLER_GRACE_MS;
    const liveness = new ControllerLiveness(clock);
    const store = new SlotLeaseStore({
      client,
      identity,
      clock,
      logger,
      onHandOver: (name, at) => liveness.sawHandOver(name, at),
    });
    const watch = new PoolWatch({
      client,
      identity,
      clock,
      logger,
      store,
      liveness,
      ...(options.bookmarkIntervalMs !== undefined ? { bookmarkIntervalMs: options.bookmarkIntervalMs } : {}),
      ...(options.syncTimeoutMs !== undefined ? { syncTimeoutMs: options.syncTimeoutMs } : {}),
      onHolderChange: (name) => this.holder.holderChanged(name),
      holding: () => this.holder.held !== undefined,
      onChange: () => options.onChange(),
    });
    const holder = new SlotHolder({ identity, logger, graceMs, store, liveness, watch, queue: this.queue });
    const hold = async (held: HeldSlot) => {
      this.parked = undefined;
      await holder.hold(held);
    };
    this.waiter = new SlotWaiter({ identity, clock, logger, graceMs, store, liveness, watch, hold });
    this.liveness = liveness;
    this.store = store;
    this.watch = watch;
    this.holder = holder;
  }

  /** The slot held, if any. */
  get held(): { pool: string; slot: number } | undefined {
    const held = this.holder.held;
    return held ? { pool: held.gate.pool, slot: held.slot } : undefined;
  }

  /** Whether the slot Leases are being watched (tests: an agent without a gate opens no watch). */
  get watching(): boolean {
    return this.watch.watching;
  }

  /**
   * Holds a slot of the gate's pool: ours already (adopted after a restart, or handed over), a free
   * one, or an expired one. `starting`: for a new apply, so a slot still held from the last one is
   * proven ours by a write first (the controller may have moved it on since). `node`: the hand-over the
   * Node names, and whether it is Ready.
   */
  acquire(gate: SerialGate, starting = false, node: NodeFacts = {}): Promise<SlotAnswer> {
    return this.queue.run(() => this.acquireNow(gate, starting, node));
  }

  /**
   * Gives the slot back (done, or nothing to apply) and stops watching. While the controller hands
   * slots out, the slot is left to it for CONTROLLER_GRACE_MS (it moves it to the next node: a read
   * when the grace ends tells, or the watch if one is open) and released only if it is still ours then.
   */
  release(): Promise<void> {
    return this.queue.run(async () => {
      this.parked = undefined;
      await this.holder.finish();
    });
  }

  /** Stops renewing and watching without releasing (agent stop: the next agent re-adopts the slot). */
  async close(): Promise<void> {
    this.holder.close();
    await this.queue.drained();
    await this.watch.close();
  }

  private async acquireNow(gate: SerialGate, starting: boolean, node: NodeFacts): Promise<SlotAnswer> {
    this.liveness.ask(gate);
    await this.holder.leaveUnless(gate.pool);
    this.liveness.noteGateGiven(gate);
    await this.readHandOver(gate, node.handedOver);
    const kept = await this.holder.keep(gate, starting);
    if (kept !== undefined) return { held: true, slot: kept };
    if (!this.watch.watching) {
      const answer = (await this.waiter.handed(gate)) ?? this.waiter.givenLately(gate, node);
      if (answer) {
        this.parked = undefined;
        return answer;
      }
      // Parked: nothing to read until the Node names a slot or the time to look again comes.
      const parked = this.parked;
      if (
        parked?.pool === gate.pool &&
        this.options.clock.now() < parked.until &&
        this.waiter.mayPark(gate, node, parked.holders)
      )
        return { held: false, holders: parked.holders, recheckAt: parked.until };
    }
    this.parked = undefined;
    const { answer, park } = await this.waiter.look(gate, node);
    if (park) {
      this.parked = park;
      await this.watch.close();
    }
    return answer;
  }

  /**
   * The Node names a slot the controller made this node the holder of: read that Lease (once per
   * hand-over), which the decisions then see as ours. Holding another slot already, the extra one goes
   * back. A Lease of another pool, or one that names another holder by now, is only recorded.
   */
  private async readHandOver(gate: SerialGate, handedOver: SerialSlotHandover | undefined): Promise<void> {
    if (!handedOver || slotIndex(gate.pool, handedOver.lease) === undefined) return;
    const key = `${handedOver.lease}@${handedOver.handedOverAt}`;
    if (key === this.handOverRead) return;
    const mine =
      this.holder.held?.lease.metadata?.name === handedOver.lease ||
      holderOf(this.store.get(handedOver.lease)?.lease) === this.options.identity;
    // Not yet seen as ours (a watch, when open, may be slower than the Node): read it.
    if (!mine) await this.store.refresh(handedOver.lease);
    this.handOverRead = key;
    if (this.holder.held) this.holder.releaseExtraSlots();
  }
}
