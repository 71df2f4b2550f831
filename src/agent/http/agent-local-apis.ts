// The node's local APIs beside /healthz and /metrics, in one place so every server of them offers the
// same: the over-the-air node update (GET/POST /v1/update) and the DaemonSet pod updates (GET /v1/pods,
// POST /v1/namespaces/{namespace}/pods/{name}/upgrade).

import type { LightKubeClient } from '../../kube/light/light-kube-client.ts';
import type { NodeUpdateApi } from '../ota/node-update-api.ts';
import { mountNodeUpdateApi } from '../ota/node-update-routes.ts';
import { PodUpdatesApi } from '../ota/pod-updates-api.ts';
import type { RouteTarget } from './route-table.ts';

export interface AgentLocalApiParts {
  /** The agent's NodeUpdateApi (`agent.updates`). */
  updates: NodeUpdateApi;
  /** The agent's client (its node identity). */
  client: LightKubeClient;
  nodeName: string;
}

export function mountAgentLocalApis(target: RouteTarget, parts: AgentLocalApiParts): void {
  mountNodeUpdateApi(target, parts.updates);
  new PodUpdatesApi({ client: parts.client, nodeName: parts.nodeName }).register(target);
}
