// The simulated nodes of `nodeherd up`: a Fleet of N simulated machines (kubelet, Lease, Ready,
// simulated systemd and apt), each with its own node identity and the real NodeAgent. Unlike the
// throw-away fleets of the tests, every node keeps its state in the state directory (agent journal
// and last-applied revision, files, units, kubeconfig), so a second run resumes where the first
// stopped: nodes keep their revisions and nothing is applied again.

import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { DurableSimulatedSystemd } from '../agent/executors/durable-simulated-systemd.ts';
import { mountAgentLocalApis } from '../agent/http/agent-local-apis.ts';
import { mountHealthRoutes, RouteTable } from '../agent/http/route-table.ts';
import type { Logger as AgentLogger } from '../agent/logger.ts';
import { NodeAgent } from '../agent/node-agent.ts';
import type { ApiServer } from '../apiserver/api-server.ts';
import type { KubeClient } from '../kube/kube-client.ts';
import { isKubeError } from '../kube/kube-error.ts';
import type { LightKubeClient } from '../kube/light/light-kube-client.ts';
import { DurableNodeFiles } from './durable-node-files.ts';
import { DurableNodePackages } from './durable-node-packages.ts';
import { Fleet, RPM_OS_IMAGE } from './fleet.ts';
import { type KubeletSystemd, replayedBeforeBoot } from './kubelet-systemd.ts';
import { embeddedKubeletIdentities, embeddedNodeIdentities } from './node-clients.ts';
import { SIMULATED_LABEL } from './node-object.ts';
import type { NodeStateDirectory } from './node-set.ts';
import type { SimulatedNode } from './simulated-node.ts';
import { SimulatedProbes } from './simulated-probes.ts';

export const NODE_NAME_PREFIX = 'sim-';
/** On simulated RPM nodes (`nodeherd up --rpm-nodes`): a label a pool's nodeSelector can pick them by. */
export const OS_FAMILY_LABEL = 'os-family';
const ZONES = ['zone-a', 'zone-b', 'zone-c'];

export function simulatedNodeName(index: number): string {
  return `${NODE_NAME_PREFIX}${String(index).padStart(4, '0')}`;
}

export interface SimulatedNodesOptions {
  server: ApiServer;
  /** The admin client: watches the simulated Nodes, deletes the ones beyond `count`. */
  admin: KubeClient;
  adminLight: LightKubeClient;
  state: NodeStateDirectory;
  count: number;
  /** The last this many of the nodes are RPM nodes (dnf, a Rocky Linux osImage, label os-family=rpm). */
  rpmNodes?: number;
  logger: AgentLogger;
  onError?: (node: string, error: Error) => void;
  /** Each line a node's journal gets (systemd's and the kubelet's). */
  onJournal?: (node: string, unit: string, message: string) => void;
}

interface DurableParts {
  files: DurableNodeFiles;
  /** Keeps node.packages on disk (the agent uses node.packages itself). */
  packages: DurableNodePackages;
  systemd: DurableSimulatedSystemd<KubeletSystemd>;
}

/** The packages (oldest version first) `nodeherd up`'s simulated apt can install; docs/operations.md. */
export const UP_PACKAGE_CATALOGUE: Record<string, string[]> = {
  htop: ['3.2.1-1', '3.2.2-1'],
  jq: ['1.6-2.1', '1.7.1-3'],
};

export class SimulatedNodes {
  readonly fleet: Fleet;
  private readonly agents = new Map<string, NodeAgent>();
  /** Each node's local API, as its agent would serve it on the node (NodeApiServer serves them). */
  private readonly localApis = new Map<string, RouteTable>();

  private constructor(fleet: Fleet) {
    this.fleet = fleet;
  }

  static async start(options: SimulatedNodesOptions): Promise<SimulatedNodes> {
    const { state } = options;
    await removeNodesBeyond(options.admin, state, options.count);
    const durable = new Map<string, DurableParts>();
    let nodes: SimulatedNodes | undefined;
    const fleet = new Fleet({
      clientFor: embeddedNodeIdentities(options.server, state.nodes),
      kubeletClientFor: embeddedKubeletIdentities(options.server, state.nodes),
      adminClient: options.adminLight,
      namePrefix: NODE_NAME_PREFIX,
      // A kubelet restart shows: NotReady for two seconds, as a real kubelet takes to come back.
      startupNotReadyMs: 2_000,
      systemd: { targetDurations: { 'kubelet.service': { restart: 500 } } },
      // What the distribution's mirror offers `nodeherd up`'s nodes, downloads taking a few seconds
      // as on a real mirror: pre-staging (spec.prestage) moves them out of the node's turn.
      packages: { available: UP_PACKAGE_CATALOGUE, durations: { download: 3_000, install: 300 } },
      onError: (node, error) => options.onError?.(node, error),
      ...(options.onJournal ? { onJournal: options.onJournal } : {}),
      agent: (context) => {
        const parts = durable.get(context.nodeName);
        if (!parts) throw new Error(`node ${context.nodeName} was not prepared`);
        const agent = new NodeAgent({
          verifyIntervalMs: 100,
          nodeName: context.nodeName,
          client: context.client,
          stateDir: join(state.node(context.nodeName), 'agent'),
          executors: { files: parts.files, systemd: parts.systemd, packages: context.packages },
          host: context.host,
          onHostRestart: context.onHostRestart,
          probes: new SimulatedProbes({
            kubeletRunning: () => context.kubeletRunning(),
            locateExecutable: (program) => context.locateExecutable(program),
          }),
          logger: options.logger,
        });
        nodes?.agents.set(context.nodeName, agent);
        const routes = new RouteTable();
        mountHealthRoutes(routes, agent);
        mountAgentLocalApis(routes, {
          updates: agent.updates,
          client: context.client,
          nodeName: context.nodeName,
        });
        // Simulation only: the machine's OS asks for a reboot (Debian's sentinel), as after a
        // kernel upgrade, and the agent checks at once instead of at its next period.
        routes.route('POST', '/v1/simulation/reboot-required', async (_request, response) => {
          await fleet.node(context.nodeName)?.requireReboot();
          agent.requestRebootCheck('simulation');
          response.writeHead(202, { 'content-type': 'application/json' });
          response.end(`${JSON.stringify({ node: context.nodeName, rebootRequired: true })}\n`);
        });
        nodes?.localApis.set(context.nodeName, routes);
        return agent;
      },
    });
    nodes = new SimulatedNodes(fleet);
    const created: SimulatedNode[] = [];
    for (let index = 1; index <= options.count; index++) {
      const name = simulatedNodeName(index);
      const rpm = index > options.count - (options.rpmNodes ?? 0);
      const node = await fleet.create(
        {
          name,
          roles: ['worker'],
          zone: ZONES[(index - 1) % ZONES.length]!,
          ...(rpm ? { osImage: RPM_OS_IMAGE, labels: { [OS_FAMILY_LABEL]: 'rpm' } } : {}),
        },
        rpm ? { packages: { manager: 'dnf' } } : {},
      );
      const dir = state.node(name);
      durable.set(name, {
        files: await DurableNodeFiles.restore(node.files, join(dir, 'files.json')),
        packages: await DurableNodePackages.restore(node.packages, join(dir, 'packages.json')),
        systemd: await DurableSimulatedSystemd.attach(
          node.systemd,
          join(dir, 'systemd.jsonl'),
          replayedBeforeBoot(node.systemd.kubeletUnit),
        ),
      });
      created.push(node);
    }
    await fleet.startAll(created);
    return nodes;
  }

  get names(): string[] {
    return this.fleet.names();
  }

  /** The routes the node's current agent serves locally (/v1/update, /v1/pods, /healthz, …). */
  localApi(node: string): RouteTable | undefined {
    return this.localApis.get(node);
  }

  /**
   * Resolves once every agent watches its Node and has finished its first reconcile: from then on a
   * node that had nothing to do has shown it (no apply started).
   */
  async settled(timeoutMs = 120_000): Promise<void> {
    const deadline = performance.now() + timeoutMs;
    for (const name of this.names) {
      for (;;) {
        const agent = this.agents.get(name);
        if (agent?.status.synced) {
          await agent.whenIdle();
          break;
        }
        if (performance.now() > deadline) throw new Error(`the agent of ${name} did not start in time`);
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    }
  }

  /** Stops every agent and kubelet; the Nodes stay (and turn Unknown until the next run). */
  async stop(): Promise<void> {
    await this.fleet.close();
  }
}

/** Deletes simulated Nodes (and their state) a previous run made beyond `count` (a smaller --nodes). */
async function removeNodesBeyond(admin: KubeClient, state: NodeStateDirectory, count: number): Promise<void> {
  const list = await admin.list<{ metadata: { name: string } } & { apiVersion?: string; kind?: string }>(
    '/api/v1/nodes',
    { labelSelector: `${SIMULATED_LABEL}=true` },
  );
  for (const node of list.items) {
    const name = node.metadata.name;
    const index = name.startsWith(NODE_NAME_PREFIX)
      ? Number(name.slice(NODE_NAME_PREFIX.length))
      : Number.NaN;
    if (!Number.isInteger(index) || index <= count) continue;
    try {
      await admin.delete(`/api/v1/nodes/${name}`);
    } catch (error) {
      if (!isKubeError(error, 404)) throw error;
    }
    // A node added again later starts afresh, as a new machine would.
    await rm(state.node(name), { recursive: true, force: true });
    await rm(join(state.nodes, `${name}.kubeconfig`), { force: true });
  }
}
