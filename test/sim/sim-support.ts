// Shared by the simulator's integration tests: a real embedded API server with a short node grace
// period, an admin light client, node identities, and polling until the server shows a state.

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { LightKubeClient } from '../../src/kube/light/light-kube-client.ts';
import type { KubeObject } from '../../src/kube/light/types.ts';
import { type ClientFactory, Fleet, type FleetOptions } from '../../src/sim/fleet.ts';
import { embeddedKubeletIdentities, embeddedNodeIdentities } from '../../src/sim/node-clients.ts';
import { type SimulatedNodeAgentsOptions, simulatedNodeAgents } from '../../src/sim/simulated-node-agents.ts';
import { type LocalApiServer, startLocalApiServer } from '../support/local-apiserver.ts';

export interface SimCluster {
  local: LocalApiServer;
  admin: LightKubeClient;
  /** Agents' clients (identity nodeherd:agent:<node>). */
  nodeClients: ClientFactory;
  /** Simulated kubelets' clients (identity system:node:<node>). */
  kubeletClients: ClientFactory;
  getNode(name: string): Promise<KubeObject | undefined>;
  getLease(name: string): Promise<KubeObject | undefined>;
  stop(): Promise<void>;
}

export const GRACE_MS = 2_000;

export async function startSimCluster(graceMs = GRACE_MS): Promise<SimCluster> {
  const local = await startLocalApiServer({ nodeMonitorGracePeriodMs: graceMs });
  const admin = LightKubeClient.fromKubeconfig(local.kubeconfigPath);
  const tryGet = async (path: string) => {
    try {
      return await admin.get(path);
    } catch (err) {
      if ((err as { status?: number }).status === 404) return undefined;
      throw err;
    }
  };
  return {
    local,
    admin,
    nodeClients: embeddedNodeIdentities(local.server, join(local.dataDir, 'sim-nodes')),
    kubeletClients: embeddedKubeletIdentities(local.server, join(local.dataDir, 'sim-nodes')),
    getNode: (name) => tryGet(`/api/v1/nodes/${name}`),
    getLease: (name) => tryGet(`/apis/coordination.k8s.io/v1/namespaces/kube-node-lease/leases/${name}`),
    async stop() {
      admin.close();
      await local.stop();
    },
  };
}

export function readyStatus(node: KubeObject | undefined): string | undefined {
  const conditions = (node?.status as { conditions?: KubeObject[] } | undefined)?.conditions ?? [];
  return conditions.find((c) => c.type === 'Ready')?.status as string | undefined;
}

export interface AgentFleet {
  cluster: SimCluster;
  fleet: Fleet;
  /** Closes the fleet, stops the server and removes the agents' state. */
  stop(): Promise<void>;
}

/**
 * The embedded API server and `nodes` simulated nodes running the real agent, each with its own
 * identities and a state directory below a temporary root; node timing short, as startSimCluster's.
 */
export async function startAgentFleet(
  nodes: number,
  agents: Omit<SimulatedNodeAgentsOptions, 'stateRoot'> = {},
  options: Partial<Omit<FleetOptions, 'clientFor' | 'kubeletClientFor' | 'adminClient' | 'agent'>> = {},
): Promise<AgentFleet> {
  const cluster = await startSimCluster();
  const stateRoot = mkdtempSync(join(tmpdir(), 'nodeherd-sim-agents-'));
  const fleet = new Fleet({
    clientFor: cluster.nodeClients,
    kubeletClientFor: cluster.kubeletClients,
    adminClient: cluster.admin,
    leaseDurationSeconds: GRACE_MS / 1000,
    renewIntervalMs: GRACE_MS / 4,
    startupNotReadyMs: 300,
    ...options,
    agent: simulatedNodeAgents({ stateRoot, ...agents }),
  });
  await fleet.add(nodes);
  return {
    cluster,
    fleet,
    async stop() {
      await fleet.close();
      await cluster.stop();
      rmSync(stateRoot, { recursive: true, force: true });
    },
  };
}
