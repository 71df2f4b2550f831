// The slot Leases as this agent knows them, and its every write to them a compare-and-swap: a take is
// a create (409: another node won) or an update carrying the resourceVersion seen (409: the Lease
// changed since), and so are a renewal and a release, so a slot never has two holders whatever the
// agents decide. What it lists, watches, reads or writes is kept with when its record last changed
// (SlotObserver, by this agent's clock); a lost race reads that Lease again, as the watch (if one is
// open) may not have delivered it yet. A hand-over by the controller seen on the way is passed on
// (onHandOver): it tells that the controller is live.

import { SERIAL_LEASE_NAMESPACE, SERIAL_POOL_LABEL, type SerialGate } from '../../api/node-protocol.ts';
import { isKubeError } from '../../kube/kube-error.ts';
import { resourcePath } from '../../kube/light/api-paths.ts';
import type { LightKubeClient } from '../../kube/light/light-kube-client.ts';
import type { Clock } from '../clock.ts';
import type { Logger } from '../logger.ts';
import { LEASES_PATH } from './slot-lease-watch.ts';
import { SlotObserver } from './slot-observer.ts';
import {
  holderOf,
  type ObservedSlot,
  releasedLease,
  renewedLease,
  type SlotDecision,
  type SlotLease,
  slotIndex,
  takenLease,
} from './slot-semaphore.ts';

/** A slot this agent holds: the Lease as it last wrote or read it. */
export interface HeldSlot {
  gate: SerialGate;
  slot: number;
  lease: SlotLease;
}

export interface SlotLeaseStoreOptions {
  client: LightKubeClient;
  /** The holder identity: the node's name. */
  identity: string;
  clock: Clock;
  logger: Logger;
  /** A Lease seen written by the controller's hand-over, at `at` (this agent's clock). */
  onHandOver(name: string, at: number): void;
}

export class SlotLeaseStore {
  private readonly options: SlotLeaseStoreOptions;
  private readonly observer = new SlotObserver();

  constructor(options: SlotLeaseStoreOptions) {
    this.options = options;
  }

  get(name: string): ObservedSlot | undefined {
    return this.observer.get(name);
  }

  forget(name: string): void {
    this.observer.forget(name);
  }

  clear(): void {
    this.observer.clear();
  }

  /** Records a Lease as seen now (and a hand-over by the controller); whether its holder changed. */
  observe(lease: SlotLease): boolean {
    const seen = this.observer.observe(lease, this.options.clock.now());
    const name = lease.metadata?.name;
    if (seen.handedAt !== undefined && name) this.options.onHandOver(name, seen.handedAt);
    return seen.holderChanged;
  }

  /** The pool's slot Leases as last seen, by name. */
  slotsOf(pool: string): Map<string, ObservedSlot> {
    return new Map([...this.observer.slots].filter(([name]) => slotIndex(pool, name) !== undefined));
  }

  /** A Lease of the pool that names this node as its holder, as last seen. */
  ownSlot(pool: string): { slot: number; lease: SlotLease } | undefined {
    for (const [name, seen] of this.observer.slots) {
      const slot = slotIndex(pool, name);
      if (slot !== undefined && holderOf(seen.lease) === this.options.identity)
        return { slot, lease: seen.lease };
    }
    return undefined;
  }

  /** Reads one Lease again; it is as the API server has it now (undefined: gone). */
  async read(name: string): Promise<SlotLease | undefined> {
    await this.refresh(name);
    return this.observer.get(name)?.lease;
  }

  /** Reads one Lease again after losing a race (the watch may not have delivered it yet). */
  async refresh(name: string): Promise<void> {
    try {
      this.observe(await this.options.client.get<SlotLease & { metadata: object }>(this.pathOf(name)));
    } catch (error) {
      if (isKubeError(error, 404)) this.observer.forget(name);
      else throw error;
    }
  }

  /** Makes this node the holder of a free or expired slot: the Lease if it won, undefined if it lost. */
  async take(
    gate: SerialGate,
    decision: Extract<SlotDecision, { kind: 'take' }>,
  ): Promise<SlotLease | undefined> {
    const { clock, identity } = this.options;
    const labels = { [SERIAL_POOL_LABEL]: gate.pool };
    const body = takenLease(gate, decision.slot, identity, decision.lease, labels, clock.now());
    body.metadata = { ...body.metadata, namespace: SERIAL_LEASE_NAMESPACE };
    const taken = decision.lease
      ? await this.write(decision.slot, body)
      : await this.create(decision.slot, body);
    return taken && holderOf(taken) === identity ? taken : undefined;
  }

  /** One renewal, which proves the slot still ours: the renewed Lease, or undefined if it is not. */
  async renewOnce(slot: number, lease: SlotLease): Promise<SlotLease | undefined> {
    const renewed = await this.write(slot, renewedLease(lease, this.options.clock.now()));
    return renewed && holderOf(renewed) === this.options.identity ? renewed : undefined;
  }

  /**
   * Renews a held slot (`held.lease` follows): true when renewed, false when another node holds it
   * now. A Lease changed meanwhile but still ours (someone touched a label, say) is renewed in that
   * version. Throws when the API server is away.
   */
  async renew(held: HeldSlot): Promise<boolean> {
    const name = held.lease.metadata?.name ?? '';
    for (let attempt = 0; attempt < 2; attempt++) {
      const renewed = await this.write(held.slot, renewedLease(held.lease, this.options.clock.now()));
      if (renewed) {
        held.lease = renewed;
        return true;
      }
      const current = this.observer.get(name)?.lease;
      if (!current || holderOf(current) !== this.options.identity) break;
      held.lease = current;
    }
    return false;
  }

  /** Clears the holder while it is still this node; a failure is logged (the slot expires instead). */
  async release(held: HeldSlot): Promise<void> {
    const { identity, logger } = this.options;
    const name = held.lease.metadata?.name ?? '';
    try {
      let lease: SlotLease | undefined = held.lease;
      for (let attempt = 0; attempt < 3 && lease && holderOf(lease) === identity; attempt++) {
        if (await this.write(held.slot, releasedLease(lease))) {
          logger.info({ pool: held.gate.pool, slot: held.slot }, 'serial slot released');
          return;
        }
        lease = this.observer.get(name)?.lease;
      }
    } catch (error) {
      // It expires by itself after a lease duration.
      logger.warn(
        { slot: held.slot, error: error as Error },
        'serial slot release failed; it expires instead',
      );
    }
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

  private pathOf(name: string): string {
    return resourcePath({
      apiVersion: 'coordination.k8s.io/v1',
      resource: 'leases',
      namespace: SERIAL_LEASE_NAMESPACE,
      name,
    });
  }
}
