// A fleet of simulated nodes in one process: starts N nodes (a bounded number registering at once),
// stops, kills, reboots, partitions, flaps or removes single nodes, and lists every node's state as
// the node sees it and as the server holds it. Heartbeats of all nodes share one timer wheel, and one
// watch over all simulated Nodes stands in for each kubelet's periodic status check.

import {
  CURRENT_REVISION_ANNOTATION,
  DESIRED_REVISION_ANNOTATION,
  STATE_ANNOTATION,
} from '../api/node-protocol.ts';
import type { PackageManagerName } from '../api/packages/registry.ts';
import { isKubeError } from '../kube/kube-error.ts';
import { resourcePath } from '../kube/light/api-paths.ts';
import type { LightKubeClient } from '../kube/light/light-kube-client.ts';
import type { KubeObject } from '../kube/light/types.ts';
import { HeartbeatWheel } from './heartbeat-wheel.ts';
import { NodeCollectionWatch } from './node-collection-watch.ts';
import { type NodeDescription, readyConditionOf, SIMULATED_LABEL } from './node-object.ts';
import type { KubeletActivity, KubeletTiming } from './simulated-kubelet.ts';
import { SimulatedNode, type SimulatedNodeOptions, type SimulatedNodeSnapshot } from './simulated-node.ts';

export type ClientFactory = (nodeName: string) => LightKubeClient | Promise<LightKubeClient>;

/** What every node of an add() shares; per-node values are derived from the node's index. */
export interface NodeTemplate extends Omit<NodeDescription, 'name' | 'zone'> {
  /** Zones assigned round-robin (default zone-a, zone-b, zone-c). */
  zones?: readonly string[];
  /** Node names are <prefix><index>, e.g. sim-0001 (default from the fleet). */
  namePrefix?: string;
  /**
   * The OS family's package manager: `dnf` makes an RPM node (its simulated packages follow dnf's rules,
   * its agent reports dnf, its osImage is Rocky Linux unless given). Default apt (Debian).
   */
  packageManager?: PackageManagerName;
}

/** The osImage of a simulated RPM node. */
export const RPM_OS_IMAGE = 'Rocky Linux 9.4 (Blue Onyx)';

export interface FleetOptions
  extends KubeletTiming,
    Pick<SimulatedNodeOptions, 'systemd' | 'packages' | 'kubeletUnit' | 'faults' | 'agent' | 'rebootDownMs'> {
  /** The client each node's agent talks through: its own node identity, or one shared client. */
  clientFor: ClientFactory;
  /** The client each node's kubelet talks through (default: the agent's, clientFor). */
  kubeletClientFor?: ClientFactory;
  /** Watches all simulated Nodes and deletes removed ones; never closed by the fleet. */
  adminClient: LightKubeClient;
  /** Default node template for add(). */
  template?: NodeTemplate;
  /** Default `sim-`. */
  namePrefix?: string;
  /** Nodes registering at the same time during add() (default 32). */
  startConcurrency?: number;
  /** At least this long between two node starts, so nodes join over time (default 0). */
  startIntervalMs?: number;
  /** Share one watch of the simulated Nodes (default true). */
  watchNodes?: boolean;
  onError?: (nodeName: string, error: Error, during: KubeletActivity | 'agent' | 'watch') => void;
  /** Each line a node's journal gets (systemd's and the kubelet's), with its unit. */
  onJournal?: (nodeName: string, unit: string, message: string) => void;
  /** Every change of a simulated Node the shared watch sees (undefined: deleted). */
  onServerChange?: (nodeName: string, node: KubeObject | undefined) => void;
}

/** A node's state: the simulator's side and the server's side. */
export interface FleetNodeState extends SimulatedNodeSnapshot {
  /** Ready condition status the server holds (True, False, Unknown), if the shared watch saw the Node. */
  serverReady: string | undefined;
  /** Whether the Node object exists on the server (as far as the shared watch knows). */
  registered: boolean;
  desiredRevision: string | undefined;
  currentRevision: string | undefined;
  agentState: string | undefined;
}

export interface FleetCounts {
  nodes: number;
  up: number;
  /** Nodes whose kubelet reports Ready=True and sends heartbeats. */
  ready: number;
  /** Nodes the server holds as Ready=True. */
  serverReady: number;
  serverNotReady: number;
  serverUnknown: number;
}

interface ServerView {
  ready: string | undefined;
  desiredRevision: string | undefined;
  currentRevision: string | undefined;
  agentState: string | undefined;
}

export class Fleet {
  readonly wheel: HeartbeatWheel;
  private readonly options: FleetOptions;
  private readonly nodes = new Map<string, SimulatedNode>();
  private readonly server = new Map<string, ServerView>();
  /** The clients the fleet made, with the nodes using each (several when a factory shares one). */
  private readonly clients = new Map<LightKubeClient, Set<string>>();
  private readonly watch: NodeCollectionWatch | undefined;
  private nextIndex = 1;
  private closed = false;

  constructor(options: FleetOptions) {
    this.options = options;
    const renewIntervalMs = options.renewIntervalMs ?? ((options.leaseDurationSeconds ?? 40) * 1000) / 4;
    this.wheel = new HeartbeatWheel({ periodMs: renewIntervalMs });
    if (options.watchNodes !== false) {
      this.watch = new NodeCollectionWatch(options.adminClient, {
        labelSelector: `${SIMULATED_LABEL}=true`,
        onNode: (name, node) => this.observed(name, node),
        onError: (error) => this.options.onError?.('', error, 'watch'),
      }).start();
    }
  }

  get size(): number {
    return this.nodes.size;
  }

  names(): string[] {
    return [...this.nodes.keys()];
  }

  node(name: string): SimulatedNode | undefined {
    return this.nodes.get(name);
  }

  /** Resolves once the shared watch has listed the Nodes (immediately without one). */
  async synced(): Promise<void> {
    await this.watch?.synced;
  }

  /**
   * Creates and starts `count` nodes from the template (startConcurrency registering at once);
   * resolves with them once all have registered.
   */
  async add(count: number, template: NodeTemplate = this.options.template ?? {}): Promise<SimulatedNode[]> {
    const created: SimulatedNode[] = [];
    const { packageManager, ...rest } = template;
    const rpm = packageManager !== undefined && packageManager !== 'apt';
    const os: NodeTemplate = rpm ? { osImage: RPM_OS_IMAGE, ...rest } : rest;
    const overrides: Partial<SimulatedNodeOptions> = rpm
      ? { packages: { ...this.options.packages, manager: packageManager } }
      : {};
    for (let i = 0; i < count; i++) created.push(await this.create(this.describe(os), overrides));
    await this.startAll(created);
    return created;
  }

  /** Creates one node from a full description without starting it. */
  async create(
    description: NodeDescription,
    overrides: Partial<SimulatedNodeOptions> = {},
  ): Promise<SimulatedNode> {
    if (this.closed) throw new Error('the fleet is closed');
    if (this.nodes.has(description.name)) throw new Error(`node ${description.name} is already in the fleet`);
    const client = await this.options.clientFor(description.name);
    const kubeletClient = this.options.kubeletClientFor
      ? await this.options.kubeletClientFor(description.name)
      : client;
    for (const made of new Set([client, kubeletClient])) {
      if (made === this.options.adminClient) continue;
      const users = this.clients.get(made) ?? new Set<string>();
      users.add(description.name);
      this.clients.set(made, users);
    }
    const { onError, onJournal } = this.options;
    const node = new SimulatedNode({
      ...this.nodeOptions(),
      ...overrides,
      node: description,
      client,
      kubeletClient,
      wheel: this.wheel,
      onError: (error, during) => onError?.(description.name, error, during),
      ...(onJournal ? { onJournal: (unit, message) => onJournal(description.name, unit, message) } : {}),
    });
    this.nodes.set(description.name, node);
    return node;
  }

  /** Starts the given nodes with bounded concurrency. */
  async startAll(nodes: readonly SimulatedNode[] = [...this.nodes.values()]): Promise<void> {
    const queue = [...nodes];
    const interval = this.options.startIntervalMs ?? 0;
    let nextStart = performance.now();
    const workers = Array.from(
      { length: Math.min(queue.length, this.options.startConcurrency ?? 32) },
      async () => {
        for (let node = queue.shift(); node !== undefined; node = queue.shift()) {
          if (interval > 0) {
            const wait = nextStart - performance.now();
            nextStart = Math.max(nextStart, performance.now()) + interval;
            if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
          }
          await node.start();
        }
      },
    );
    await Promise.all(workers);
  }

  /** Shuts a node down; its Node object stays and the server marks it Unknown after the grace period. */
  stop(name: string): Promise<void> {
    return this.get(name).stop();
  }

  /** The node vanishes at once (power loss, lost VM). */
  kill(name: string): void {
    this.get(name).kill();
  }

  /** Starts a stopped or killed node again; it re-registers (keeping its Node) and resumes. */
  start(name: string): Promise<void> {
    return this.get(name).start();
  }

  async restart(name: string): Promise<void> {
    await this.get(name).stop();
    await this.get(name).start();
  }

  reboot(name: string, downMs?: number): Promise<void> {
    return this.get(name).reboot(downMs);
  }

  /** The node's OS asks for a reboot (Debian's sentinel, with these packages); its next boot clears it. */
  requireReboot(name: string, packages?: readonly string[]): Promise<void> {
    return this.get(name).requireReboot(packages);
  }

  /** Ready=False for `durationMs` while the node stays connected. */
  flapNotReady(name: string, durationMs: number, message?: string): void {
    this.get(name).flapNotReady(durationMs, message);
  }

  /** Heartbeats stop reaching the server for `durationMs` (Infinity: until heal). */
  partition(name: string, durationMs: number): void {
    this.get(name).partition(durationMs);
  }

  heal(name: string): void {
    this.get(name).heal();
  }

  /** Kills the node, deletes its Node object (its Lease goes with it) and forgets it. */
  async remove(name: string): Promise<void> {
    const node = this.get(name);
    const stopped = node.kill();
    this.nodes.delete(name);
    try {
      await this.options.adminClient.delete(resourcePath({ apiVersion: 'v1', resource: 'nodes', name }));
    } catch (err) {
      if (!isKubeError(err, 404)) throw err;
    } finally {
      // The node's own client goes with it: its keep-alive sockets would otherwise stay open until
      // close(), and a process that removed its last node would not exit.
      await stopped;
      this.release(name);
    }
  }

  /** Closes the clients no node of the fleet uses any more after `name` is gone. */
  private release(name: string): void {
    for (const [client, users] of this.clients) {
      if (!users.delete(name) || users.size > 0) continue;
      client.close();
      this.clients.delete(client);
    }
  }

  state(name: string): FleetNodeState {
    const node = this.get(name);
    const view = this.server.get(name);
    return {
      ...node.snapshot(),
      serverReady: view?.ready,
      registered: view !== undefined,
      desiredRevision: view?.desiredRevision,
      currentRevision: view?.currentRevision,
      agentState: view?.agentState,
    };
  }

  states(): FleetNodeState[] {
    return this.names().map((name) => this.state(name));
  }

  counts(): FleetCounts {
    const counts: FleetCounts = {
      nodes: this.nodes.size,
      up: 0,
      ready: 0,
      serverReady: 0,
      serverNotReady: 0,
      serverUnknown: 0,
    };
    for (const [name, node] of this.nodes) {
      if (node.state === 'up') counts.up++;
      if (node.kubelet.heartbeating && node.kubelet.ready.ready) counts.ready++;
      const ready = this.server.get(name)?.ready;
      if (ready === 'True') counts.serverReady++;
      else if (ready === 'False') counts.serverNotReady++;
      else if (ready === 'Unknown') counts.serverUnknown++;
    }
    return counts;
  }

  /** Stops every node (Nodes stay on the server), the shared watch, and the clients the fleet made. */
  async close(): Promise<void> {
    this.closed = true;
    await Promise.all([...this.nodes.values()].map((node) => node.stop()));
    await this.watch?.stop();
    this.wheel.stop();
    for (const client of this.clients.keys()) client.close();
    this.clients.clear();
  }

  private get(name: string): SimulatedNode {
    const node = this.nodes.get(name);
    if (!node) throw new Error(`no simulated node ${name}`);
    return node;
  }

  private describe(template: NodeTemplate): NodeDescription {
    const { zones = ['zone-a', 'zone-b', 'zone-c'], namePrefix, packageManager: _, ...rest } = template;
    const index = this.nextIndex++;
    const prefix = namePrefix ?? this.options.namePrefix ?? 'sim-';
    const name = `${prefix}${String(index).padStart(4, '0')}`;
    const zone = zones.length > 0 ? zones[(index - 1) % zones.length] : undefined;
    return { roles: ['worker'], ...rest, name, ...(zone !== undefined ? { zone } : {}) };
  }

  private nodeOptions(): Omit<SimulatedNodeOptions, 'node' | 'client'> {
    const o = this.options;
    const options: Omit<SimulatedNodeOptions, 'node' | 'client'> = {};
    if (o.leaseDurationSeconds !== undefined) options.leaseDurationSeconds = o.leaseDurationSeconds;
    if (o.statusReportIntervalMs !== undefined) options.statusReportIntervalMs = o.statusReportIntervalMs;
    if (o.startupNotReadyMs !== undefined) options.startupNotReadyMs = o.startupNotReadyMs;
    if (o.systemd !== undefined) options.systemd = o.systemd;
    if (o.packages !== undefined) options.packages = o.packages;
    if (o.kubeletUnit !== undefined) options.kubeletUnit = o.kubeletUnit;
    if (o.faults !== undefined) options.faults = o.faults;
    if (o.agent !== undefined) options.agent = o.agent;
    if (o.rebootDownMs !== undefined) options.rebootDownMs = o.rebootDownMs;
    return options;
  }

  private observed(name: string, node: KubeObject | undefined): void {
    if (node === undefined) this.server.delete(name);
    else {
      const annotations = node.metadata?.annotations ?? {};
      this.server.set(name, {
        ready: readyConditionOf(node)?.status as string | undefined,
        desiredRevision: annotations[DESIRED_REVISION_ANNOTATION],
        currentRevision: annotations[CURRENT_REVISION_ANNOTATION],
        agentState: annotations[STATE_ANNOTATION],
      });
    }
    this.nodes.get(name)?.observe(node);
    this.options.onServerChange?.(name, node);
  }
}
