// The Serial semaphore as one agent uses it, as a small state machine: idle, parked, holding or
// finishing. It takes a slot Lease of its pool before applying, renews it every leaseDuration/3 while
// it applies, verifies, or has failed (a failed node keeps its slot, so a bad change stops after
// `slots` nodes), and gives it back once done. Its parts: the Leases and their compare-and-swap writes
// (slot-lease-store.ts), the decisions (slot-semaphore.ts), the watch of the pool's Leases while it
// waits (pool-watch.ts), the controller's liveness (controller-liveness.ts) and the renewal and grace
// timers (hold-timers.ts). Takes, renewals and releases run one at a time.
//
// While the controller hands slots out (this agent saw it write a holder within a lease duration), it
// tells each node it makes a holder on its Node (SERIAL_SLOT_ANNOTATION): the agent reads that one
// Lease and starts. So a Ready waiter that finds every slot held stops watching the slot Leases and
// waits for its Node (parked), or lists them again when the controller's liveness would lapse or the
// earliest holder would expire. A Ready waiter whose gate the controller gave within a lease duration
// (the gate's handedOutAt) does not even list them. A holder needs no watch either: a renewal learns
// of a lost slot (409), and a finished holder leaves its slot to the controller to move on for a grace
// (finishing) and then releases it only if a read shows it still its own. Without a hand-over seen
// (the controller down, agents alone), the agents watch, take turns and release by themselves; a
// waiter whose Node is not Ready keeps watching too, as the controller hands slots only to Ready nodes.

import {
  SERIAL_HANDED_OVER_ANNOTATION,
  type SerialGate,
  type SerialSlotHandover,
} from '../../api/node-protocol.ts';
import type { LightKubeClient } from '../../kube/light/light-kube-client.ts';
import type { Clock } from '../clock.ts';
import type { Logger } from '../logger.ts';
import { ControllerLiveness } from './controller-liveness.ts';
import { HoldTimers } from './hold-timers.ts';
import { PoolWatch } from './pool-watch.ts';
import { type HeldSlot, SlotLeaseStore } from './slot-lease-store.ts';
import {
  decideSlot,
  holderOf,
  NAMED_HOLDERS_MAX_SLOTS,
  type SlotDecision,
  type SlotLease,
  slotIndex,
} from './slot-semaphore.ts';

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

type SlotState =
  | { kind: 'idle' }
  /** Every slot held while the controller hands them out: no watch, the last list's answer until `until`. */
  | { kind: 'parked'; pool: string; until: number; holders: string[] }
  | { kind: 'holding'; held: HeldSlot }
  /** Done with the slot while the controller is live: left to it until the grace ends. */
  | { kind: 'finishing'; held: HeldSlot };

const IDLE: SlotState = { kind: 'idle' };

/** Attempts at a take that lost a race before looking again later. */
const MAX_TAKE_ATTEMPTS = 3;

/**
 * While the controller hands slots out: how long a free slot is left to it before the waiters take
 * turns on it, and how long a finished holder leaves its slot for it to move on before releasing it.
 * A pool reconcile takes tens to hundreds of ms; without the controller, each turn costs this much more.
 */
export const CONTROLLER_GRACE_MS = 2000;

export class SlotKeeper {
  private readonly options: SlotKeeperOptions;
  private readonly liveness: ControllerLiveness;
  private readonly store: SlotLeaseStore;
  private readonly watch: PoolWatch;
  private readonly timers = new HoldTimers();
  private state: SlotState = IDLE;
  /** The last SERIAL_SLOT_ANNOTATION acted on (lease@time): each hand-over is read once. */
  private handOverRead: string | undefined;
  /** Takes, renewals and releases run one at a time. */
  private queue: Promise<unknown> = Promise.resolve();

  constructor(options: SlotKeeperOptions) {
    this.options = options;
    const { client, identity, clock, logger } = options;
    this.liveness = new ControllerLiveness(clock);
    this.store = new SlotLeaseStore({
      client,
      identity,
      clock,
      logger,
      onHandOver: (name, at) => this.liveness.sawHandOver(name, at),
    });
    this.watch = new PoolWatch({
      client,
      identity,
      clock,
      logger,
      store: this.store,
      liveness: this.liveness,
      ...(options.bookmarkIntervalMs !== undefined ? { bookmarkIntervalMs: options.bookmarkIntervalMs } : {}),
      ...(options.syncTimeoutMs !== undefined ? { syncTimeoutMs: options.syncTimeoutMs } : {}),
      onHolderChange: (name) => this.holderChanged(name),
      holding: () => this.heldSlot !== undefined,
      onChange: () => options.onChange(),
    });
  }

  /** The slot held, if any. */
  get held(): { pool: string; slot: number } | undefined {
    const held = this.heldSlot;
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
    return this.serialize(() => this.acquireNow(gate, starting, node));
  }

  /**
   * Gives the slot back (done, or nothing to apply) and stops watching. While the controller hands
   * slots out, the slot is left to it for CONTROLLER_GRACE_MS (it moves it to the next node: a read
   * when the grace ends tells, or the watch if one is open) and released only if it is still ours then.
   */
  release(): Promise<void> {
    return this.serialize(async () => {
      this.unpark();
      const held = this.heldSlot;
      if (this.state.kind === 'finishing') return;
      this.timers.stopRenewing();
      if (held && this.liveness.isLive(held.gate)) {
        this.state = { kind: 'finishing', held };
        this.timers.releaseIn(this.graceMs, () => {
          void this.serialize(() => this.releaseAfterGrace(held)).catch(() => undefined);
        });
        return;
      }
      this.state = IDLE;
      if (held) await this.store.release(held);
      await this.watch.close();
    });
  }

  /** Stops renewing and watching without releasing (agent stop: the next agent re-adopts the slot). */
  async close(): Promise<void> {
    this.timers.close();
    await this.queue;
    await this.watch.close();
  }

  private get heldSlot(): HeldSlot | undefined {
    return this.state.kind === 'holding' || this.state.kind === 'finishing' ? this.state.held : undefined;
  }

  private get graceMs(): number {
    return this.options.controllerGraceMs ?? CONTROLLER_GRACE_MS;
  }

  private serialize<T>(work: () => Promise<T>): Promise<T> {
    const run = this.queue.then(work);
    this.queue = run.catch(() => undefined);
    return run;
  }

  private unpark(): void {
    if (this.state.kind === 'parked') this.state = IDLE;
  }

  private async acquireNow(gate: SerialGate, starting: boolean, node: NodeFacts): Promise<SlotAnswer> {
    this.liveness.ask(gate);
    await this.leaveOtherPool(gate);
    this.liveness.noteGateGiven(gate);
    await this.readHandOver(gate, node.handedOver);
    const kept = await this.keepHeld(gate, starting);
    if (kept) return kept;
    if (!this.watch.watching) {
      const answer = await this.answerUnwatched(gate, node);
      if (answer) return answer;
    }
    this.unpark();
    return this.lookAndTake(gate, node);
  }

  /** The node moved to another pool's rollout: the old slot is not needed any more. */
  private async leaveOtherPool(gate: SerialGate): Promise<void> {
    const held = this.heldSlot;
    if (!held || held.gate.pool === gate.pool) return;
    this.state = IDLE;
    this.timers.stopRenewing();
    this.timers.stopRelease();
    await this.store.release(held);
  }

  /**
   * The slot held already: kept as it is for an apply in progress; for a new apply on the slot of the
   * last one, renewed first, as the controller may have moved it on meanwhile (the watch may not have
   * told yet); a renewal proves it is still ours, and keeps it so. Undefined: no slot (any more).
   */
  private async keepHeld(gate: SerialGate, starting: boolean): Promise<SlotAnswer | undefined> {
    const held = this.heldSlot;
    if (!held) return undefined;
    held.gate = gate;
    if (!starting && this.state.kind === 'holding') return { held: true, slot: held.slot };
    this.timers.stopRelease();
    this.state = { kind: 'holding', held };
    const renewed = await this.store.renewOnce(held.slot, held.lease);
    if (this.heldSlot === held && renewed) {
      held.lease = renewed;
      this.scheduleRenewal();
      return { held: true, slot: held.slot };
    }
    if (this.heldSlot === held) {
      this.state = IDLE;
      this.timers.stopRenewing();
    }
    return undefined;
  }

  /**
   * Without the watch: a slot handed over as the Node said is ours; a Ready waiter given its gate lately
   * by the controller that hands the slots out, or parked, reads nothing until the Node names a slot or
   * its time to look again comes (the message is that of the last list). Undefined: look.
   */
  private async answerUnwatched(gate: SerialGate, node: NodeFacts): Promise<SlotAnswer | undefined> {
    const { clock } = this.options;
    const handed = this.store.ownSlot(gate.pool);
    const adopted = handed && (await this.adopt(gate, handed.slot, handed.lease));
    if (adopted) return adopted;
    const givenUntil = this.liveness.givenUntil(gate);
    if (
      givenUntil !== undefined &&
      clock.now() < givenUntil &&
      node.ready === true &&
      gate.slots > NAMED_HOLDERS_MAX_SLOTS
    ) {
      this.unpark();
      return { held: false, holders: [], recheckAt: givenUntil };
    }
    const parked = this.state.kind === 'parked' ? this.state : undefined;
    if (parked?.pool === gate.pool && clock.now() < parked.until && this.mayPark(gate, node, parked.holders))
      return { held: false, holders: parked.holders, recheckAt: parked.until };
    return undefined;
  }

  /** Watches the pool's slot Leases and takes a slot when the decisions say so, or says why not. */
  private async lookAndTake(gate: SerialGate, node: NodeFacts): Promise<SlotAnswer> {
    const { clock, identity } = this.options;
    await this.watch.open(gate.pool, gate.slots);
    const since = this.watch.syncedAt;
    if (since === undefined)
      return { held: false, holders: [], recheckAt: undefined, reason: 'slot Leases not read yet' };
    const graceMs = this.liveness.isLive(gate) ? this.graceMs : 0;
    const decide = () =>
      decideSlot(gate, identity, this.store.slotsOf(gate.pool), clock.now(), since, graceMs);
    for (let attempt = 0; attempt < MAX_TAKE_ATTEMPTS; attempt++) {
      const decision = decide();
      if (decision.kind === 'wait') return this.waitFor(gate, node, decision);
      const answer =
        decision.kind === 'held'
          ? await this.adopt(gate, decision.slot, decision.lease)
          : await this.take(gate, decision);
      if (answer) return answer;
    }
    const decision = decide();
    if (decision.kind === 'wait') return this.waitFor(gate, node, decision);
    return { held: false, holders: [], recheckAt: clock.now() + 1000, reason: 'lost a race for a slot' };
  }

  private async take(
    gate: SerialGate,
    decision: Extract<SlotDecision, { kind: 'take' }>,
  ): Promise<SlotAnswer | undefined> {
    const taken = await this.store.take(gate, decision);
    if (!taken) return undefined;
    await this.hold({ gate, slot: decision.slot, lease: taken });
    const expired = decision.expiredHolder ? { expiredHolder: decision.expiredHolder } : {};
    this.options.logger.info({ pool: gate.pool, slot: decision.slot, ...expired }, 'serial slot taken');
    return { held: true, slot: decision.slot };
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
      this.heldSlot?.lease.metadata?.name === handedOver.lease ||
      holderOf(this.store.get(handedOver.lease)?.lease) === this.options.identity;
    // Not yet seen as ours (a watch, when open, may be slower than the Node): read it.
    if (!mine) await this.store.refresh(handedOver.lease);
    this.handOverRead = key;
    if (this.heldSlot) this.releaseExtraSlots();
  }

  /**
   * Holds a slot Lease seen naming this node: handed over by the controller just now (the watch or the
   * Node told), whose write is fresh, without a write; else (ours from before a restart) renewed first,
   * which also proves it still is. Undefined: it is not ours any more.
   */
  private async adopt(gate: SerialGate, slot: number, lease: SlotLease): Promise<SlotAnswer | undefined> {
    const { clock, logger } = this.options;
    const seen = this.store.get(lease.metadata?.name ?? '');
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
    const renewed = await this.store.renewOnce(slot, lease);
    if (!renewed) return undefined;
    await this.hold({ gate, slot, lease: renewed });
    logger.info({ pool: gate.pool, slot }, 'serial slot re-adopted');
    return { held: true, slot };
  }

  /**
   * A waiter may do without the watch while the controller hands slots out and would hand this node
   * one (it is Ready: the controller passes NotReady nodes over, and such a node takes a slot by
   * itself), and every slot is held (`holders`, live ones only). A free or expired slot is watched: if
   * the controller does not hand it over within the grace, this node's turn on it comes. (A list again
   * later would see a free slot for the first time and start its turn over, every time.)
   */
  private mayPark(gate: SerialGate, node: NodeFacts, holders: readonly string[]): boolean {
    return node.ready === true && holders.length >= gate.slots && this.liveness.isLive(gate);
  }

  /**
   * Every slot held: parked when it may be, that is without the watch until the Node names a slot
   * handed over, or the earlier of the controller's liveness lapsing and the earliest holder's expiry
   * (then it lists again); else watching, until a Lease changes or the recheck comes.
   */
  private async waitFor(
    gate: SerialGate,
    node: NodeFacts,
    decision: Extract<SlotDecision, { kind: 'wait' }>,
  ): Promise<SlotAnswer> {
    const { holders, recheckAt } = decision;
    if (!this.mayPark(gate, node, holders)) return { held: false, holders, recheckAt };
    const lapse = this.liveness.lapsesAt(gate);
    const until = Math.min(lapse, recheckAt ?? lapse);
    this.state = { kind: 'parked', pool: gate.pool, until, holders };
    await this.watch.close();
    return { held: false, holders, recheckAt: until };
  }

  /**
   * Holds the slot. While the controller hands slots out the watch goes: a renewal learns of a lost
   * slot, and the release reads the slot first (agents alone keep it, as before).
   */
  private async hold(held: HeldSlot): Promise<void> {
    this.state = { kind: 'holding', held };
    this.scheduleRenewal();
    this.releaseExtraSlots();
    if (this.liveness.isLive(held.gate)) await this.watch.close();
  }

  /** The watch saw a Lease change holder: ours moved on (or lost), or a second one came our way. */
  private holderChanged(name: string): void {
    if (this.heldSlot?.lease.metadata?.name === name) this.slotMovedOn();
    if (this.heldSlot) this.releaseExtraSlots();
  }

  /**
   * The controller hands a released slot to a waiting node; if this agent took another slot at the same
   * time, it holds two: the one it is not using goes back at once (compare-and-swap, like any release).
   */
  private releaseExtraSlots(): void {
    const held = this.heldSlot;
    if (!held) return;
    const { identity } = this.options;
    const mine = held.lease.metadata?.name;
    for (const [name, slot] of this.store.slotsOf(held.gate.pool)) {
      const index = slotIndex(held.gate.pool, name);
      if (name === mine || holderOf(slot.lease) !== identity || index === undefined) continue;
      void this.serialize(async () => {
        // As seen then, if the watch has gone meanwhile (the release is a compare-and-swap anyway).
        const current = this.store.get(name)?.lease ?? slot.lease;
        if (this.heldSlot?.lease.metadata?.name === name || holderOf(current) !== identity) return;
        await this.store.release({ gate: held.gate, slot: index, lease: current });
      }).catch(() => undefined);
    }
  }

  private scheduleRenewal(): void {
    const held = this.heldSlot;
    if (!held) {
      this.timers.stopRenewing();
      return;
    }
    this.timers.renewIn((held.gate.leaseDurationSeconds * 1000) / 3, () => {
      void this.serialize(() => this.renewNow()).finally(() => this.scheduleRenewal());
    });
  }

  private async renewNow(): Promise<void> {
    const held = this.heldSlot;
    if (!held) return;
    try {
      if (await this.store.renew(held)) return;
      // Another holder: moved on by the controller (the holder was finished) or lost; told once.
      if (this.heldSlot === held) this.slotMovedOn();
    } catch (error) {
      // The API server is away: try again at the next tick; the slot lasts a whole duration.
      this.options.logger.warn({ slot: held.slot, error: error as Error }, 'serial slot renewal failed');
    }
  }

  /**
   * The grace of a finished holder ended: release the slot unless the controller moved it on. Without
   * the watch a read tells (usually: moved on, nothing to write); a failed read leaves it to the
   * release's compare-and-swap.
   */
  private async releaseAfterGrace(held: HeldSlot): Promise<void> {
    if (this.state.kind !== 'finishing' || this.state.held !== held) return;
    if (!this.watch.watching) {
      try {
        const current = await this.store.read(held.lease.metadata?.name ?? '');
        if (this.heldSlot !== held) return;
        if (holderOf(current) !== this.options.identity || !current) {
          this.slotMovedOn();
          return;
        }
        held.lease = current;
      } catch (error) {
        this.options.logger.warn({ slot: held.slot, error: error as Error }, 'serial slot read failed');
      }
    }
    this.state = IDLE;
    await this.store.release(held);
    await this.watch.close();
  }

  /** Our slot as last seen has another holder (or is gone): moved on by the controller, or lost. */
  private slotMovedOn(): void {
    const held = this.heldSlot;
    if (!held) return;
    const { identity, logger } = this.options;
    const current = this.store.get(held.lease.metadata?.name ?? '')?.lease;
    if (holderOf(current) === identity) return;
    const finishing = this.state.kind === 'finishing';
    this.state = IDLE;
    this.timers.stopRenewing();
    const moved = current?.metadata?.annotations?.[SERIAL_HANDED_OVER_ANNOTATION] !== undefined;
    const where = { pool: held.gate.pool, slot: held.slot };
    if (finishing || moved)
      logger.info({ ...where, to: holderOf(current) }, 'serial slot moved on by the controller');
    else logger.error(where, 'serial slot lost: another node holds it now');
    if (!finishing) return;
    // Done with the slot: nothing more to watch (unless a new apply began meanwhile).
    this.timers.stopRelease();
    void this.serialize(async () => {
      if (!this.heldSlot) await this.watch.close();
    }).catch(() => undefined);
  }
}
