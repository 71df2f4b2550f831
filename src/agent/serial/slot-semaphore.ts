// The decisions of the Serial semaphore, pure: a pool has `slots` slot Leases; a node may start
// applying while it holds one. Which slot to take, whether one of ours exists (after an agent
// restart), and when a held slot counts as abandoned.
//
// Expiry is judged like client-go's leader election: by this agent's own clock, from when it last saw
// the slot's record change (slot-observer.ts keeps when), so clock skew between nodes does not matter.
// Only at first sight, when nothing was observed yet, the holder's renewTime stands in for the
// observation (capped at now), so a slot abandoned long ago is not waited for a whole lease duration
// again. Two holders are never
// possible whatever is decided here: every take is a create or a resourceVersion-checked update.

import { SERIAL_HANDED_OVER_ANNOTATION, type SerialGate, serialLeaseName } from '../../api/node-protocol.ts';
import { microTime } from '../../util/kube-time.ts';

export interface SlotLease {
  metadata?: {
    name?: string;
    resourceVersion?: string;
    annotations?: Record<string, string>;
    [key: string]: unknown;
  };
  spec?: {
    holderIdentity?: string | null;
    leaseDurationSeconds?: number | null;
    acquireTime?: string | null;
    renewTime?: string | null;
    leaseTransitions?: number | null;
  };
  [key: string]: unknown;
}

/** A slot Lease as this agent last saw it, with when (its clock) the record last changed. */
export interface ObservedSlot {
  lease: SlotLease;
  observedAt: number;
}

export type SlotDecision =
  /** We hold this slot already (possibly since before a restart): keep and renew it. */
  | { kind: 'held'; slot: number; lease: SlotLease }
  /** Take this slot: create the Lease (none yet) or update `lease` (free or expired). */
  | { kind: 'take'; slot: number; lease: SlotLease | undefined; expiredHolder?: string }
  /** Every slot is held (holders sorted); look again at `recheckAt` (the earliest expiry) or when a Lease changes. */
  | { kind: 'wait'; holders: string[]; recheckAt: number | undefined };

/** Up to this many slots a waiting node's message names the holders (it changes at every hand-over). */
export const NAMED_HOLDERS_MAX_SLOTS = 3;

/** The slot index of a Lease name of this pool, or undefined. */
export function slotIndex(pool: string, name: string): number | undefined {
  const prefix = serialLeaseName(pool, 0).slice(0, -1);
  if (!name.startsWith(prefix)) return undefined;
  const rest = name.slice(prefix.length);
  return /^(0|[1-9][0-9]*)$/.test(rest) ? Number(rest) : undefined;
}

export function holderOf(lease: SlotLease | undefined): string | undefined {
  const holder = lease?.spec?.holderIdentity;
  return typeof holder === 'string' && holder !== '' ? holder : undefined;
}

/** When (this agent's clock) a held slot counts as abandoned. */
export function expiresAt(observed: ObservedSlot, gate: SerialGate): number {
  const seconds = observed.lease.spec?.leaseDurationSeconds ?? gate.leaseDurationSeconds;
  return observed.observedAt + seconds * 1000;
}

/**
 * When a free slot is this agent's turn. Every node has a home slot (a stable hash of its name) and
 * tries a free slot only after `distance × stepMs + its own offset` (distance: slots counted forward
 * from home), so a freed slot is contested by the few nodes homed on or just before it, not by every
 * waiter of the pool, and an idle slot is still taken by a neighbour after a short while.
 */
export interface SlotTurns {
  home: number;
  stepMs: number;
  /** This node's fixed offset in [0, stepMs): orders the nodes sharing a home slot. */
  offsetMs: number;
}

/** The longest a free slot waits for its farthest neighbour, whatever the number of slots. */
const TURN_SWEEP_MS = 5000;

export function slotTurns(identity: string, slots: number): SlotTurns {
  const stepMs = Math.min(250, Math.max(20, Math.floor(TURN_SWEEP_MS / Math.max(1, slots))));
  return {
    home: fnv1a(identity) % Math.max(1, slots),
    stepMs,
    offsetMs: fnv1a(`offset/${identity}`) % stepMs,
  };
}

/** The delay after a slot became free before `turns` tries it. */
export function turnDelay(turns: SlotTurns, slot: number, slots: number): number {
  const distance = (((slot - turns.home) % slots) + slots) % slots;
  return distance * turns.stepMs + turns.offsetMs;
}

/**
 * What `identity` should do, given the pool's slot Leases as observed (by name). Slots at or above
 * `gate.slots` (the pool shrank) are never taken, but one we hold there is still ours. A free slot
 * (no Lease, no holder, or expired) is taken only once it is this node's turn (slotTurns): its
 * Lease free since the observation (a missing one since `watchingSince`), plus `graceMs` (while the
 * controller hands slots out: the time it has to give the slot to the next node first), plus turnDelay.
 */
export function decideSlot(
  gate: SerialGate,
  identity: string,
  observed: ReadonlyMap<string, ObservedSlot>,
  now: number,
  watchingSince: number = now,
  graceMs = 0,
): SlotDecision {
  for (const [name, slot] of observed) {
    const index = slotIndex(gate.pool, name);
    if (index !== undefined && holderOf(slot.lease) === identity)
      return { kind: 'held', slot: index, lease: slot.lease };
  }
  const turns = slotTurns(identity, gate.slots);
  const holders: string[] = [];
  let recheckAt: number | undefined;
  const later = (at: number) => {
    recheckAt = recheckAt === undefined ? at : Math.min(recheckAt, at);
  };
  let free: { slot: number; lease: SlotLease | undefined; delay: number } | undefined;
  let expired: { slot: number; lease: SlotLease; holder: string; delay: number } | undefined;
  for (let slot = 0; slot < gate.slots; slot++) {
    const seen = observed.get(serialLeaseName(gate.pool, slot));
    const holder = holderOf(seen?.lease);
    const delay = turnDelay(turns, slot, gate.slots);
    if (!seen || holder === undefined) {
      const turnAt = (seen ? seen.observedAt : watchingSince) + graceMs + delay;
      if (turnAt > now) later(turnAt);
      else if (!free || delay < free.delay) free = { slot, lease: seen?.lease, delay };
      continue;
    }
    const expiry = expiresAt(seen, gate);
    if (expiry <= now) {
      const turnAt = expiry + delay;
      if (turnAt > now) later(turnAt);
      else if (!expired || delay < expired.delay) expired = { slot, lease: seen.lease, holder, delay };
    } else {
      holders.push(holder);
      later(expiry);
    }
  }
  // A free slot is preferred to an expired one: its holder may only be slow.
  if (free) return { kind: 'take', slot: free.slot, lease: free.lease };
  if (expired)
    return { kind: 'take', slot: expired.slot, lease: expired.lease, expiredHolder: expired.holder };
  return { kind: 'wait', holders: holders.sort(), recheckAt };
}

/** 32-bit FNV-1a of a string: a stable, well-spread hash of a node name. */
function fnv1a(text: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    hash ^= text.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193);
  }
  return hash >>> 0;
}

/** `metadata` without the controller's hand-over mark: an agent's own take or release is not one. */
function withoutHandOver(metadata: SlotLease['metadata']): SlotLease['metadata'] {
  if (metadata?.annotations?.[SERIAL_HANDED_OVER_ANNOTATION] === undefined) return metadata;
  const { [SERIAL_HANDED_OVER_ANNOTATION]: _mark, ...annotations } = metadata.annotations;
  return { ...metadata, annotations };
}

/** The Lease body that makes `identity` the holder of `slot` (a new Lease, or `previous` taken over). */
export function takenLease(
  gate: SerialGate,
  slot: number,
  identity: string,
  previous: SlotLease | undefined,
  labels: Record<string, string>,
  now: number,
): SlotLease {
  const time = microTime(now);
  const transitions = previous?.spec?.leaseTransitions ?? 0;
  return {
    apiVersion: 'coordination.k8s.io/v1',
    kind: 'Lease',
    ...previous,
    metadata: { ...withoutHandOver(previous?.metadata), name: serialLeaseName(gate.pool, slot), labels },
    spec: {
      ...previous?.spec,
      holderIdentity: identity,
      leaseDurationSeconds: gate.leaseDurationSeconds,
      acquireTime: time,
      renewTime: time,
      leaseTransitions: previous ? transitions + 1 : 0,
    },
  };
}

/** `lease` renewed at `now` by its holder. */
export function renewedLease(lease: SlotLease, now: number): SlotLease {
  return { ...lease, spec: { ...lease.spec, renewTime: microTime(now) } };
}

/** `lease` with no holder (released). */
export function releasedLease(lease: SlotLease): SlotLease {
  const { holderIdentity: _holder, acquireTime: _acquired, renewTime: _renewed, ...spec } = lease.spec ?? {};
  const metadata = withoutHandOver(lease.metadata);
  return { ...lease, ...(metadata ? { metadata } : {}), spec };
}
