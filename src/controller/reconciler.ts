// The shape each of the rollout controller's reconcilers has: its key kind on the shared work queue,
// the keys to start with, what it watches and how those events map to its keys, and its reconcile.
// RolloutController composes them; a new reconciler is a folder implementing this.

import type { Node } from '../kube/types.ts';
import type { Informers } from './controller-context.ts';
import { poolsSelecting } from './pool-membership.ts';

/** One reconciler of the shared work queue (the agent's Reconciler is another thing: it applies a revision). */
export interface KeyReconciler {
  /** The prefix of this reconciler's keys on the work queue (`kind/name`). */
  readonly kind: string;
  /** Names to reconcile once the caches have synced. */
  initialKeys(informers: Informers): string[];
  /** Subscribes to the informers it needs; `enqueue` queues one of its names. */
  watch(informers: Informers, enqueue: (name: string) => void): void;
  /** Reconciles one name; may ask to be reconciled again after a while. */
  reconcile(name: string): Promise<{ requeueAfterMs?: number } | undefined>;
}

/** The pools (not being deleted) whose node selector selects the node. */
export function poolsOfNode(informers: Informers, node: Node | undefined): string[] {
  if (!node) return [];
  return poolsSelecting(
    node.metadata.labels,
    informers.pools
      .list()
      .filter((p) => !p.metadata.deletionTimestamp)
      .map((p) => ({ name: p.metadata.name, nodeSelector: p.spec.nodeSelector })),
  );
}
