// Reads what several commands need about one pool: its revisions (by number) and its member Nodes,
// chosen exactly as the controller chooses them (a node selected by two pools belongs to neither).

import type { NodeConfigPool, NodeConfigRevision } from '../api/types.ts';
import { PATHS } from '../controller/api-paths.ts';
import { poolsSelecting } from '../controller/pool-membership.ts';
import type { KubeClient } from '../kube/kube-client.ts';
import type { Node } from '../kube/types.ts';

export interface RevisionEntry {
  name: string;
  number: number;
  revision: NodeConfigRevision;
}

/** The pool's NodeConfigRevisions, oldest first. */
export async function listPoolRevisions(client: KubeClient, pool: string): Promise<RevisionEntry[]> {
  // spec.pool decides (as for the controller); the label may be missing on hand-made revisions.
  const list = await client.list<NodeConfigRevision>(PATHS.revisions);
  return list.items
    .filter((r) => r.spec?.pool === pool)
    .map((r) => ({ name: r.metadata.name, number: r.spec.revision, revision: r }))
    .sort((a, b) => a.number - b.number);
}

/** The Nodes that belong to `pool` (selected by it and by no other pool), in name order. */
export async function listPoolNodes(client: KubeClient, pool: NodeConfigPool): Promise<Node[]> {
  const [pools, nodes] = await Promise.all([
    client.list<NodeConfigPool>(PATHS.nodeConfigPools),
    client.list<Node>(PATHS.nodes),
  ]);
  return poolMembers(pool, pools.items, nodes.items);
}

/** Of `nodes`, those `pool` selects and no other of `pools` does, in name order. */
export function poolMembers(
  pool: NodeConfigPool,
  pools: readonly NodeConfigPool[],
  nodes: readonly Node[],
): Node[] {
  const selectors = pools.map((p) => ({ name: p.metadata.name, nodeSelector: p.spec.nodeSelector }));
  return nodes
    .filter((n) => {
      const selecting = poolsSelecting(n.metadata.labels, selectors);
      return selecting.length === 1 && selecting[0] === pool.metadata.name;
    })
    .sort((a, b) => (a.metadata.name < b.metadata.name ? -1 : 1));
}

/** The pools that select a node's labels. */
export function poolsOfNode(node: Node, pools: readonly NodeConfigPool[]): NodeConfigPool[] {
  const names = new Set(
    poolsSelecting(
      node.metadata.labels,
      pools.map((p) => ({ name: p.metadata.name, nodeSelector: p.spec.nodeSelector })),
    ),
  );
  return pools.filter((p) => names.has(p.metadata.name));
}
