// The shapes of the Kubernetes objects the agent reads: its Node and the revision it applies.

import { NODE_CONFIG_POOLS_PATH, NODE_CONFIG_REVISIONS_PATH } from '../../api/rest-paths.ts';
import type { NodeConfigRevision } from '../../api/types.ts';
import type { KubeObject } from '../../kube/light/types.ts';

export type ConditionStatus = 'True' | 'False' | 'Unknown';

export interface NodeCondition {
  type: string;
  status: ConditionStatus;
  reason?: string;
  message?: string;
  lastTransitionTime?: string;
  lastHeartbeatTime?: string;
}

export interface NodeObject extends KubeObject {
  status?: { conditions?: NodeCondition[]; [key: string]: unknown };
}

export type RevisionObject = KubeObject & NodeConfigRevision;

export const NODES_PATH = '/api/v1/nodes';
export const REVISIONS_PATH = NODE_CONFIG_REVISIONS_PATH;
export { NODE_CONFIG_POOLS_PATH };

/**
 * The later of two copies of one Node by resourceVersion (the second on a tie): a watch event may be
 * older than the answer to the agent's own write, and the answer older than the next event.
 */
export function laterNode(first: NodeObject, second: NodeObject): NodeObject {
  const version = (node: NodeObject) => Number(node.metadata?.resourceVersion ?? 0);
  return version(second) < version(first) ? first : second;
}
