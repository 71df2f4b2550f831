// Which nodes belong to which pool. A node selected by more than one pool belongs to none of them: two
// controllers of its configuration would fight. The conflict is reported on the pools and the node.

import { matchesLabelSelector } from '../api/label-selector.ts';
import type { LabelSelector } from '../api/types.ts';

export interface PoolSelector {
  name: string;
  nodeSelector: LabelSelector;
}

export interface Membership {
  /** Pool name → member node names (sorted). */
  members: Map<string, string[]>;
  /** Node name → the pools that all select it (sorted), for nodes selected by more than one. */
  conflicts: Map<string, string[]>;
}

export function poolsSelecting(
  labels: Record<string, string> | undefined,
  pools: readonly PoolSelector[],
): string[] {
  return pools
    .filter((p) => matchesLabelSelector(p.nodeSelector, labels))
    .map((p) => p.name)
    .sort();
}

export function poolMembership(
  nodes: readonly { name: string; labels?: Record<string, string> }[],
  pools: readonly PoolSelector[],
): Membership {
  const members = new Map<string, string[]>(pools.map((p) => [p.name, []]));
  const conflicts = new Map<string, string[]>();
  for (const node of nodes) {
    const selecting = poolsSelecting(node.labels, pools);
    if (selecting.length === 1) members.get(selecting[0]!)!.push(node.name);
    else if (selecting.length > 1) conflicts.set(node.name, selecting);
  }
  for (const list of members.values()) list.sort();
  return { members, conflicts };
}
