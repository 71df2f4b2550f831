// How a waiting agent comes to hold a slot, or learns why not yet. Watching the pool's slot Leases, it
// takes a free or expired slot when the decisions (slot-semaphore.ts) say it is its turn, adopts one
// that names it (handed over by the controller just now: without a write; ours from before a restart:
// renewed first), or waits. While the controller hands slots out (controller-liveness.ts), a Ready
// waiter that finds every slot held may park: stop watching, as the controller will name its slot on
// its Node; and one given its gate lately by that controller reads no slot Lease at all. Its only
// state is the keeper's: this answers, and says when to park.

import {
  SERIAL_HANDED_OVER_ANNOTATION,
  type SerialGate,
  type SerialSlotHandover,
} from '../../api/node-protocol.ts';
import type { Clock } from '../clock.ts';
import type { Logger } from '../logger.ts';
import type { ControllerLiveness } from './controller-liveness.ts';
import type { PoolWatch } from './pool-watch.ts';
import type { HeldSlot, SlotLeaseStore } from './slot-lease-store.ts';
import { decideSlot, NAMED_HOLDERS_MAX_SLOTS, type SlotDecision, type SlotLease } from './slot-semaphore.ts';

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

/** Waiting without the watch until `until` (or the Node names a slot), with the last list's answer. */
export interface Parked {
  pool: string;
  until: number;
  holders: string[];
}

export interface SlotWaiterOptions {
  identity: string;
  clock: Clock;
  logger: Logger;
  /** How long a free slot is left to a live controller before this node's turn on it begins. */
  graceMs: number;
  store: SlotLeaseStore;
  liveness: ControllerLiveness;
  watch: PoolWatch;
  /** The slot is this node's now: hold it. */
  hold(held: HeldSlot): Promise<void>;
}

/** Attempts at a take that lost a race before looking again later. */
const MAX_TAKE_ATTEMPTS = 3;

export class SlotWaiter {
  private readonly options: SlotWaiterOptions;

  constructor(options: SlotWaiterOptions) {
    this.options = options;
  }

  /** A slot of the pool seen naming this node (the Node said it was handed over): held, if still ours. */
  async handed(gate: SerialGate): Promise<SlotAnswer | undefined> {
    const own = this.options.store.ownSlot(gate.pool);
    return own && (await this.adopt(gate, own.slot, own.lease));
  }

  /**
   * Given its gate lately by the controller that hands the slots out, a Ready waiter reads nothing until
   * the Node names a slot or a lease duration from then (the message is the same as a parked waiter's).
   * Pools of up to NAMED_HOLDERS_MAX_SLOTS list anyway, so that the message names the holders.
   */
  givenLately(gate: SerialGate, node: NodeFacts): SlotAnswer | undefined {
    const until = this.options.liveness.givenUntil(gate);
    if (
      until !== undefined &&
      this.options.clock.now() < until &&
      node.ready === true &&
      gate.slots > NAMED_HOLDERS_MAX_SLOTS
    )
      return { held: false, holders: [], recheckAt: until };
    return undefined;
  }

  /**
   * A waiter may do without the watch while the controller hands slots out and would hand this node
   * one (it is Ready: the controller passes NotReady nodes over, and such a node takes a slot by
   * itself), and every slot is held (`holders`, live ones only). A free or expired slot is watched: if
   * the controller does not hand it over within the grace, this node's turn on it comes. (A list again
   * later would see a free slot for the first time and start its turn over, every time.)
   */
  mayPark(gate: SerialGate, node: NodeFacts, holders: readonly string[]): boolean {
    return node.ready === true && holders.length >= gate.slots && this.options.liveness.isLive(gate);
  }

  /** Watches the pool's slot Leases and takes a slot when the decisions say so, or says why not. */
  async look(gate: SerialGate, node: NodeFacts): Promise<{ answer: SlotAnswer; park?: Parked }> {
    const { clock, identity, store, liveness, watch } = this.options;
    await watch.open(gate.pool, gate.slots);
    const since = watch.syncedAt;
    if (since === undefined)
      return {
        answer: { held: false, holders: [], recheckAt: undefined, reason: 'slot Leases not read yet' },
      };
    const graceMs = liveness.isLive(gate) ? this.options.graceMs : 0;
    const decide = () => decideSlot(gate, identity, store.slotsOf(gate.pool), clock.now(), since, graceMs);
    for (let attempt = 0; attempt < MAX_TAKE_ATTEMPTS; attempt++) {
      const decision = decide();
      if (decision.kind === 'wait') return this.waitFor(gate, node, decision);
      const answer =
        decision.kind === 'held'
          ? await this.adopt(gate, decision.slot, decision.lease)
          : await this.take(gate, decision);
      if (answer) return { answer };
    }
    const decision = decide();
    if (decision.kind === 'wait') return this.waitFor(gate, node, decision);
    return {
      answer: { held: false, holders: [], recheckAt: clock.now() + 1000, reason: 'lost a race for a slot' },
    };
  }

  /**
   * Every slot held: parked when it may be, until the earlier of the controller's liveness lapsing and
   * the earliest holder's expiry (then it lists again); else watching, until a Lease changes or the
   * recheck comes.
   */
  private waitFor(
    gate: SerialGate,
    node: NodeFacts,
    { holders, recheckAt }: Extract<SlotDecision, { kind: 'wait' }>,
  ): { answer: SlotAnswer; park?: Parked } {
    if (!this.mayPark(gate, node, holders)) return { answer: { held: false, holders, recheckAt } };
    const lapse = this.options.liveness.lapsesAt(gate);
    const until = Math.min(lapse, recheckAt ?? lapse);
    return { answer: { held: false, holders, recheckAt: until }, park: { pool: gate.pool, until, holders } };
  }

  private async take(
    gate: SerialGate,
    decision: Extract<SlotDecision, { kind: 'take' }>,
  ): Promise<SlotAnswer | undefined> {
    const taken = await this.options.store.take(gate, decision);
    if (!taken) return undefined;
    await this.options.hold({ gate, slot: decision.slot, lease: taken });
    const expired = decision.expiredHolder ? { expiredHolder: decision.expiredHolder } : {};
    this.options.logger.info({ pool: gate.pool, slot: decision.slot, ...expired }, 'serial slot taken');
    return { held: true, slot: decision.slot };
  }

  /**
   * Holds a slot Lease seen naming this node: handed over by the controller just now (the watch or the
   * Node told), whose write is fresh, without a write; else (ours from before a restart) renewed first,
   * which also proves it still is. Undefined: it is not ours any more.
   */
  private async adopt(gate: SerialGate, slot: number, lease: SlotLease): Promise<SlotAnswer | undefined> {
    const { clock, logger, store, hold } = this.options;
    const seen = store.get(lease.metadata?.name ?? '');
    const renewEvery = ((lease.spec?.leaseDurationSeconds ?? gate.leaseDurationSeconds) * 1000) / 3;
    if (
      seen &&
      lease.metadata?.annotations?.[SERIAL_HANDED_OVER_ANNOTATION] !== undefined &&
      clock.now() - seen.observedAt < renewEvery
    ) {
      await hold({ gate, slot, lease });
      logger.info({ pool: gate.pool, slot }, 'serial slot handed over by the controller');
      return { held: true, slot };
    }
    const renewed = await store.renewOnce(slot, lease);
    if (!renewed) return undefined;
    await hold({ gate, slot, lease: renewed });
    logger.info({ pool: gate.pool, slot }, 'serial slot re-adopted');
    return { held: true, slot };
  }
}
