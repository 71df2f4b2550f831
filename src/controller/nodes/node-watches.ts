// What the node reconciler watches: node changes that may concern it (our cordon or drain, a conflict
// condition, several pools selecting it), and every such node when a pool's node selector changes.

import type { Node } from '../../kube/types.ts';
import { jsonEqual } from '../../util/json-equal.ts';
import { CORDONED_BY_ANNOTATION, DRAINING_FOR_ANNOTATION, POOL_CONFLICT_CONDITION } from '../annotations.ts';
import type { Informers } from '../controller-context.ts';
import { hasRolloutMarks } from '../drain/next-in-line-taint.ts';
import { poolsOfNode } from '../reconciler.ts';

/** Whether a node change needs the node reconciler's attention (cheap filter for event handlers). */
export function interesting(node: Node, poolCount: number): boolean {
  const a = node.metadata.annotations ?? {};
  return (
    a[CORDONED_BY_ANNOTATION] !== undefined ||
    a[DRAINING_FOR_ANNOTATION] !== undefined ||
    (node.status?.conditions ?? []).some((c) => c.type === POOL_CONFLICT_CONDITION) ||
    hasRolloutMarks(node) ||
    poolCount > 1
  );
}

export function watchNodes(informers: Informers, enqueue: (node: string) => void): void {
  const { pools, nodes } = informers;
  pools.on((type, pool, old) => {
    const selectorChanged = type !== 'update' || !jsonEqual(old?.spec.nodeSelector, pool.spec.nodeSelector);
    // Nodes may gain or lose a conflict or an owner.
    if (!selectorChanged) return;
    for (const node of nodes.list()) if (interesting(node, 2)) enqueue(node.metadata.name);
  });
  nodes.on((type, node, old) => {
    const now = poolsOfNode(informers, node).length;
    const labelsChanged = old && !jsonEqual(old.metadata.labels, node.metadata.labels);
    const before = labelsChanged ? poolsOfNode(informers, old).length : 0;
    if (type === 'delete' || interesting(node, now) || (old && interesting(old, before)))
      enqueue(node.metadata.name);
  });
}

/** Nodes to look at after a start: those that may concern the node reconciler. */
export function initialNodes(informers: Informers): string[] {
  const several = informers.pools.size > 1;
  return informers.nodes
    .list()
    .filter((node) => interesting(node, several ? poolsOfNode(informers, node).length : 0))
    .map((node) => node.metadata.name);
}
