// Serial: who holds the pool's slot Leases, which slots the controller frees, and which free slots it
// hands on. Agents take and release slots themselves (so Serial goes on with the controller down); the
// controller reports the holders, frees a slot whose holder Node no longer exists (which no agent would
// ever release), and gives a slot released by its holder straight to the next waiting node, so the
// slot does not sit free until a waiting agent's turn to try it comes (issue 17).

import { serialLeaseName } from '../../../api/node-protocol.ts';
import type { Lease } from '../../../kube/types.ts';
import { rolloutOrder } from '../../rollout/rollout-order.ts';
import { type StrategyNode, startedOn } from '../strategy-node.ts';

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
}

export function serialSlots(
  leases: readonly Lease[],
  nodeState: (node: string) => string | undefined,
  nodeExists: (node: string) => boolean,
): SlotView {
  const view: SlotView = { holders: [], release: [], free: [] };
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
  }
  return view;
}

export interface SlotHandover {
  lease: string;
  node: string;
  resourceVersion?: string;
}

/**
 * Free slot Leases of the pool (they exist and have no holder) given to the nodes waiting for one, one
 * node per slot, in rollout order (zones alternate). Waiting: handed the target with the pool's Serial
 * gate, not on it, not started, not held, not holding a slot, and Ready (an agent that is down would
 * only sit on the slot). Slots the agents have not created yet are theirs to create.
 */
export function slotHandovers(input: {
  pool: string;
  slots: number;
  target: string;
  free: SlotView['free'];
  nodes: readonly StrategyNode[];
  holders: ReadonlySet<string>;
  ready: (node: string) => boolean;
}): SlotHandover[] {
  const free = Array.from({ length: input.slots }, (_, i) => serialLeaseName(input.pool, i))
    .map((name) => input.free.find((l) => l.lease === name))
    .filter((lease) => lease !== undefined);
  if (free.length === 0) return [];
  const waiting = rolloutOrder(
    input.nodes.filter(
      (n) =>
        n.desired === input.target &&
        n.current !== undefined &&
        n.current !== input.target &&
        n.serialGate !== undefined &&
        n.hold === undefined &&
        n.state !== 'Applying' &&
        n.state !== 'Verifying' &&
        !input.holders.has(n.name) &&
        !startedOn(n, input.target, false) &&
        input.ready(n.name),
    ),
  );
  return free.slice(0, waiting.length).map((lease, i) => ({
    lease: lease.lease,
    node: waiting[i]!.name,
    ...(lease.resourceVersion ? { resourceVersion: lease.resourceVersion } : {}),
  }));
}
