// `nodeherd status <pool> --node <node>`: reads the pool, the node and the node's Events, and draws
// why it failed in its own words (failure-view.ts renderNodeDetail).

import { matchesLabelSelector } from '../../api/label-selector.ts';
import { nodePath } from '../../controller/api-paths.ts';
import type { KubeClient } from '../../kube/kube-client.ts';
import { isKubeError } from '../../kube/kube-error.ts';
import type { Node } from '../../kube/types.ts';
import { CliError } from '../cli-error.ts';
import { eventTimeOf, type NodeEvent } from '../dashboard/timeline.ts';
import { getPool } from '../pool-lookup.ts';
import type { NodeDetail } from './failure-view.ts';

/** Events shown, newest first. */
const EVENTS_SHOWN = 10;

interface CoreEvent extends NodeEvent {
  type?: string;
  message?: string;
}

export async function fetchNodeDetail(
  client: KubeClient,
  poolName: string,
  nodeName: string,
): Promise<NodeDetail> {
  const pool = await getPool(client, poolName);
  let node: Node;
  try {
    node = await client.get<Node>(nodePath(nodeName));
  } catch (error) {
    if (isKubeError(error, 404)) throw new CliError(`--node: no Node named ${JSON.stringify(nodeName)}`);
    throw error;
  }
  if (!matchesLabelSelector(pool.spec.nodeSelector, node.metadata.labels)) {
    throw new CliError(`--node: Node ${nodeName} is not selected by pool ${poolName} (spec.nodeSelector)`);
  }
  const events = await client.list<CoreEvent>('/api/v1/events', {
    fieldSelector: `involvedObject.name=${nodeName}`,
  });
  return {
    pool: poolName,
    node,
    episodes: (pool.status?.episodes ?? []).filter((e) => e.node === nodeName),
    events: events.items
      .filter((e) => e.involvedObject?.kind === 'Node' && e.involvedObject.name === nodeName)
      .sort((a, b) => (eventTimeOf(a) < eventTimeOf(b) ? 1 : -1))
      .slice(0, EVENTS_SHOWN)
      .map((e) => ({
        at: eventTimeOf(e),
        type: e.type ?? 'Normal',
        reason: e.reason ?? '',
        message: e.message ?? '',
      })),
  };
}
