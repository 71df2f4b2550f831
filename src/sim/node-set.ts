// What runs the nodes of a local cluster (`nodeherd up`): the simulated fleet, or containers with real
// systemd (src/nspawn). Both implement NodeSet from a NodeSetContext, so the cluster that chooses one
// depends on them, not they on it.

import type { Logger } from 'pino';
import type { RouteTable } from '../agent/http/route-table.ts';
import type { Logger as AgentLogger } from '../agent/logger.ts';
import type { ApiServer } from '../apiserver/api-server.ts';
import type { KubeClient } from '../kube/kube-client.ts';
import type { LightKubeClient } from '../kube/light/light-kube-client.ts';

export interface NodeSet {
  readonly names: string[];
  /** Resolves once every agent has started and done what it had to do at start. */
  settled(): Promise<void>;
  stop(): Promise<void>;
  /** The routes a node's agent serves locally, when this process runs the agents (simulated nodes). */
  localApi?(node: string): RouteTable | undefined;
}

/** Where the nodes keep their state between runs; `nodeherd up`'s StateDirectory is one. */
export interface NodeStateDirectory {
  readonly root: string;
  /** One directory per node, and the nodes' kubeconfigs. */
  readonly nodes: string;
  node(name: string): string;
}

export interface NodeSetContext {
  server: ApiServer;
  admin: KubeClient;
  adminLight: LightKubeClient;
  state: NodeStateDirectory;
  log: Logger;
  agentLog: AgentLogger;
}
