// The whole system on one machine: the embedded control plane, the rollout controller under its own
// identity, nodes running the real agent (simulated machines, or systemd-nspawn containers), and the
// sample pool. Stopped agents first, then the controller, then the API server, so every component
// finishes what it was writing before what it writes to goes away. The controller starts last, once
// the nodes are back and Ready: it judges nodes by their Ready condition and by when their update
// started, and a rerun finds the Nodes as the last run left them (a node restarting its kubelet:
// NotReady, its update started long ago), which it took for an update that failed.

import { readFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { join } from 'node:path';
import pino, { type Logger } from 'pino';
import { JsonLogger } from '../agent/logger.ts';
import { ApiServer } from '../apiserver/api-server.ts';
import { adminKubeconfigPath } from '../apiserver/auth/credentials.ts';
import { RolloutController } from '../controller/rollout-controller.ts';
import { isReady } from '../kube/conditions.ts';
import { KubeClient } from '../kube/kube-client.ts';
import { loadKubeConfig } from '../kube/kube-config.ts';
import { LightKubeClient } from '../kube/light/light-kube-client.ts';
import type { Node } from '../kube/types.ts';
import { nodeherdProfile } from '../profile/nodeherd-profile.ts';
import type { NodeSet, NodeSetContext } from '../sim/node-set.ts';
import { SimulatedDaemonSetController } from '../sim/simulated-daemonset-controller.ts';
import { SimulatedNodes } from '../sim/simulated-nodes.ts';
import { SimulatedPodStatus } from '../sim/simulated-pod-status.ts';
import { writeFileAtomic } from '../util/atomic-write.ts';
import { NodeApiServer } from './node-api-server.ts';
import { applySamplesIfAbsent, type SampleResult } from './samples.ts';
import { StateDirectory } from './state-directory.ts';

export interface LocalClusterOptions {
  stateDir: string;
  /** Simulated nodes (ignored when `nodeSet` is given). */
  nodes: number;
  /** Of those, the last this many are RPM nodes (dnf; docs/operations.md, RPM nodes). */
  rpmNodes?: number;
  /** 0 picks a free port. */
  port: number;
  host?: string;
  logLevel?: string;
  /** Starts other nodes than the simulated fleet (e.g. containers). */
  nodeSet?: (context: NodeSetContext) => Promise<NodeSet>;
  /** Extra names/addresses for the serving certificate. */
  extraSans?: string[];
  /** Served at /nodeherd/agent/ for nodeherd-init. */
  artefactDirectory?: string;
  /** Told what is happening while the cluster starts. */
  onStep?: (message: string) => void;
  /**
   * Port on `host` of the simulated nodes' agent APIs (/nodes/<node>/v1/update, …); 0 (the default)
   * picks a free one. Not used with `nodeSet` (such nodes serve their own).
   */
  nodeApiPort?: number;
}

const SAMPLES_RECORD = 'samples.json';
/** How long the controller waits for the nodes to be Ready (a node that stays down is its business). */
const READY_WAIT_MS = 30_000;

export class LocalCluster {
  readonly state: StateDirectory;
  readonly server: ApiServer;
  readonly admin: KubeClient;
  readonly nodes: NodeSet;
  readonly samples: SampleResult[];
  /** Serves every simulated node's agent API; undefined when the nodes serve their own. */
  readonly nodeApi: NodeApiServer | undefined;
  private readonly adminLight: LightKubeClient;
  private readonly controller: RolloutController;
  private readonly log: Logger;
  private readonly unlock: () => Promise<void>;
  private stopping: Promise<void> | undefined;

  private constructor(parts: {
    state: StateDirectory;
    server: ApiServer;
    admin: KubeClient;
    adminLight: LightKubeClient;
    controller: RolloutController;
    nodes: NodeSet;
    samples: SampleResult[];
    nodeApi: NodeApiServer | undefined;
    log: Logger;
    unlock: () => Promise<void>;
  }) {
    this.state = parts.state;
    this.server = parts.server;
    this.admin = parts.admin;
    this.adminLight = parts.adminLight;
    this.controller = parts.controller;
    this.nodes = parts.nodes;
    this.samples = parts.samples;
    this.nodeApi = parts.nodeApi;
    this.log = parts.log;
    this.unlock = parts.unlock;
  }

  get kubeconfigPath(): string {
    return adminKubeconfigPath(this.state.apiserver);
  }

  get url(): string {
    return this.server.url;
  }

  static async start(options: LocalClusterOptions): Promise<LocalCluster> {
    const step = options.onStep ?? (() => {});
    const state = new StateDirectory(options.stateDir);
    const host = options.host ?? '127.0.0.1';
    const unlock = await state.lock();
    // One log file for every component; agents write through the agent's own small JSON logger.
    const destination = pino.destination({ dest: state.logFile, append: true, sync: false });
    const log = pino({ level: options.logLevel ?? 'info' }, destination);
    const agentLog = new JsonLogger(
      { level: options.logLevel === 'debug' ? 'debug' : 'info', write: (line) => destination.write(line) },
      { component: 'agent' },
    );
    const started: { stop(): Promise<void> | void }[] = [];
    try {
      if (options.port !== 0) await assertPortFree(host, options.port);
      // Bound first, so a busy port stops the start before anything else runs.
      const nodeApi = options.nodeSet
        ? undefined
        : await NodeApiServer.listen({ host, port: options.nodeApiPort ?? 0 }).catch(
            (error: NodeJS.ErrnoException) => {
              throw error.code === 'EADDRINUSE' ? nodeApiPortTakenError(options.nodeApiPort ?? 0) : error;
            },
          );
      if (nodeApi) started.push({ stop: () => nodeApi.close() });
      step('starting the API server');
      const server = await ApiServer.start({
        dataDir: state.apiserver,
        port: options.port,
        host,
        logger: log.child({ component: 'apiserver' }),
        ...(options.extraSans ? { extraSans: options.extraSans } : {}),
        profile: nodeherdProfile(
          options.artefactDirectory ? { artefactDirectory: options.artefactDirectory } : {},
        ),
      }).catch((error: NodeJS.ErrnoException) => {
        throw error.code === 'EADDRINUSE' ? portTakenError(options.port) : error;
      });
      started.push(server);
      const admin = new KubeClient(loadKubeConfig({ kubeconfig: adminKubeconfigPath(state.apiserver) }), {
        userAgent: 'nodeherd-up',
      });
      const adminLight = LightKubeClient.fromKubeconfig(adminKubeconfigPath(state.apiserver), {
        userAgent: 'nodeherd-up',
      });
      started.push({ stop: () => admin.close() }, { stop: () => adminLight.close() });

      const samples = await applySamples(admin, state);
      const context: NodeSetContext = { server, admin, adminLight, state, log, agentLog };
      const nodes = options.nodeSet
        ? await options.nodeSet(context)
        : await startSimulatedNodes(context, options.nodes, step, options.rpmNodes ?? 0);
      started.push(nodes);
      step('waiting for the agents to start');
      await nodes.settled();
      step('waiting for the nodes to be Ready');
      const notReady = await waitForReadyNodes(admin, nodes.names, READY_WAIT_MS);
      if (notReady.length > 0)
        log.warn({ nodes: notReady }, 'nodes not Ready; starting the controller anyway');

      step('starting the rollout controller');
      await server.issueCredential('controller', undefined, state.controllerKubeconfig);
      const controller = new RolloutController({
        kubeConfig: loadKubeConfig({ kubeconfig: state.controllerKubeconfig }),
        logger: log.child({ component: 'controller' }),
        identity: 'nodeherd-up',
      });
      await controller.start();
      started.push(controller);
      const localApi = nodes.localApi?.bind(nodes);
      if (nodeApi && localApi) {
        nodeApi.serve({
          get names() {
            return nodes.names;
          },
          localApi,
        });
      }
      return new LocalCluster({
        state,
        server,
        admin,
        adminLight,
        controller,
        nodes,
        samples,
        nodeApi,
        log,
        unlock,
      });
    } catch (error) {
      for (const part of started.reverse()) await Promise.resolve(part.stop()).catch(() => {});
      log.flush();
      await unlock();
      throw error;
    }
  }

  /** Agents first, then the controller, then the API server; safe to call more than once. */
  stop(): Promise<void> {
    this.stopping ??= (async () => {
      await this.nodeApi?.close();
      await this.nodes.stop();
      await this.controller.stop();
      this.admin.close();
      this.adminLight.close();
      await this.server.stop();
      await new Promise<void>((resolve) => this.log.flush(() => resolve()));
      await this.unlock();
    })();
    return this.stopping;
  }
}

async function startSimulatedNodes(
  context: NodeSetContext,
  count: number,
  step: (message: string) => void,
  rpmNodes: number,
): Promise<NodeSet> {
  step(`starting ${count} simulated node${count === 1 ? '' : 's'}`);
  const log = context.log.child({ component: 'simulator' });
  // Simulated nodes have no kubelet to run pods: these stand in for kube's DaemonSet controller and
  // the kubelets' pod status, so DaemonSets (and nodeherd's DaemonSet strategies) work in `up` too.
  const daemonSets = new SimulatedDaemonSetController({ client: context.admin, logger: log });
  const podStatus = new SimulatedPodStatus({ client: context.admin, logger: log });
  await daemonSets.start();
  await podStatus.start();
  try {
    const nodes = await SimulatedNodes.start({
      ...context,
      count,
      rpmNodes,
      logger: context.agentLog,
      onError: (node, error) => log.warn({ node, err: error }, 'simulated node error'),
      // journalctl of the simulated machines: why a kubelet or a unit failed to start.
      onJournal: (node, unit, message) => log.info({ node, unit }, message),
    });
    return {
      get names() {
        return nodes.names;
      },
      settled: () => nodes.settled(),
      localApi: (node) => nodes.localApi(node),
      stop: async () => {
        await nodes.stop();
        await podStatus.stop();
        await daemonSets.stop();
      },
    };
  } catch (error) {
    await podStatus.stop();
    await daemonSets.stop();
    throw error;
  }
}

/** Waits until every named Node is Ready, at most `timeoutMs`; returns those that are not. */
async function waitForReadyNodes(admin: KubeClient, names: string[], timeoutMs: number): Promise<string[]> {
  const deadline = performance.now() + timeoutMs;
  for (;;) {
    const list = await admin.list<Node>('/api/v1/nodes');
    const ready = new Set(list.items.filter((n) => isReady(n)).map((n) => n.metadata.name));
    const waiting = names.filter((name) => !ready.has(name));
    if (waiting.length === 0 || performance.now() > deadline) return waiting;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** The samples, once per state directory (see samples.ts). */
async function applySamples(admin: KubeClient, state: StateDirectory): Promise<SampleResult[]> {
  const recordPath = join(state.root, SAMPLES_RECORD);
  let done: string[] = [];
  try {
    done = JSON.parse(await readFile(recordPath, 'utf8')) as string[];
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
  const results = await applySamplesIfAbsent(admin, new Set(done));
  const keys = [...new Set([...done, ...results.map((r) => r.key)])].sort();
  await writeFileAtomic(recordPath, `${JSON.stringify(keys)}\n`, { mode: 0o600 });
  return results;
}

function portTakenError(port: number): Error {
  return new Error(
    `--port ${port}: the port is already in use (another nodeherd up or API server?); stop it or choose another --port (0 picks a free one)`,
  );
}

function nodeApiPortTakenError(port: number): Error {
  return new Error(
    `--node-api-port ${port}: the port is already in use (another nodeherd up, or a node agent?); stop it or choose another --node-api-port (0 picks a free one)`,
  );
}

function assertPortFree(host: string, port: number): Promise<void> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', (error: NodeJS.ErrnoException) =>
      reject(error.code === 'EADDRINUSE' ? portTakenError(port) : error),
    );
    probe.listen(port, host, () => probe.close(() => resolve()));
  });
}
