// The Serial semaphore as one agent uses it: takes a slot Lease of its pool before applying, renews it
// every leaseDuration/3 while it applies, verifies, or has failed (a failed node keeps its slot, so a
// bad change stops after `slots` nodes), and releases it once done. Decisions are slot-semaphore.ts;
// this part talks to the API server. Every take is a create (409: someone else won) or an update
// checked against the resourceVersion seen (409: the Lease changed since), so a slot never has two
// holders. The slot Leases are watched only while the agent has a Serial gate, and not while the
// controller hands them out.
//
// While the controller hands slots out (this agent saw it write a holder within a lease duration), it
// tells each node it makes a holder on its Node (SERIAL_SLOT_ANNOTATION): the agent reads that one
// Lease and starts. So a waiting agent that finds every slot held stops watching the slot Leases (they
// change at every turn, and 1,000 watchers each got every change) and waits for its Node, or lists them
// again when the controller's liveness would lapse or the earliest holder would expire (parked). A
// Ready waiter whose gate the controller gave within a lease duration (the gate's handedOutAt) does not
// even list them: that controller hands the slots out, so it waits for its Node from the start. A
// holder needs no watch either: a renewal learns of a lost slot (409), and a finished holder leaves its
// slot to the controller to move on for a grace and then releases it only if a read shows it still
// its own. Without a hand-over seen (the controller down, agents alone), the agents watch, take turns
// and release by themselves as before; a waiter whose Node is not Ready keeps watching too, as the
// controller hands slots only to Ready nodes.

import {
  SERIAL_HANDED_OVER_ANNOTATION,
  SERIAL_LEASE_NAMESPACE,
  SERIAL_POOL_LABEL,
  type SerialGate,
  type SerialSlotHandover,
} from '../../api/node-protocol.ts';
import { isKubeError } from '../../kube/kube-error.ts';
import { resourcePath } from '../../kube/light/api-paths.ts';
import type { LightKubeClient } from '../../kube/light/light-kube-client.ts';
import type { Clock } from '../clock.ts';
import type { Logger } from '../logger.ts';
import { LEASES_PATH, SlotLeaseWatch } from './slot-lease-watch.ts';
import {
  decideSlot,
  holderOf,
  type ObservedSlot,
  releasedLease,
  renewedLease,
  type SlotLease,
  SlotObserver,
  slotIndex,
  takenLease,
} from './slot-semaphore.ts';

export interface SerialSlotsOptions {
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

/** What the agent's Node says beside the gate. */
export interface NodeFacts {
  /** SERIAL_SLOT_ANNOTATION: the controller made this node the holder of that slot. */
  handedOver?: SerialSlotHandover;
  /** The Node is Ready (the controller hands slots to Ready nodes only). */
  ready?: boolean;
}

export type SlotAnswer =
  | { held: true; slot: number }
  | { held: false; holders: string[]; recheckAt: number | undefined; reason?: string };

interface Holding {
  gate: SerialGate;
  slot: number;
  lease: SlotLease;
  /** Done with it: the controller may move it on; released by this agent when the grace ends. */
  releasing?: boolean;
}

/** Up to this many slots a waiting node's message names the holders (it changes at every hand-over). */
export const NAMED_HOLDERS_MAX_SLOTS = 3;

/** Attempts at a take that lost a race before looking again later. */
const MAX_TAKE_ATTEMPTS = 3;

/**
 * While the controller hands slots out: how long a free slot is left to it before the waiters take
 * turns on it, and how long a finished holder leaves its slot for it to move on before releasing it.
 * A pool reconcile takes tens to hundreds of ms; without the controller, each turn costs this much more.
 */
export const CONTROLLER_GRACE_MS = 2000;

export class SerialSlots {
  private readonly options: SerialSlotsOptions;
  private readonly observer = new SlotObserver();
  private watch: SlotLeaseWatch | undefined;
  private watchedPool: string | undefined;
  /** The slot count of the gate last asked about. */
  private watchedSlots: number | undefined;
  private synced = false;
  /** When (this agent's clock) the first list of the watched pool came in. */
  private syncedAt = 0;
  private syncWaiters: (() => void)[] = [];
  private holding: Holding | undefined;
  private renewTimer: NodeJS.Timeout | undefined;
  private releaseTimer: NodeJS.Timeout | undefined;
  /** When (this agent's clock) it last saw the controller hand a slot of `controllerPool` over. */
  private controllerSeenAt: number | undefined;
  private controllerPool: string | undefined;
  /** The gate last asked about (whether the controller counts as live is judged against it). */
  private lastGate: SerialGate | undefined;
  /**
   * Waiting without the watch while the controller hands slots out, until `until` (the controller's
   * liveness lapses, or a slot would expire or come free for this node): the answer of the last list.
   */
  private parked: { pool: string; until: number; holders: string[] } | undefined;
  /** The gate's handedOutAt last seen, and when (this agent's clock, capped at its own time) it was given. */
  private gateGiven: { stamp: string; at: number } | undefined;
  /** The last SERIAL_SLOT_ANNOTATION acted on (lease@time): each hand-over is read once. */
  private handOverRead: string | undefined;
  /** Takes, renewals and releases run one at a time. */
  private queue: Promise<unknown> = Promise.resolve();
  private closed = false;

  constructor(options: SerialSlotsOptions) {
    this.options = options;
  }

  /** The slot held, if any. */
  get held(): { pool: string; slot: number } | undefined {
    return this.holding ? { pool: this.holding.gate.pool, slot: this.holding.slot } : undefined;
  }

  /** Whether the slot Leases are being watched (tests: an agent without a gate opens no watch). */
  get watching(): boolean {
    return this.watch !== undefined;
  }

  /**
   * Holds a slot of the gate's pool: ours already (adopted after a restart, or handed over), a free
   * one, or an expired one. `starting`: for a new apply, so a slot still held from the last one is
   * proven ours by a write first (the controller may have moved it on since). `node`: the hand-over the
   * Node names, and whether it is Ready.
   */
  acquire(gate: SerialGate, starting = false, node: NodeFacts = {}): Promise<SlotAnswer> {
    return this.serialize(() => this.acquireNow(gate, starting, node));
  }

  /**
   * Gives the slot back (done, or nothing to apply) and stops watching. While the controller hands
   * slots out, the slot is left to it for CONTROLLER_GRACE_MS (it moves it to the next node: a read
   * when the grace ends tells, or the watch if one is open) and released only if it is still ours then.
   */
  release(): Promise<void> {
    return this.serialize(async () => {
      this.parked = undefined;
      const holding = this.holding;
      if (holding?.releasing) return;
      this.stopRenewing();
      if (holding && this.controllerLive(holding.gate)) {
        holding.releasing = true;
        this.releaseTimer = setTimeout(() => {
          this.releaseTimer = undefined;
          void this.serialize(() => this.releaseAfterGrace(holding)).catch(() => undefined);
        }, this.graceMs);
        this.releaseTimer.unref?.();
        return;
      }
      this.holding = undefined;
      if (holding) await this.releaseNow(holding);
      await this.stopWatch();
    });
  }

  /** Stops renewing and watching without releasing (agent stop: the next agent re-adopts the slot). */
  async close(): Promise<void> {
    this.closed = true;
    this.stopRenewing();
    this.stopReleaseTimer();
    await this.queue;
    await this.stopWatch();
  }

  private serialize<T>(work: () => Promise<T>): Promise<T> {
    const run = this.queue.then(work);
    this.queue = run.catch(() => undefined);
    return run;
  }

  private async acquireNow(gate: SerialGate, starting: boolean, node: NodeFacts): Promise<SlotAnswer> {
    const { clock, identity, logger } = this.options;
    this.lastGate = gate;
    if (this.controllerPool !== gate.pool) {
      this.controllerPool = gate.pool;
      this.controllerSeenAt = undefined;
    }
    if (this.holding && this.holding.gate.pool !== gate.pool) {
      // The node moved to another pool's rollout: the old slot is not needed any more.
      const previous = this.holding;
      this.holding = undefined;
      this.stopRenewing();
      this.stopReleaseTimer();
      await this.releaseNow(previous);
    }
    this.noteGateGiven(gate);
    await this.readHandOver(gate, node.handedOver);
    if (this.holding) {
      const holding = this.holding;
      holding.gate = gate;
      if (!starting && !holding.releasing) return { held: true, slot: holding.slot };
      // A new apply on the slot of the last one: the controller may have moved it on meanwhile (the
      // watch may not have told yet). A renewal proves it is still ours, and keeps it so.
      this.stopReleaseTimer();
      holding.releasing = false;
      const renewed = await this.write(holding.slot, renewedLease(holding.lease, clock.now()));
      if (this.holding === holding && renewed && holderOf(renewed) === identity) {
        holding.lease = renewed;
        this.scheduleRenewal();
        return { held: true, slot: holding.slot };
      }
      if (this.holding === holding) {
        this.holding = undefined;
        this.stopRenewing();
      }
    }
    if (!this.watch) {
      // Handed a slot, as the Node said: ours without the watch.
      const handed = this.ownSlot(gate.pool);
      const adopted = handed && (await this.adopt(gate, handed.slot, handed.lease));
      if (adopted) return adopted;
      // Given the gate lately by the controller that hands the slots out: nothing to read until the Node
      // names a slot or a lease duration from then (the message is the same as a parked waiter's).
      const givenUntil = this.gateGiven && this.gateGiven.at + gate.leaseDurationSeconds * 1000;
      if (
        givenUntil !== undefined &&
        clock.now() < givenUntil &&
        node.ready === true &&
        gate.slots > NAMED_HOLDERS_MAX_SLOTS
      ) {
        this.parked = undefined;
        return { held: false, holders: [], recheckAt: givenUntil };
      }
      // Parked: nothing to read until the Node names a slot or the time to look again comes.
      const parked = this.parked;
      if (
        parked?.pool === gate.pool &&
        clock.now() < parked.until &&
        this.mayPark(gate, node, parked.holders)
      )
        return { held: false, holders: parked.holders, recheckAt: parked.until };
    }
    this.parked = undefined;
    this.watchedSlots = gate.slots;
    await this.watchPool(gate.pool);
    if (!this.synced)
      return { held: false, holders: [], recheckAt: undefined, reason: 'slot Leases not read yet' };
    const graceMs = this.controllerLive(gate) ? this.graceMs : 0;
    for (let attempt = 0; attempt < MAX_TAKE_ATTEMPTS; attempt++) {
      const decision = decideSlot(
        gate,
        identity,
        this.slotsOf(gate.pool),
        clock.now(),
        this.syncedAt,
        graceMs,
      );
      if (decision.kind === 'wait') {
        if (this.mayPark(gate, node, decision.holders))
          return this.park(gate, decision.holders, decision.recheckAt);
        return { held: false, holders: decision.holders, recheckAt: decision.recheckAt };
      }
      if (decision.kind === 'held') {
        const adopted = await this.adopt(gate, decision.slot, decision.lease);
        if (adopted) return adopted;
        continue;
      }
      const body = takenLease(
        gate,
        decision.slot,
        identity,
        decision.lease,
        { [SERIAL_POOL_LABEL]: gate.pool },
        clock.now(),
      );
      body.metadata = { ...body.metadata, namespace: SERIAL_LEASE_NAMESPACE };
      const taken = decision.lease
        ? await this.write(decision.slot, body)
        : await this.create(decision.slot, body);
      if (taken && holderOf(taken) === identity) {
        await this.hold({ gate, slot: decision.slot, lease: taken });
        logger.info(
          {
            pool: gate.pool,
            slot: decision.slot,
            ...(decision.expiredHolder ? { expiredHolder: decision.expiredHolder } : {}),
          },
          'serial slot taken',
        );
        return { held: true, slot: decision.slot };
      }
    }
    const decision = decideSlot(gate, identity, this.slotsOf(gate.pool), clock.now(), this.syncedAt, graceMs);
    if (decision.kind === 'wait' && this.mayPark(gate, node, decision.holders))
      return this.park(gate, decision.holders, decision.recheckAt);
    return decision.kind === 'wait'
      ? { held: false, holders: decision.holders, recheckAt: decision.recheckAt }
      : { held: false, holders: [], recheckAt: clock.now() + 1000, reason: 'lost a race for a slot' };
  }

  /**
   * The gate says when the controller gave it (handedOutAt): that controller hands the pool's slots out,
   * so it counts as live from then, as a hand-over mark would. Taken at first sight, capped at this
   * agent's clock (a controller clock ahead does not make the gate look fresh for longer).
   */
  private noteGateGiven(gate: SerialGate): void {
    if (gate.handedOutAt === undefined) {
      this.gateGiven = undefined;
      return;
    }
    if (this.gateGiven?.stamp !== gate.handedOutAt) {
      const at = Math.min(this.options.clock.now(), Date.parse(gate.handedOutAt));
      this.gateGiven = { stamp: gate.handedOutAt, at };
    }
    const { at } = this.gateGiven;
    this.controllerSeenAt = Math.max(this.controllerSeenAt ?? at, at);
  }

  /**
   * The Node names a slot the controller made this node the holder of: read that Lease (once per
   * hand-over), which the decisions then see as ours. Holding another slot already, the extra one goes
   * back (releaseExtraSlots). A Lease of another pool, or one that names another holder by now, is
   * only recorded.
   */
  private async readHandOver(gate: SerialGate, handedOver: SerialSlotHandover | undefined): Promise<void> {
    if (!handedOver || slotIndex(gate.pool, handedOver.lease) === undefined) return;
    const key = `${handedOver.lease}@${handedOver.handedOverAt}`;
    if (key === this.handOverRead) return;
    const mine =
      this.holding?.lease.metadata?.name === handedOver.lease ||
      holderOf(this.observer.get(handedOver.lease)?.lease) === this.options.identity;
    // Not yet seen as ours (a watch, when open, may be slower than the Node): read it.
    if (!mine) await this.refresh(handedOver.lease);
    this.handOverRead = key;
    if (this.holding) this.releaseExtraSlots();
  }

  /**
   * Holds a slot Lease seen naming this node: handed over by the controller just now (the watch or the
   * Node told), whose write is fresh, without a write; else (ours from before a restart) renewed first,
   * which also proves it still is. Undefined: it is not ours any more.
   */
  private async adopt(gate: SerialGate, slot: number, lease: SlotLease): Promise<SlotAnswer | undefined> {
    const { clock, identity, logger } = this.options;
    const seen = this.observer.get(lease.metadata?.name ?? '');
    const renewEvery = ((lease.spec?.leaseDurationSeconds ?? gate.leaseDurationSeconds) * 1000) / 3;
    if (
      seen &&
      lease.metadata?.annotations?.[SERIAL_HANDED_OVER_ANNOTATION] !== undefined &&
      clock.now() - seen.observedAt < renewEvery
    ) {
      await this.hold({ gate, slot, lease });
      logger.info({ pool: gate.pool, slot }, 'serial slot handed over by the controller');
      return { held: true, slot };
    }
    const renewed = await this.write(slot, renewedLease(lease, clock.now()));
    if (!renewed || holderOf(renewed) !== identity) return undefined;
    await this.hold({ gate, slot, lease: renewed });
    logger.info({ pool: gate.pool, slot }, 'serial slot re-adopted');
    return { held: true, slot };
  }

  /** A Lease of the pool that names this node as its holder, as last seen. */
  private ownSlot(pool: string): { slot: number; lease: SlotLease } | undefined {
    for (const [name, seen] of this.observer.slots) {
      const slot = slotIndex(pool, name);
      if (slot !== undefined && holderOf(seen.lease) === this.options.identity)
        return { slot, lease: seen.lease };
    }
    return undefined;
  }

  /**
   * A waiter may do without the watch while the controller hands slots out and would hand this node
   * one (it is Ready: the controller passes NotReady nodes over, and such a node takes a slot by
   * itself), and every slot is held (`holders`, live ones only). A free or expired slot is watched: if
   * the controller does not hand it over within the grace, this node's turn on it comes. (A list again
   * later would see a free slot for the first time and start its turn over, every time.)
   */
  private mayPark(gate: SerialGate, node: NodeFacts, holders: readonly string[]): boolean {
    return node.ready === true && holders.length >= gate.slots && this.controllerLive(gate);
  }

  /**
   * Every slot the list shows is held: stop watching until the Node names a slot handed over, or the
   * earlier of the controller's liveness lapsing and the earliest holder's expiry (then list again).
   */
  private async park(
    gate: SerialGate,
    holders: string[],
    recheckAt: number | undefined,
  ): Promise<SlotAnswer> {
    const lapse = (this.controllerSeenAt ?? 0) + gate.leaseDurationSeconds * 1000;
    const until = Math.min(lapse, recheckAt ?? lapse);
    this.parked = { pool: gate.pool, until, holders };
    await this.stopWatch();
    return { held: false, holders, recheckAt: until };
  }

  /** PUT with the resourceVersion of `body`: the updated Lease, or undefined when it changed meanwhile. */
  private async write(slot: number, body: SlotLease): Promise<SlotLease | undefined> {
    const name = body.metadata?.name ?? '';
    try {
      const updated = await this.options.client.update<SlotLease & { metadata: object }>(
        this.pathOf(name),
        body,
      );
      this.observe(updated);
      return updated;
    } catch (error) {
      if (isKubeError(error, 409) || isKubeError(error, 404)) {
        await this.refresh(name);
        return undefined;
      }
      this.options.logger.warn({ slot, error: error as Error }, 'serial slot write failed');
      throw error;
    }
  }

  private async create(slot: number, body: SlotLease): Promise<SlotLease | undefined> {
    const name = body.metadata?.name ?? '';
    try {
      const created = await this.options.client.create<SlotLease & { metadata: object }>(LEASES_PATH, body);
      this.observe(created);
      return created;
    } catch (error) {
      if (isKubeError(error, 409)) {
        await this.refresh(name);
        return undefined;
      }
      this.options.logger.warn({ slot, error: error as Error }, 'serial slot create failed');
      throw error;
    }
  }

  /** Reads one Lease again after losing a race (the watch may not have delivered it yet). */
  private async refresh(name: string): Promise<void> {
    try {
      this.observe(await this.options.client.get<SlotLease & { metadata: object }>(this.pathOf(name)));
    } catch (error) {
      if (isKubeError(error, 404)) this.observer.forget(name);
      else throw error;
    }
  }

  /**
   * Holds the slot. While the controller hands slots out the watch goes: a renewal learns of a lost
   * slot, and the release reads the slot first (agents alone keep it, as before).
   */
  private async hold(holding: Holding): Promise<void> {
    this.holding = holding;
    this.parked = undefined;
    this.scheduleRenewal();
    this.releaseExtraSlots();
    if (this.controllerLive(holding.gate)) await this.stopWatch();
  }

  /**
   * The controller hands a released slot to a waiting node; if this agent took another slot at the same
   * time, it holds two: the one it is not using goes back at once (compare-and-swap, like any release).
   */
  private releaseExtraSlots(): void {
    const holding = this.holding;
    if (!holding) return;
    const mine = holding.lease.metadata?.name;
    for (const [name, slot] of this.slotsOf(holding.gate.pool)) {
      if (name === mine || holderOf(slot.lease) !== this.options.identity) continue;
      const index = slotIndex(holding.gate.pool, name);
      if (index === undefined) continue;
      void this.serialize(async () => {
        // As seen then, if the watch has gone meanwhile (the release is a compare-and-swap anyway).
        const current = this.observer.get(name)?.lease ?? slot.lease;
        if (this.holding?.lease.metadata?.name === name || holderOf(current) !== this.options.identity)
          return;
        await this.releaseNow({ gate: holding.gate, slot: index, lease: current! });
      }).catch(() => undefined);
    }
  }

  private scheduleRenewal(): void {
    this.stopRenewing();
    const holding = this.holding;
    if (!holding || this.closed) return;
    const every = (holding.gate.leaseDurationSeconds * 1000) / 3;
    this.renewTimer = setTimeout(() => {
      this.renewTimer = undefined;
      void this.serialize(() => this.renewNow()).finally(() => this.scheduleRenewal());
    }, every);
    this.renewTimer.unref?.();
  }

  private stopRenewing(): void {
    clearTimeout(this.renewTimer);
    this.renewTimer = undefined;
  }

  private get graceMs(): number {
    return this.options.controllerGraceMs ?? CONTROLLER_GRACE_MS;
  }

  private stopReleaseTimer(): void {
    clearTimeout(this.releaseTimer);
    this.releaseTimer = undefined;
  }

  /**
   * The grace of a finished holder ended: release the slot unless the controller moved it on. Without
   * the watch a read tells (usually: moved on, nothing to write); a failed read leaves it to the
   * release's compare-and-swap.
   */
  private async releaseAfterGrace(holding: Holding): Promise<void> {
    if (this.holding !== holding || !holding.releasing) return;
    if (!this.watch) {
      const name = holding.lease.metadata?.name ?? '';
      try {
        await this.refresh(name);
        const current = this.observer.get(name)?.lease;
        if (this.holding !== holding) return;
        if (holderOf(current) !== this.options.identity) {
          this.slotMovedOn();
          return;
        }
        holding.lease = current!;
      } catch (error) {
        this.options.logger.warn({ slot: holding.slot, error: error as Error }, 'serial slot read failed');
      }
    }
    this.holding = undefined;
    await this.releaseNow(holding);
    await this.stopWatch();
  }

  /** Whether this agent saw the controller hand a slot of the gate's pool over within a lease duration. */
  private controllerLive(gate: SerialGate): boolean {
    return (
      this.controllerPool === gate.pool &&
      this.controllerSeenAt !== undefined &&
      this.options.clock.now() - this.controllerSeenAt < gate.leaseDurationSeconds * 1000
    );
  }

  /** Our slot as last seen has another holder (or is gone): moved on by the controller, or lost. */
  private slotMovedOn(): void {
    const holding = this.holding;
    if (!holding) return;
    const name = holding.lease.metadata?.name ?? '';
    const current = this.observer.get(name)?.lease;
    if (holderOf(current) === this.options.identity) return;
    this.holding = undefined;
    this.stopRenewing();
    const { logger } = this.options;
    const moved = current?.metadata?.annotations?.[SERIAL_HANDED_OVER_ANNOTATION] !== undefined;
    if (holding.releasing || moved)
      logger.info(
        { pool: holding.gate.pool, slot: holding.slot, to: holderOf(current) },
        'serial slot moved on by the controller',
      );
    else
      logger.error(
        { pool: holding.gate.pool, slot: holding.slot },
        'serial slot lost: another node holds it now',
      );
    if (holding.releasing) {
      // Done with the slot: nothing more to watch (unless a new apply began meanwhile).
      this.stopReleaseTimer();
      void this.serialize(async () => {
        if (!this.holding) await this.stopWatch();
      }).catch(() => undefined);
    }
  }

  private async renewNow(): Promise<void> {
    const holding = this.holding;
    if (!holding) return;
    const { clock, identity, logger } = this.options;
    const name = holding.lease.metadata?.name ?? '';
    try {
      for (let attempt = 0; attempt < 2; attempt++) {
        const renewed = await this.write(holding.slot, renewedLease(holding.lease, clock.now()));
        if (renewed) {
          holding.lease = renewed;
          return;
        }
        // Changed meanwhile: still ours (someone touched a label, say)? Then renew that version.
        const current = this.observer.get(name)?.lease;
        if (!current || holderOf(current) !== identity) break;
        holding.lease = current;
      }
      // Another holder: moved on by the controller (the holder was finished) or lost; told once.
      if (this.holding === holding) this.slotMovedOn();
    } catch (error) {
      // The API server is away: try again at the next tick; the slot lasts a whole duration.
      logger.warn({ slot: holding.slot, error: error as Error }, 'serial slot renewal failed');
    }
  }

  private async releaseNow(holding: Holding): Promise<void> {
    const { identity, logger } = this.options;
    const name = holding.lease.metadata?.name ?? '';
    try {
      let lease: SlotLease | undefined = holding.lease;
      for (let attempt = 0; attempt < 3 && lease && holderOf(lease) === identity; attempt++) {
        if (await this.write(holding.slot, releasedLease(lease))) {
          logger.info({ pool: holding.gate.pool, slot: holding.slot }, 'serial slot released');
          return;
        }
        lease = this.observer.get(name)?.lease;
      }
    } catch (error) {
      // It expires by itself after a lease duration.
      logger.warn(
        {
          slot: holding.slot,
          error: error as Error,
        },
        'serial slot release failed; it expires instead',
      );
    }
  }

  private async watchPool(pool: string): Promise<void> {
    if (this.watchedPool !== pool) {
      await this.stopWatch();
      // What was read without the watch (a hand-over's Lease) is read again by the list.
      this.observer.clear();
      this.watchedPool = pool;
      this.watch = new SlotLeaseWatch({
        client: this.options.client,
        pool,
        logger: this.options.logger,
        ...(this.options.bookmarkIntervalMs !== undefined
          ? { bookmarkIntervalMs: this.options.bookmarkIntervalMs }
          : {}),
        // Only a change of holder (or a Lease gone) is news to a waiter: a renewal merely moves the
        // expiry, which the waiter looks at again when its recheckAt comes (1,000 waiters woken by
        // every renewal of 100 holders would swamp the agents and the API server).
        onLease: (lease, deleted) => {
          const name = lease.metadata?.name ?? '';
          const before = holderOf(this.observer.get(name)?.lease);
          const wasLive = this.lastGate !== undefined && this.controllerLive(this.lastGate);
          let news = deleted;
          if (deleted) this.observer.forget(name);
          else news = this.observe(lease as SlotLease);
          if (news && this.holding?.lease.metadata?.name === name) this.slotMovedOn();
          if (news && this.holding) this.releaseExtraSlots();
          // The first hand-over seen is news to a waiter too: it may stop watching now.
          const nowLive = !wasLive && this.lastGate !== undefined && this.controllerLive(this.lastGate);
          if (
            this.synced &&
            ((news && this.wakes(before, deleted ? undefined : holderOf(lease as SlotLease))) ||
              (nowLive && !this.holding))
          )
            this.options.onChange();
        },
        onSynced: () => {
          this.synced = true;
          this.syncedAt = this.options.clock.now();
          for (const waiter of this.syncWaiters.splice(0)) waiter();
          this.options.onChange();
        },
      }).start();
    }
    if (this.synced) return;
    await new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, this.options.syncTimeoutMs ?? 5000);
      this.syncWaiters.push(() => {
        clearTimeout(timer);
        resolve();
      });
    });
  }

  private async stopWatch(): Promise<void> {
    const watch = this.watch;
    this.watch = undefined;
    this.watchedPool = undefined;
    this.synced = false;
    this.observer.clear();
    for (const waiter of this.syncWaiters.splice(0)) waiter();
    await watch?.stop();
  }

  /**
   * Whether a change of holder (from `before` to `after`) is news to this agent's reconcile: a slot
   * freed (or gone), or this node in it or out of it. A slot passing from one node to another only
   * makes its expiry later, which the waiter's recheck finds; waking every waiter at every hand-over
   * cost 1,000 agents a reconcile each per turn. Where the Waiting message names the holders (few
   * slots), every change is news.
   */
  private wakes(before: string | undefined, after: string | undefined): boolean {
    const { identity } = this.options;
    return (
      after === undefined ||
      after === identity ||
      before === identity ||
      (this.watchedSlots ?? 0) <= NAMED_HOLDERS_MAX_SLOTS
    );
  }

  /** Records a Lease as seen now (and a hand-over by the controller); whether its holder changed. */
  private observe(lease: SlotLease): boolean {
    const seen = this.observer.observe(lease, this.options.clock.now());
    if (seen.handedAt !== undefined && lease.metadata?.name && this.controllerPool !== undefined)
      if (slotIndex(this.controllerPool, lease.metadata.name) !== undefined)
        this.controllerSeenAt = Math.max(this.controllerSeenAt ?? seen.handedAt, seen.handedAt);
    return seen.holderChanged;
  }

  private slotsOf(pool: string): Map<string, ObservedSlot> {
    return new Map([...this.observer.slots].filter(([name]) => slotIndex(pool, name) !== undefined));
  }

  private pathOf(name: string): string {
    return resourcePath({
      apiVersion: 'coordination.k8s.io/v1',
      resource: 'leases',
      namespace: SERIAL_LEASE_NAMESPACE,
      name,
    });
  }
}
