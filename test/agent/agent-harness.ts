// Shared setup of the agent's integration tests: the real embedded API server, a Node with its own
// agent credential, revisions rendered by the real renderer, and an in-process agent with the real
// file backend in a temporary root and simulated systemd, apt and host.

import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { LocalFileExecutor } from '../../src/agent/executors/local-file-executor.ts';
import { SimulatedPackages } from '../../src/agent/executors/simulated-packages.ts';
import {
  SimulatedSystemd,
  type SimulatedSystemdOptions,
} from '../../src/agent/executors/simulated-systemd.ts';
import { SimulatedHost } from '../../src/agent/host/simulated-host.ts';
import { JsonLogger, silentLogger } from '../../src/agent/logger.ts';
import { NodeAgent, type NodeAgentOptions } from '../../src/agent/node-agent.ts';
import type { NodeObject } from '../../src/agent/watch/kube-objects.ts';
import { DESIRED_REVISION_ANNOTATION, MESSAGE_ANNOTATION } from '../../src/api/node-protocol.ts';
import type { NodeConfigPoolSpec, NodeConfigRevision, NodeConfigSpec } from '../../src/api/types.ts';
import { LightKubeClient } from '../../src/kube/light/light-kube-client.ts';
import type { KubeObject } from '../../src/kube/light/types.ts';
import { eventually } from '../support/eventually.ts';
import { type LocalApiServer, startLocalApiServer } from '../support/local-apiserver.ts';
import { revisionOf } from '../support/nodeherd-objects.ts';

export const REVISIONS = '/apis/nodeherd.io/v1alpha1/nodeconfigrevisions';
export const POOLS = '/apis/nodeherd.io/v1alpha1/nodeconfigpools';

export interface Cluster {
  api: LocalApiServer;
  admin: LightKubeClient;
  dir: string;
  /** Nodes started on this cluster and not stopped yet; stop() stops them first. */
  nodes: Set<TestNode>;
  stop(): Promise<void>;
}

export async function startCluster(): Promise<Cluster> {
  const api = await startLocalApiServer();
  const admin = LightKubeClient.fromKubeconfig(api.kubeconfigPath);
  const dir = mkdtempSync(join(tmpdir(), 'nodeherd-agent-test-'));
  const nodes = new Set<TestNode>();
  return {
    api,
    admin,
    dir,
    nodes,
    async stop() {
      for (const node of [...nodes]) await node.stop();
      admin.close();
      await api.stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** A config file and the unit its change restarts: `value` makes each revision different. */
export function demoServiceSpec(value: string): NodeConfigSpec {
  return {
    files: [{ path: '/etc/demo/app.conf', content: { inline: { data: `value=${value}\n` } } }],
    units: [
      {
        name: 'demo.service',
        content: '[Service]\nExecStart=/bin/true\n',
        filePaths: ['/etc/demo/app.conf'],
      },
    ],
  };
}

let revisionCounter = 0;

/** Renders `spec` as pool `pool`'s revision and creates it (idempotent for identical specs). */
export async function createRevision(
  cluster: Cluster,
  pool: string,
  spec: NodeConfigSpec,
): Promise<NodeConfigRevision> {
  const revision = revisionOf(pool, spec, ++revisionCounter);
  try {
    await cluster.admin.create(REVISIONS, revision);
  } catch (error) {
    if ((error as { status?: number }).status !== 409) throw error;
  }
  return revision;
}

export async function createPool(
  cluster: Cluster,
  name: string,
  spec: Partial<NodeConfigPoolSpec>,
): Promise<void> {
  await cluster.admin.create(POOLS, {
    apiVersion: 'nodeherd.io/v1alpha1',
    kind: 'NodeConfigPool',
    metadata: { name },
    spec: { nodeSelector: {}, configSelector: {}, ...spec },
  });
}

export async function createNode(cluster: Cluster, name: string): Promise<void> {
  await cluster.admin.create('/api/v1/nodes', { apiVersion: 'v1', kind: 'Node', metadata: { name } });
}

export async function setDesired(cluster: Cluster, node: string, revision: string | null): Promise<void> {
  await cluster.admin.patch(`/api/v1/nodes/${node}`, {
    metadata: { annotations: { [DESIRED_REVISION_ANNOTATION]: revision } },
  });
}

export function getNode(cluster: Cluster, node: string): Promise<NodeObject> {
  return cluster.admin.get<NodeObject>(`/api/v1/nodes/${node}`);
}

export interface EventObject extends KubeObject {
  reason?: string;
  message?: string;
  type?: string;
  involvedObject?: { kind?: string; name?: string };
}

export async function nodeEvents(cluster: Cluster, node: string): Promise<EventObject[]> {
  const list = await cluster.admin.list<EventObject>('/api/v1/namespaces/default/events');
  return list.items.filter((e) => e.involvedObject?.kind === 'Node' && e.involvedObject.name === node);
}

/** Waits until the Node's state annotation is `state` for `revision` (current or named in the message). */
export function waitForState(
  cluster: Cluster,
  node: string,
  state: string,
  timeoutMs?: number,
): Promise<NodeObject> {
  return eventually(
    `node ${node} state ${state}`,
    async () => {
      const object = await getNode(cluster, node);
      return object.metadata?.annotations?.['nodeherd.io/state'] === state ? object : undefined;
    },
    timeoutMs,
  );
}

/** Waits until the Node's message annotation matches `pattern`. */
export function waitForMessage(cluster: Cluster, node: string, pattern: RegExp): Promise<NodeObject> {
  return eventually(`node ${node} message ${pattern}`, async () => {
    const object = await getNode(cluster, node);
    return pattern.test(object.metadata?.annotations?.[MESSAGE_ANNOTATION] ?? '') ? object : undefined;
  });
}

export interface TestNode {
  name: string;
  root: string;
  stateDir: string;
  files: LocalFileExecutor;
  systemd: SimulatedSystemd;
  packages: SimulatedPackages;
  host: SimulatedHost;
  client: LightKubeClient;
  agent: NodeAgent;
  /** A new agent on the same node (same root, state, simulated systemd), as after a restart. */
  restart(overrides?: Partial<NodeAgentOptions>): Promise<NodeAgent>;
  stop(): Promise<void>;
}

export async function startNode(
  cluster: Cluster,
  name: string,
  options: {
    systemd?: SimulatedSystemdOptions;
    agent?: Partial<NodeAgentOptions>;
    createNode?: boolean;
  } = {},
): Promise<TestNode> {
  if (options.createNode !== false) await createNode(cluster, name);
  const kubeconfig = join(cluster.dir, `${name}.kubeconfig`);
  await cluster.api.server.issueCredential('node', name, kubeconfig);
  const root = join(cluster.dir, name, 'root');
  const stateDir = join(cluster.dir, name, 'state');
  mkdirSync(root, { recursive: true });
  const files = new LocalFileExecutor(root);
  const systemd = new SimulatedSystemd(options.systemd);
  const packages = new SimulatedPackages({ available: { htop: ['3.2.1', '3.2.2'], curl: ['7.88'] } });
  const host = new SimulatedHost();
  const client = LightKubeClient.fromKubeconfig(kubeconfig);
  const make = (overrides: Partial<NodeAgentOptions> = {}) =>
    new NodeAgent({
      nodeName: name,
      client,
      stateDir,
      executors: { files, systemd, packages },
      host,
      unitTimeoutMs: 2000,
      verifyIntervalMs: 20,
      // NODEHERD_TEST_LOG=debug shows the agents' logs.
      logger: process.env.NODEHERD_TEST_LOG ? new JsonLogger({ level: 'debug' }) : silentLogger,
      retry: { initialMs: 60_000, maxMs: 60_000 },
      ...options.agent,
      ...overrides,
    });
  const node: TestNode = {
    name,
    root,
    stateDir,
    files,
    systemd,
    packages,
    host,
    client,
    agent: make(),
    async restart(overrides) {
      await node.agent.stop();
      node.agent = make(overrides);
      await node.agent.start();
      return node.agent;
    },
    async stop() {
      cluster.nodes.delete(node);
      await node.agent.stop();
      client.close();
    },
  };
  cluster.nodes.add(node);
  await node.agent.start();
  return node;
}
