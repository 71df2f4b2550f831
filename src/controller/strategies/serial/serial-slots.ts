// Serial: who holds the pool's slot Leases, which slots the controller frees, and which slots it hands
// on. Agents take and release slots themselves (so Serial goes on with the controller down); the
// controller reports the holders, frees a slot whose holder Node no longer exists (which no agent would
// ever release), and moves a slot straight from a holder that is finished (Done on the target, Ready
// again) to the next waiting node, or gives it a slot released by its holder: one write per turn, and
// the slot does not sit free until a waiting agent's turn to try it comes (issue 17).

import { SERIAL_HANDED_OVER_ANNOTATION, serialLeaseName } from '../../../api/node-protocol.ts';
import type { Lease } from '../../../kube/types.ts';
import { type NodeOrder, orderedNodes } from '../../rollout/rollout-order.ts';
import { type StrategyNode, startedOn } from '../strategy-node.ts';
import { serialGateOf } from './serial-annotations.ts';

export interface SlotHolder {
  lease: string;
  node: string;
  /** The holder's agent state ('Gone' when its Node no longer exists). */
  state: string;
}

export interface SlotView {
  holders: SlotHolder[];
  /** Leases to free (holder Node deleted): name and resourceVersion for a compare-and-swap update. */
  release: { lease: string; node: string; resourceVersion?: string }[];
  /** Leases without a holder (released by theirs): name and resourceVersion, for a hand-over. */
  free: { lease: string; resourceVersion?: string }[];
  /**
   * Leases held by existing Nodes: name, holder and resourceVersion, for a move to the next node; and
   * when the controller made it the holder (SERIAL_HANDED_OVER_ANNOTATION), for the Node's serial-slot.
   */
  held: { lease: string; node: string; resourceVersion?: string; handedOverAt?: string }[];
}

export function serialSlots(
  leases: readonly Lease[],
  nodeState: (node: string) => string | undefined,
  nodeExists: (node: string) => boolean,
): SlotView {
  const view: SlotView = { holders: [], release: [], free: [], held: [] };
  const sorted = [...leases].sort((a, b) => (a.metadata.name < b.metadata.name ? -1 : 1));
  for (const lease of sorted) {
    const holder = lease.spec?.holderIdentity;
    if (!holder) {
      view.free.push({
        lease: lease.metadata.name,
        ...(lease.metadata.resourceVersion ? { resourceVersion: lease.metadata.resourceVersion } : {}),
      });
      continue;
    }
    if (!nodeExists(holder)) {
      view.holders.push({ lease: lease.metadata.name, node: holder, state: 'Gone' });
      view.release.push({
        lease: lease.metadata.name,
        node: holder,
        ...(lease.metadata.resourceVersion ? { resourceVersion: lease.metadata.resourceVersion } : {}),
      });
      continue;
    }
    view.holders.push({ lease: lease.metadata.name, node: holder, state: nodeState(holder) ?? 'Unknown' });
    const handedOverAt = lease.metadata.annotations?.[SERIAL_HANDED_OVER_ANNOTATION];
    view.held.push({
      lease: lease.metadata.name,
      node: holder,
      ...(lease.metadata.resourceVersion ? { resourceVersion: lease.metadata.resourceVersion } : {}),
      ...(handedOverAt ? { handedOverAt } : {}),
    });
  }
  return view;
}

export interface SlotHandover {
  lease: string;
  node: string;
  resourceVersion?: string;
  /** The finished holder the slot moves from (absent: the Lease is free, or missing). */
  from?: string;
  /** The Lease does not exist yet: created with the node as its holder (409: an agent was first). */
  create?: true;
}

/**
 * Whether a slot holder is finished with its slot: Done on the target and its Node Ready again (the
 * agent's own rule for releasing, so the controller moves the slot when the agent would free it).
 */
export function finishedHolder(node: StrategyNode | undefined, target: string, ready: boolean): boolean {
  return (
    node !== undefined &&
    ready &&
    node.desired === target &&
    node.current === target &&
    node.state === 'Done' &&
    (node.stateRevision === undefined || node.stateRevision === target)
  );
}

/**
 * Slots of the pool given to the nodes waiting for one, one node per slot, in rollout order (zones
 * alternate): free Leases (they exist and have no holder) first, then slots with no Lease yet (when
 * `existing` is given: created with the holder, so a rollout's first nodes do not wait for the agents'
 * turns), then Leases whose holder is finished (finishedHolder), moved from it. Waiting: handed the
 * target with the pool's Serial gate, not on it, not started, not held, not holding a slot, and Ready
 * (an agent that is down would only sit on the slot). A finished holder with no one to move its slot to
 * releases it itself.
 */
export function slotHandovers(input: {
  pool: string;
  slots: number;
  target: string;
  free: SlotView['free'];
  /** Held slots whose holder is finished with it (finishedHolder). */
  finished?: SlotView['held'];
  /** Names of the pool's slot Leases that exist (held, free or of a gone holder). */
  existing?: ReadonlySet<string>;
  /** waitingForSlots, when the caller has it already. */
  waiting?: readonly string[];
  nodes: readonly StrategyNode[];
  holders: ReadonlySet<string>;
  ready: (node: string) => boolean;
}): SlotHandover[] {
  const names = Array.from({ length: input.slots }, (_, i) => serialLeaseName(input.pool, i));
  const free: SlotHandover[] = [
    ...names
      .map((name) => input.free.find((l) => l.lease === name))
      .filter((lease) => lease !== undefined)
      .map((l) => ({
        lease: l.lease,
        node: '',
        ...(l.resourceVersion ? { resourceVersion: l.resourceVersion } : {}),
      })),
    ...names
      .filter((name) => input.existing !== undefined && !input.existing.has(name))
      .map((name) => ({ lease: name, node: '', create: true as const })),
    ...names
      .map((name) => input.finished?.find((h) => h.lease === name))
      .filter((holder) => holder !== undefined)
      .map((h) => ({
        lease: h.lease,
        node: '',
        from: h.node,
        ...(h.resourceVersion ? { resourceVersion: h.resourceVersion } : {}),
      })),
  ];
  if (free.length === 0) return [];
  const waiting = input.waiting ?? waitingForSlots(input);
  return free.slice(0, waiting.length).map((slot, i) => ({ ...slot, node: waiting[i]! }));
}

/**
 * Whether a node waits for a slot: handed the target with the pool's Serial gate, not on it, not
 * started, not held, not holding a slot, and Ready (an agent that is down would only sit on the slot).
 */
export function waitsForSlot(
  n: StrategyNode,
  target: string,
  holders: ReadonlySet<string>,
  ready: (node: string) => boolean,
): boolean {
  return (
    n.desired === target &&
    n.current !== undefined &&
    n.current !== target &&
    serialGateOf(n) !== undefined &&
    n.hold === undefined &&
    n.state !== 'Applying' &&
    n.state !== 'Verifying' &&
    !holders.has(n.name) &&
    !startedOn(n, target, false) &&
    ready(n.name)
  );
}

/** The nodes waiting for a slot (waitsForSlot), in rollout order (zones alternate). */
export function waitingForSlots(input: {
  target: string;
  nodes: readonly StrategyNode[];
  holders: ReadonlySet<string>;
  ready: (node: string) => boolean;
  order?: NodeOrder;
}): string[] {
  return orderedNodes(
    input.nodes.filter((n) => waitsForSlot(n, input.target, input.holders, input.ready)),
    input.order,
  ).map((n) => n.name);
}
