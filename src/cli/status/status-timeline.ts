// `nodeherd status --timeline`: reads pools, nodes and the agents' Events once and reconstructs each
// pool's rollout timeline (dashboard/timeline.ts) with the episodes the pool's status recorded laid over
// it (dashboard/timeline-episodes.ts), drawn as text by timeline-text.ts.

import type { NodeConfigPool } from '../../api/types.ts';
import { PATHS } from '../../controller/api-paths.ts';
import type { KubeClient } from '../../kube/kube-client.ts';
import type { Node } from '../../kube/types.ts';
import { eventTimesByNode, type NodeEvent, type PoolTimeline } from '../dashboard/timeline.ts';
import { recordedTimeline } from '../dashboard/timeline-episodes.ts';
import { unknownPoolError } from '../pool-lookup.ts';
import { poolMembers } from '../pool-objects.ts';

export async function fetchTimelines(
  client: KubeClient,
  pool?: string,
  now = Date.now(),
): Promise<PoolTimeline[]> {
  const [pools, nodes, events] = await Promise.all([
    client.list<NodeConfigPool>(PATHS.nodeConfigPools),
    client.list<Node>(PATHS.nodes),
    client.list<NodeEvent>('/api/v1/events'),
  ]);
  if (pool !== undefined && !pools.items.some((p) => p.metadata.name === pool)) {
    throw unknownPoolError(
      pool,
      pools.items.map((p) => p.metadata.name),
    );
  }
  const times = eventTimesByNode(events.items);
  return pools.items
    .filter((p) => pool === undefined || p.metadata.name === pool)
    .sort((a, b) => (a.metadata.name < b.metadata.name ? -1 : 1))
    .map((p) => recordedTimeline(p, poolMembers(p, pools.items, nodes.items), now, times));
}
