// One simulated machine: a kubelet (Node, Lease, Ready), a simulated systemd whose kubelet unit
// drives that kubelet, simulated apt and an in-memory filesystem, and optionally a nodeherd agent
// running against those backends. Faults are injected here: the kubelet dying with a given revision,
// NotReady flaps, network partitions, the machine disappearing or rebooting. Without any injected
// fault the node still fails where a real one would: its kubelet reads the configuration files its
// unit's flags name (--config, --config-dir) and exits at startup on one it refuses, and a unit whose
// program is missing fails with 203/EXEC.

import { MemoryFileExecutor } from '../agent/executors/memory-file-executor.ts';
import { SimulatedPackages, type SimulatedPackagesOptions } from '../agent/executors/simulated-packages.ts';
import type { SimulatedSystemdOptions } from '../agent/executors/simulated-systemd.ts';
import type { HostControl } from '../agent/host/host-control.ts';
import { KUBELET_PACKAGE, kubeletVersionOfPackage } from '../api/kubelet-version.ts';
import { DEFAULT_REBOOT_SENTINEL_FILE, DESIRED_REVISION_ANNOTATION } from '../api/node-protocol.ts';
import { resourcePath } from '../kube/light/api-paths.ts';
import type { LightKubeClient } from '../kube/light/light-kube-client.ts';
import type { KubeObject } from '../kube/light/types.ts';
import type { HeartbeatWheel } from './heartbeat-wheel.ts';
import { loadKubeletConfiguration } from './kubelet-configuration.ts';
import { KUBELET_CONFIG_PATH, type KubeletStartContext, KubeletSystemd } from './kubelet-systemd.ts';
import {
  BASE_KUBELET_VERSION,
  kubernetesCatalogue,
  kubernetesPackageVersion,
} from './kubernetes-repositories.ts';
import { locateExecutable } from './machine-executables.ts';
import type { NodeDescription } from './node-object.ts';
import { PowerFence } from './power-fence.ts';
import {
  type KubeletActivity,
  type KubeletSnapshot,
  type KubeletTiming,
  SimulatedKubelet,
} from './simulated-kubelet.ts';
import { SimulatedNodeHost } from './simulated-node-host.ts';
import { flagValue } from './unit-command-line.ts';

/**
 * The configuration kubeadm writes when it joins a node (KubeletConfiguration with the values kubeadm
 * sets); the simulated kubelet reads it through KUBELET_CONFIG_ARGS. Written at first boot when absent.
 */

/** Debian's reboot sentinel (update-notifier-common), as the agent checks it by default. */
const REBOOT_SENTINEL = DEFAULT_REBOOT_SENTINEL_FILE;
/** Emptied at every boot, as tmpfs mounts are. */
const VOLATILE_DIRECTORIES = ['/run/', '/var/run/'];

export const KUBEADM_KUBELET_CONFIG = [
  'apiVersion: kubelet.config.k8s.io/v1beta1',
  'kind: KubeletConfiguration',
  'authentication:',
  '  anonymous:',
  '    enabled: false',
  '  webhook:',
  '    enabled: true',
  '  x509:',
  '    clientCAFile: /etc/kubernetes/pki/ca.crt',
  'authorization:',
  '  mode: Webhook',
  'cgroupDriver: systemd',
  'clusterDNS:',
  '- 10.96.0.10',
  'clusterDomain: cluster.local',
  'containerRuntimeEndpoint: unix:///var/run/containerd/containerd.sock',
  'rotateCertificates: true',
  'staticPodPath: /etc/kubernetes/manifests',
  '',
].join('\n');

/** What an agent needs to run on a simulated node. */
export interface SimulatedAgentContext {
  nodeName: string;
  client: LightKubeClient;
  systemd: KubeletSystemd;
  packages: SimulatedPackages;
  files: MemoryFileExecutor;
  host: HostControl;
  /**
   * What the agent does after asking for a restart while its process still runs: halt on a reboot
   * (the host queues it and then stops the agent, as a real reboot ends the process; an agent that
   * carried on would find the reboot not yet done and ask again, and the reboot would wait for it
   * to stop forever), carry on after a self-restart (which does not concern this process).
   */
  onHostRestart(kind: 'reboot' | 'self'): Promise<'continue' | 'halt'>;
  /** Whether the simulated kubelet process is up (for its healthz probe). */
  kubeletRunning(): boolean;
  /** Where the machine has a program (for exec probes); undefined when it has none. */
  locateExecutable(program: string): Promise<string | undefined>;
}

/** A running agent as the simulator drives it. */
export interface SimulatedAgent {
  start(): Promise<void>;
  /** Stops watches and work; a kill is a stop the agent is not told about in advance. */
  stop(): Promise<void>;
}

export type AgentFactory = (context: SimulatedAgentContext) => SimulatedAgent;

export interface NodeFaults {
  /** The kubelet dies in startup whenever it is (re)started while the node should run one of these revisions. */
  kubeletFailsAtRevisions?: readonly string[];
  /**
   * Any other rule; a string says why the kubelet died. `revision()` reads the revision the node is
   * being moved to from the API server (a GET of the Node): only a rule that asks for it pays that
   * round trip before the kubelet reports NotReady.
   */
  kubeletStartFails?: (
    context: KubeletStartContext & { revision(): Promise<string | undefined> },
  ) => boolean | string | Promise<boolean | string>;
}

export interface SimulatedNodeOptions extends KubeletTiming {
  node: NodeDescription;
  /** The agent's client. */
  client: LightKubeClient;
  /** The kubelet's client (its own identity); default: the agent's. */
  kubeletClient?: LightKubeClient;
  wheel?: HeartbeatWheel;
  /** Durations, failures and preinstalled units of the simulated systemd. */
  systemd?: SimulatedSystemdOptions;
  /**
   * The machine's packages. Default: the base image's kubelet package (the description's
   * kubeletVersion, else BASE_KUBELET_VERSION) and pkgs.k8s.io's repositories (kubernetes-repositories.ts).
   */
  packages?: SimulatedPackagesOptions;
  /** Default kubelet.service. */
  kubeletUnit?: string;
  faults?: NodeFaults;
  /** Starts an agent on the node; none when absent. */
  agent?: AgentFactory;
  /** How long a reboot keeps the machine down (default 10 s). */
  rebootDownMs?: number;
  onError?: (error: Error, during: KubeletActivity | 'agent') => void;
  /** Each line the node's journal gets (systemd's and the kubelet's), with its unit. */
  onJournal?: (unit: string, message: string) => void;
}

/** up: running; down: stopped, killed, or rebooting. */
export type MachineState = 'up' | 'down' | 'rebooting';

export interface SimulatedNodeSnapshot extends KubeletSnapshot {
  machine: MachineState;
  agentRunning: boolean;
  /** Why the kubelet last died in startup, while it stays dead. */
  kubeletFailure: string | undefined;
  reboots: number;
}

export class SimulatedNode {
  readonly name: string;
  readonly kubelet: SimulatedKubelet;
  readonly systemd: KubeletSystemd;
  readonly packages: SimulatedPackages;
  readonly files: MemoryFileExecutor;
  readonly host: SimulatedNodeHost;
  readonly client: LightKubeClient;
  /** The kubelet's client: its own identity, or the agent's client. */
  readonly kubeletClient: LightKubeClient;
  private readonly faults: NodeFaults;
  private readonly agentFactory: AgentFactory | undefined;
  private readonly onError: SimulatedNodeOptions['onError'];
  private readonly rebootDownMs: number;
  private agent: SimulatedAgent | undefined;
  /** The power of the running agent's process: cut by a kill, so nothing it had in flight carries on. */
  private agentPower: PowerFence | undefined;
  /** kubeadm's files are on the machine (written at the first boot of this process). */
  private provisioned = false;
  private machine: MachineState = 'down';
  /** Serialises start/stop/reboot. */
  private transition: Promise<void> = Promise.resolve();

  constructor(options: SimulatedNodeOptions) {
    this.name = options.node.name;
    this.client = options.client;
    this.kubeletClient = options.kubeletClient ?? options.client;
    this.faults = options.faults ?? {};
    this.agentFactory = options.agent;
    this.onError = options.onError;
    this.rebootDownMs = options.rebootDownMs ?? 10_000;
    this.packages = new SimulatedPackages({
      catalogueOf: kubernetesCatalogue,
      ...options.packages,
      installed: {
        [KUBELET_PACKAGE]: kubernetesPackageVersion(options.node.kubeletVersion ?? BASE_KUBELET_VERSION),
        ...options.packages?.installed,
      },
    });
    this.kubelet = new SimulatedKubelet({
      ...options,
      client: this.kubeletClient,
      bootId: () => this.host.currentBoot,
      onError: (error, during) => this.onError?.(error, during),
      // The kubelet runs its installed package's binary (read when it starts).
      version: () => {
        const installed = this.packages.installed()[KUBELET_PACKAGE];
        return installed === undefined ? undefined : kubeletVersionOfPackage(installed);
      },
    });
    this.files = new MemoryFileExecutor();
    this.systemd = new KubeletSystemd({
      ...options.systemd,
      ...(options.kubeletUnit !== undefined ? { kubeletUnit: options.kubeletUnit } : {}),
      kubelet: this.kubelet,
      kubeletStartFails: (context) => this.kubeletStartVerdict(context),
      locateExecutable: (program) => this.locateExecutable(program),
      readEnvironmentFile: (path) => this.readText(path),
      ...(options.onJournal ? { onJournal: options.onJournal } : {}),
    });
    this.host = new SimulatedNodeHost({
      downMs: this.rebootDownMs,
      onReboot: (downMs) => this.reboot(downMs),
    });
  }

  get state(): MachineState {
    return this.machine;
  }

  snapshot(): SimulatedNodeSnapshot {
    return {
      ...this.kubelet.snapshot(),
      machine: this.machine,
      agentRunning: this.agent !== undefined,
      kubeletFailure: this.kubelet.process === 'failed' ? this.systemd.lastFailure : undefined,
      reboots: this.host.reboots,
    };
  }

  /** Boots the machine: the kubelet registers and turns Ready, then the agent starts. */
  start(): Promise<void> {
    return this.serialised(async () => {
      if (this.machine !== 'down') return;
      this.machine = 'up';
      if (!this.provisioned) {
        this.provisioned = true;
        if ((await this.files.read(KUBELET_CONFIG_PATH)) === undefined) {
          await this.files.write(KUBELET_CONFIG_PATH, Buffer.from(KUBEADM_KUBELET_CONFIG), { mode: 0o644 });
        }
      }
      await this.systemd.boot(
        () => this.kubeletConfigurationFailure(),
        () => this.kubelet.start(),
      );
      if (this.machine !== 'up') return;
      this.startAgent();
    });
  }

  /** Shuts the machine down: agent and kubelet stop; the Node stays and goes Unknown. */
  stop(): Promise<void> {
    return this.serialised(() => this.halt());
  }

  /**
   * The machine vanishes at once (power loss): like stop, but nothing waits for the agent. The promise
   * (never rejected) says when the agent's shutdown is over, for whoever must release its client.
   */
  kill(): Promise<void> {
    this.machine = 'down';
    this.agentPower?.cut();
    this.kubelet.stop();
    const agent = this.agent;
    this.agent = undefined;
    return agent ? agent.stop().catch((err: Error) => this.onError?.(err, 'agent')) : Promise.resolve();
  }

  /**
   * Down for `downMs`, then up again with a new boot id: the kubelet re-registers NotReady for its
   * startup window, and the agent starts again (and sees the reboot it asked for).
   */
  reboot(downMs = this.rebootDownMs): Promise<void> {
    return this.serialised(async () => {
      await this.halt();
      this.machine = 'rebooting';
      await new Promise<void>((resolve) => setTimeout(resolve, downMs).unref());
      if (this.machine !== 'rebooting') return;
      await this.clearVolatileFiles();
      this.host.booted();
      this.machine = 'up';
      await this.systemd.boot(
        () => this.kubeletConfigurationFailure(),
        () => this.kubelet.start({ notReadyAtStart: true }),
      );
      if (this.machine === 'up') this.startAgent();
    });
  }

  /**
   * The OS asks for a reboot, as Debian's update-notifier hook does after a kernel or libc upgrade:
   * /var/run/reboot-required and its .pkgs list. The node's agent notices at its next check; the next
   * reboot clears both (/run is a tmpfs).
   */
  async requireReboot(packages: readonly string[] = ['linux-image-amd64']): Promise<void> {
    await this.files.write(REBOOT_SENTINEL, Buffer.from('*** System restart required ***\n'), {
      mode: 0o644,
    });
    await this.files.write(`${REBOOT_SENTINEL}.pkgs`, Buffer.from(packages.map((p) => `${p}\n`).join('')), {
      mode: 0o644,
    });
  }

  /** Whether the OS asks for a reboot (the sentinel exists). */
  async rebootRequired(): Promise<boolean> {
    return (await this.files.read(REBOOT_SENTINEL)) !== undefined;
  }

  /** Restarts kubelet.service the way an operator or agent would. */
  restartKubelet(): Promise<void> {
    return this.systemd.restart(this.systemd.kubeletUnit);
  }

  /** The kubelet reports Ready=False for `durationMs` while staying connected. */
  flapNotReady(durationMs: number, message = 'simulated NotReady'): void {
    this.kubelet.setNotReady('flap', { reason: 'KubeletNotReady', message }, durationMs);
  }

  /** Lease and status stop reaching the server for `durationMs` (Infinity: until heal()). */
  partition(durationMs: number): void {
    this.kubelet.partition(durationMs);
  }

  heal(): void {
    this.kubelet.heal();
  }

  /** The Node as the fleet's shared watch sees it. */
  observe(node: KubeObject | undefined): void {
    this.kubelet.observe(node);
  }

  private async halt(): Promise<void> {
    if (this.machine === 'down') return;
    this.machine = 'down';
    const agent = this.agent;
    this.agent = undefined;
    try {
      await agent?.stop();
    } catch (err) {
      this.onError?.(err as Error, 'agent');
    }
    this.kubelet.stop();
  }

  /** What a boot starts without: /run (and /var/run, its link) is a tmpfs. */
  private async clearVolatileFiles(): Promise<void> {
    for (const path of this.files.paths()) {
      if (VOLATILE_DIRECTORIES.some((dir) => path.startsWith(dir))) await this.files.remove(path);
    }
  }

  private startAgent(): void {
    if (!this.agentFactory || this.agent) return;
    // This agent's process lives on the machine's power: a kill cuts it (power-fence.ts).
    const power = new PowerFence(this.name);
    this.agentPower = power;
    const agent = this.agentFactory({
      nodeName: this.name,
      client: power.wrap(this.client),
      systemd: power.wrap(this.systemd),
      packages: power.wrap(this.packages),
      files: power.wrap(this.files),
      host: power.wrap(this.host),
      onHostRestart: async (kind) => (kind === 'reboot' ? 'halt' : 'continue'),
      kubeletRunning: () => this.kubelet.process === 'running' && this.kubelet.phase === 'running',
      locateExecutable: (program) => this.locateExecutable(program),
    });
    this.agent = agent;
    agent.start().catch((err: Error) => this.onError?.(err, 'agent'));
  }

  /**
   * Why the kubelet exits at startup with the configuration files its command line names, as
   * kubelet-configuration.ts decides; what it logs and carries on after goes to the journal.
   */
  async kubeletConfigurationFailure(): Promise<string | undefined> {
    const unit = this.systemd.kubeletUnit;
    const command = (await this.systemd.commandLine(unit))?.command;
    if (!command) return undefined;
    const configFile = flagValue(command.args, 'config');
    const configDir = flagValue(command.args, 'config-dir');
    const outcome = await loadKubeletConfiguration(
      { ...(configFile ? { configFile } : {}), ...(configDir ? { configDir } : {}) },
      {
        read: (path) => this.readText(path),
        list: async (dir) => this.files.paths().filter((path) => path.startsWith(`${dir}/`)),
      },
    );
    for (const warning of outcome.warnings) this.systemd.log(unit, warning);
    return outcome.error;
  }

  /** Where the machine has a program: its base image, executable files, installed packages. */
  locateExecutable(program: string): Promise<string | undefined> {
    return locateExecutable(program, {
      modeOf: async (path) => {
        try {
          return (await this.files.read(path))?.mode;
        } catch {
          return undefined;
        }
      },
      installedPackages: () => Object.keys(this.packages.installed()),
    });
  }

  private async readText(path: string): Promise<string | undefined> {
    try {
      return (await this.files.read(path))?.content.toString('utf8');
    } catch {
      return undefined; // not an absolute path: no such file
    }
  }

  private async kubeletStartVerdict(context: KubeletStartContext): Promise<boolean | string | undefined> {
    const configFailure = await this.kubeletConfigurationFailure();
    if (configFailure !== undefined) return configFailure;
    const { kubeletFailsAtRevisions, kubeletStartFails } = this.faults;
    if (kubeletFailsAtRevisions?.length) {
      const revision = await this.desiredRevision();
      if (revision !== undefined && kubeletFailsAtRevisions.includes(revision)) {
        return `kubelet exited during startup with revision ${revision}`;
      }
    }
    return kubeletStartFails?.({ ...context, revision: () => this.desiredRevision() });
  }

  // The revision the node is being moved to, read when the kubelet starts: a shared watch could
  // deliver the annotation after the agent (watching on its own connection) already acted on it.
  private async desiredRevision(): Promise<string | undefined> {
    try {
      const node = await this.client.get(
        resourcePath({ apiVersion: 'v1', resource: 'nodes', name: this.name }),
      );
      return node.metadata?.annotations?.[DESIRED_REVISION_ANNOTATION];
    } catch {
      return undefined;
    }
  }

  private serialised(step: () => Promise<void>): Promise<void> {
    const next = this.transition.then(step, step);
    this.transition = next.catch(() => {});
    return next;
  }
}
