// The AdvancedRollingUpdate decision for one DaemonSet, as a pure function of what the caches hold:
// which outdated daemon pods to delete now (the DaemonSet controller recreates them from the current
// template, the DaemonSet being OnDelete), which wait for their node to be Ready again, and how much
// of the unavailability budget is in use.
//
// Budget: maxUnavailable (int or % of the desired pods, rounded down, at least 1). What counts against
// it is what the update made unavailable or could not bring back: nodes that should run a pod and have
// none (just deleted, not recreated yet), pods being deleted, and pods of the CURRENT revision that are
// not available (a replacement still starting, or a pod that broke or lost its node after its
// update). An outdated pod on a NotReady node has not had its turn yet: it waits without counting, so
// edge nodes that are offline never stall the others, and it is updated once its node is Ready again.

import { type IntOrPercent, resolveIntOrPercent } from '../rollout/int-or-percent.ts';

export interface DaemonSlot {
  /** A node that should run the DaemonSet's pod. */
  node: string;
  nodeReady: boolean;
  /** The node's daemon pod; absent while it is being (re)created. */
  pod?: {
    namespace: string;
    name: string;
    uid?: string;
    /** Its controller-revision-hash differs from the current revision's. */
    outdated: boolean;
    /** Ready (for minReadySeconds) and not being deleted. */
    available: boolean;
    deleting: boolean;
  };
}

export interface DaemonSetUpdateInput {
  slots: readonly DaemonSlot[];
  /** The annotation's value (default 10%); resolved against the number of slots. */
  maxUnavailable: IntOrPercent;
}

export interface PodToDelete {
  namespace: string;
  name: string;
  uid?: string;
  node: string;
}

export interface DaemonSetUpdateDecision {
  maxUnavailable: number;
  /** Slots counting against the budget before this decision's deletions. */
  unavailable: number;
  delete: PodToDelete[];
  /** Nodes whose outdated pod waits for the node to be Ready. */
  waiting: string[];
  /** Outdated pods on Ready nodes left for later because the budget is in use. */
  queued: number;
  /** Pods not on the current revision (including the ones deleted now). */
  outdated: number;
}

export function decideDaemonSetUpdate(input: DaemonSetUpdateInput): DaemonSetUpdateDecision {
  const maxUnavailable = resolveIntOrPercent(input.maxUnavailable, input.slots.length, 'down', 1);
  let unavailable = 0;
  let outdated = 0;
  const waiting: string[] = [];
  const candidates: DaemonSlot[] = [];
  for (const slot of input.slots) {
    const pod = slot.pod;
    if (!pod || pod.deleting) {
      unavailable++;
      continue;
    }
    if (!pod.outdated) {
      if (!pod.available) unavailable++;
      continue;
    }
    outdated++;
    if (!slot.nodeReady) waiting.push(slot.node);
    else candidates.push(slot);
  }
  // Pods that are down anyway go first: replacing them costs no availability that still exists.
  candidates.sort(
    (a, b) =>
      Number(a.pod!.available) - Number(b.pod!.available) || (a.node < b.node ? -1 : a.node > b.node ? 1 : 0),
  );
  const room = Math.max(0, maxUnavailable - unavailable);
  const chosen = candidates.slice(0, room);
  return {
    maxUnavailable,
    unavailable,
    delete: chosen.map((slot) => ({
      namespace: slot.pod!.namespace,
      name: slot.pod!.name,
      ...(slot.pod!.uid !== undefined ? { uid: slot.pod!.uid } : {}),
      node: slot.node,
    })),
    waiting: waiting.sort(),
    queued: candidates.length - chosen.length,
    outdated,
  };
}
