// When this agent saw each slot Lease's record change (client-go's observedTime), which is what expiry
// is judged by (slot-semaphore.ts): by this agent's own clock, so clock skew between nodes does not
// matter; only at first sight does the holder's renewTime stand in, capped at now. A record is holder,
// times and duration: a label edit is no sign of life. It also tells when the controller handed a
// slot over (its mark on a new holder), which is how an agent learns the controller is live.

import { SERIAL_HANDED_OVER_ANNOTATION } from '../../api/node-protocol.ts';
import { holderOf, type ObservedSlot, type SlotLease } from './slot-semaphore.ts';

/**
 * Keeps, per slot Lease, when this agent saw its record change (client-go's observedTime). A record is
 * holder, times and duration: a label edit is no sign of life.
 */
export class SlotObserver {
  private readonly seen = new Map<string, { record: string; observed: ObservedSlot }>();

  /**
   * Records `lease` as seen at `now`; returns the observation, whether its holder changed, and when
   * (this agent's clock) the controller handed it over, if this version is such a hand-over.
   */
  observe(lease: SlotLease, now: number): ObservedSlot & { holderChanged: boolean; handedAt?: number } {
    const name = lease.metadata?.name ?? '';
    const spec = lease.spec ?? {};
    const record = JSON.stringify([
      spec.holderIdentity ?? '',
      spec.renewTime ?? '',
      spec.acquireTime ?? '',
      spec.leaseDurationSeconds ?? 0,
    ]);
    const previous = this.seen.get(name);
    // A watch event older than the answer to our own write says nothing new.
    if (previous && isOlder(lease, previous.observed.lease))
      return { ...previous.observed, holderChanged: false };
    let observedAt: number;
    if (previous && previous.record === record) observedAt = previous.observed.observedAt;
    else if (previous) observedAt = now;
    else {
      const renewed = spec.renewTime ? Date.parse(spec.renewTime) : Number.NaN;
      observedAt = Number.isNaN(renewed) ? now : Math.min(now, renewed);
    }
    const observed = { lease, observedAt };
    this.seen.set(name, { record, observed });
    const holderChanged = !previous || holderOf(previous.observed.lease) !== holderOf(lease);
    // Seen as it happens: now (clock skew does not matter); at first sight: the mark's time, capped.
    const handed = holderChanged && holderOf(lease) !== undefined ? handedOverAt(lease, now) : undefined;
    const handedAt = handed !== undefined && previous ? now : handed;
    return { ...observed, holderChanged, ...(handedAt !== undefined ? { handedAt } : {}) };
  }

  forget(name: string): void {
    this.seen.delete(name);
  }

  /** One slot as observed (without copying them all, as `slots` does). */
  get(name: string): ObservedSlot | undefined {
    return this.seen.get(name)?.observed;
  }

  clear(): void {
    this.seen.clear();
  }

  get slots(): ReadonlyMap<string, ObservedSlot> {
    return new Map([...this.seen].map(([name, s]) => [name, s.observed]));
  }
}

/** When the controller wrote this holder (SERIAL_HANDED_OVER_ANNOTATION), capped at now; undefined: not it. */
function handedOverAt(lease: SlotLease, now: number): number | undefined {
  const text = lease.metadata?.annotations?.[SERIAL_HANDED_OVER_ANNOTATION];
  if (text === undefined) return undefined;
  const at = Date.parse(text);
  return Number.isNaN(at) ? now : Math.min(now, at);
}

/** Whether `a` is an older version than `b` (resourceVersions compared when both are integers). */
function isOlder(a: SlotLease, b: SlotLease): boolean {
  const x = a.metadata?.resourceVersion;
  const y = b.metadata?.resourceVersion;
  if (x === undefined || y === undefined || !/^\d+$/.test(x) || !/^\d+$/.test(y)) return false;
  return BigInt(x) < BigInt(y);
}
