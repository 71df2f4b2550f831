// Runs the real nodeherd agent (NodeAgent) on each simulated node: the node's own client, its
// simulated systemd, apt, in-memory files and host, health probes answered by the simulation, and a
// state directory per node on disk (so a node that is killed and started again resumes from its
// journal, like a real one).

import { join } from 'node:path';
import { NodeAgent, type NodeAgentOptions } from '../agent/node-agent.ts';
import type { AgentFactory } from './simulated-node.ts';
import { type ProbeRule, SimulatedProbes } from './simulated-probes.ts';

export interface SimulatedNodeAgentsOptions {
  /** One state directory per node is made below this one. */
  stateRoot: string;
  /** Probe outcomes that differ from the simulation's defaults. */
  probeRule?: ProbeRule;
  /** Anything else the agents should be configured with (timeouts, retries, logger, watch tuning). */
  agent?: Omit<NodeAgentOptions, 'nodeName' | 'client' | 'stateDir' | 'executors' | 'host' | 'probes'>;
  /**
   * Nodes whose agent is of a release before pre-staging: it does not answer nodeherd.io/prestage-revision
   * (NodeAgentOptions.prestage false). Asked when the node's agent starts.
   */
  withoutPrestage?: (nodeName: string) => boolean;
}

/** The factory also finds the running agent of a node (its OTA update API, its Serial slot). */
export type SimulatedNodeAgentFactory = AgentFactory & { agentOf(nodeName: string): NodeAgent | undefined };

export function simulatedNodeAgents(options: SimulatedNodeAgentsOptions): SimulatedNodeAgentFactory {
  const agents = new Map<string, NodeAgent>();
  const factory: AgentFactory = (context) => {
    const agent = new NodeAgent({
      // Simulated units come up at once; the default 250 ms between checks would dominate an apply.
      verifyIntervalMs: 50,
      onHostRestart: context.onHostRestart,
      ...options.agent,
      ...(options.withoutPrestage?.(context.nodeName) ? { prestage: false } : {}),
      nodeName: context.nodeName,
      client: context.client,
      stateDir: join(options.stateRoot, context.nodeName),
      executors: { files: context.files, systemd: context.systemd, packages: context.packages },
      host: context.host,
      probes: new SimulatedProbes({
        kubeletRunning: () => context.kubeletRunning(),
        locateExecutable: (program) => context.locateExecutable(program),
        ...(options.probeRule ? { rule: options.probeRule } : {}),
      }),
    });
    agents.set(context.nodeName, agent);
    return agent;
  };
  return Object.assign(factory, { agentOf: (nodeName: string) => agents.get(nodeName) });
}
