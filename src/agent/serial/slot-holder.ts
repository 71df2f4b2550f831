// The slot this agent holds, as states: none; holding, renewed every leaseDuration/3 while the node
// applies, verifies or has failed (a failed node keeps its slot, so a bad change stops after `slots`
// nodes); finishing, done while the controller hands slots out: the slot is left to it to move on to
// the next node for a grace, then released only if a read shows it still ours. Agents alone (no
// controller seen) release at once. While the controller is live a holder keeps no watch: a renewal
// (compare-and-swap, slot-lease-store.ts) learns of a lost slot. A second slot that came this node's
// way (handed over as it took another) goes back at once.

import { SERIAL_HANDED_OVER_ANNOTATION, type SerialGate } from '../../api/node-protocol.ts';
import type { Logger } from '../logger.ts';
import type { ControllerLiveness } from './controller-liveness.ts';
import { HoldTimers } from './hold-timers.ts';
import type { PoolWatch } from './pool-watch.ts';
import type { HeldSlot, SlotLeaseStore } from './slot-lease-store.ts';
import { holderOf, slotIndex } from './slot-semaphore.ts';
import type { WorkQueue } from './work-queue.ts';

type HolderState =
  | { kind: 'none' }
  | { kind: 'holding'; held: HeldSlot }
  /** Done with the slot while the controller is live: left to it until the grace ends. */
  | { kind: 'finishing'; held: HeldSlot };

const NONE: HolderState = { kind: 'none' };

export interface SlotHolderOptions {
  identity: string;
  logger: Logger;
  /** How long a finished holder leaves its slot to a live controller. */
  graceMs: number;
  store: SlotLeaseStore;
  liveness: ControllerLiveness;
  watch: PoolWatch;
  queue: WorkQueue;
}

export class SlotHolder {
  private readonly options: SlotHolderOptions;
  private readonly timers = new HoldTimers();
  private state: HolderState = NONE;

  constructor(options: SlotHolderOptions) {
    this.options = options;
  }

  /** The slot held (finishing included), if any. */
  get held(): HeldSlot | undefined {
    return this.state.kind === 'none' ? undefined : this.state.held;
  }

  /** Holds the slot; while the controller hands slots out the watch goes. */
  async hold(held: HeldSlot): Promise<void> {
    this.state = { kind: 'holding', held };
    this.scheduleRenewal();
    this.releaseExtraSlots();
    if (this.options.liveness.isLive(held.gate)) await this.options.watch.close();
  }

  /**
   * The slot held already, asked about for `gate`: kept as it is for an apply in progress; for a new
   * apply (`starting`) on the slot of the last one, renewed first, as the controller may have moved it
   * on meanwhile (the watch may not have told yet): a renewal proves it still ours, and keeps it so.
   * The slot, or undefined: none (any more).
   */
  async keep(gate: SerialGate, starting: boolean): Promise<number | undefined> {
    const held = this.held;
    if (!held) return undefined;
    held.gate = gate;
    if (!starting && this.state.kind === 'holding') return held.slot;
    this.timers.stopRelease();
    this.state = { kind: 'holding', held };
    const renewed = await this.options.store.renewOnce(held.slot, held.lease);
    if (this.held === held && renewed) {
      held.lease = renewed;
      this.scheduleRenewal();
      return held.slot;
    }
    if (this.held === held) this.drop();
    return undefined;
  }

  /** The node moved to another pool's rollout: the old slot is not needed any more. */
  async leaveUnless(pool: string): Promise<void> {
    const held = this.held;
    if (!held || held.gate.pool === pool) return;
    this.drop();
    this.timers.stopRelease();
    await this.options.store.release(held);
  }

  /**
   * Done (or nothing to apply): releases the slot and stops watching; while the controller is live the
   * slot is left to it for the grace first (it moves it to the next node).
   */
  async finish(): Promise<void> {
    const held = this.held;
    if (this.state.kind === 'finishing') return;
    this.timers.stopRenewing();
    if (held && this.options.liveness.isLive(held.gate)) {
      this.state = { kind: 'finishing', held };
      this.timers.releaseIn(this.options.graceMs, () => {
        void this.options.queue.run(() => this.releaseAfterGrace(held)).catch(() => undefined);
      });
      return;
    }
    this.state = NONE;
    if (held) await this.options.store.release(held);
    await this.options.watch.close();
  }

  /** The agent stops: no more renewals nor release (the next agent re-adopts the slot). */
  close(): void {
    this.timers.close();
  }

  /** The watch saw a Lease change holder: ours moved on (or lost), or a second one came our way. */
  holderChanged(name: string): void {
    if (this.held?.lease.metadata?.name === name) this.movedOn();
    if (this.held) this.releaseExtraSlots();
  }

  /** Gives back, at once, a slot of the pool that names this node besides the one it uses (compare-and-swap). */
  releaseExtraSlots(): void {
    const held = this.held;
    if (!held) return;
    const { identity, store, queue } = this.options;
    const mine = held.lease.metadata?.name;
    for (const [name, slot] of store.slotsOf(held.gate.pool)) {
      const index = slotIndex(held.gate.pool, name);
      if (name === mine || holderOf(slot.lease) !== identity || index === undefined) continue;
      void queue
        .run(async () => {
          // As seen then, if the watch has gone meanwhile (the release is a compare-and-swap anyway).
          const current = store.get(name)?.lease ?? slot.lease;
          if (this.held?.lease.metadata?.name === name || holderOf(current) !== identity) return;
          await store.release({ gate: held.gate, slot: index, lease: current });
        })
        .catch(() => undefined);
    }
  }

  private drop(): void {
    this.state = NONE;
    this.timers.stopRenewing();
  }

  private scheduleRenewal(): void {
    const held = this.held;
    if (!held) {
      this.timers.stopRenewing();
      return;
    }
    this.timers.renewIn((held.gate.leaseDurationSeconds * 1000) / 3, () => {
      void this.options.queue.run(() => this.renew()).finally(() => this.scheduleRenewal());
    });
  }

  private async renew(): Promise<void> {
    const held = this.held;
    if (!held) return;
    try {
      if (await this.options.store.renew(held)) return;
      // Another holder: moved on by the controller (the holder was finished) or lost; told once.
      if (this.held === held) this.movedOn();
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
    const { identity, store, watch, logger } = this.options;
    if (!watch.watching) {
      try {
        const current = await store.read(held.lease.metadata?.name ?? '');
        if (this.held !== held) return;
        if (!current || holderOf(current) !== identity) {
          this.movedOn();
          return;
        }
        held.lease = current;
      } catch (error) {
        logger.warn({ slot: held.slot, error: error as Error }, 'serial slot read failed');
      }
    }
    this.state = NONE;
    await store.release(held);
    await watch.close();
  }

  /** Our slot as last seen has another holder (or is gone): moved on by the controller, or lost. */
  private movedOn(): void {
    const held = this.held;
    if (!held) return;
    const { identity, logger, store, watch, queue } = this.options;
    const current = store.get(held.lease.metadata?.name ?? '')?.lease;
    if (holderOf(current) === identity) return;
    const finishing = this.state.kind === 'finishing';
    this.drop();
    const moved = current?.metadata?.annotations?.[SERIAL_HANDED_OVER_ANNOTATION] !== undefined;
    const where = { pool: held.gate.pool, slot: held.slot };
    if (finishing || moved)
      logger.info({ ...where, to: holderOf(current) }, 'serial slot moved on by the controller');
    else logger.error(where, 'serial slot lost: another node holds it now');
    if (!finishing) return;
    // Done with the slot: nothing more to watch (unless a new apply began meanwhile).
    this.timers.stopRelease();
    void queue
      .run(async () => {
        if (!this.held) await watch.close();
      })
      .catch(() => undefined);
  }
}
