// The simulated systemd of a simulated node: SimulatedSystemd, plus the link between the kubelet unit
// and the simulated kubelet. When the agent restarts, stops or starts kubelet.service, the kubelet
// process goes down and comes back (NotReady for its startup window, then Ready). When it fails to
// come up (an injected executor failure, or a predicate saying so, e.g. "with this drop-in" or "once
// revision X is applied") the unit is failed, the kubelet stays down and its Lease goes stale.
// Every unit, kubelet's included, fails to start when its ExecStart= names a program the machine does
// not have, as systemd's does (status=203/EXEC). What systemd and the kubelet would log goes to a
// per-unit journal (SimulatedSystemd's, which the agent reads as `journalctl -u <unit>` through the
// executor seam), and to whoever listens (`nodeherd up` writes it to up.log).

import type { SystemdChange } from '../agent/executors/durable-simulated-systemd.ts';
import { SimulatedSystemd, type SimulatedSystemdOptions } from '../agent/executors/simulated-systemd.ts';
import {
  type EnvironmentFileReader,
  type ServiceDefinition,
  serviceDefinition,
} from './unit-command-line.ts';

/** What the kubelet side of a node must hear about its unit. */
export interface KubeletProcessHooks {
  restarting(): void;
  stopped(): void;
  failed(): void;
  started(): Promise<void>;
}

export interface KubeletStartContext {
  unit: string;
  /** The definition systemd has loaded for the unit (unit file plus drop-ins). */
  definition: string | undefined;
}

/** true or a message: the kubelet dies in startup. */
export type KubeletStartVerdict = (
  context: KubeletStartContext,
) => boolean | string | undefined | Promise<boolean | string | undefined>;

export interface KubeletSystemdOptions extends SimulatedSystemdOptions {
  /** The unit whose restarts are kubelet restarts (default kubelet.service). */
  kubeletUnit?: string;
  kubelet: KubeletProcessHooks;
  /**
   * Decides whether the kubelet dies right after a start or restart of its unit (a string says
   * why). The systemctl call still succeeds, as for a Type=simple service; the unit ends up failed.
   */
  kubeletStartFails?: KubeletStartVerdict;
  /**
   * Where systemd finds a unit's program (undefined: not found, the unit fails with 203/EXEC). No
   * check without it.
   */
  locateExecutable?: (program: string) => Promise<string | undefined>;
  /** Reads an EnvironmentFile= of a unit (default: none exist). */
  readEnvironmentFile?: EnvironmentFileReader;
}

export const KUBELET_UNIT = 'kubelet.service';

/** Where kubeadm writes the kubelet's configuration on a node it joins (KUBELET_CONFIG_ARGS). */
export const KUBELET_CONFIG_PATH = '/var/lib/kubelet/config.yaml';

/**
 * The kubelet unit of a simulated node: the kubelet package's unit with kubeadm's drop-in
 * (10-kubeadm.conf) folded in, so the kubelet reads /var/lib/kubelet/config.yaml. One addition:
 * ExecStart also expands $KUBELET_CONFIG_DIR_ARGS, which the sample's drop-in sets to
 * --config-dir=/etc/kubernetes/kubelet.conf.d (kubeadm's own ExecStart does not name it; on a kubeadm
 * node a drop-in must repeat ExecStart= with the flag, see docs/simulation.md).
 */
export const KUBELET_VENDOR_UNIT = [
  '[Unit]',
  'Description=kubelet: The Kubernetes Node Agent',
  '',
  '[Service]',
  'Environment="KUBELET_KUBECONFIG_ARGS=--bootstrap-kubeconfig=/etc/kubernetes/bootstrap-kubelet.conf --kubeconfig=/etc/kubernetes/kubelet.conf"',
  `Environment="KUBELET_CONFIG_ARGS=--config=${KUBELET_CONFIG_PATH}"`,
  'EnvironmentFile=-/var/lib/kubelet/kubeadm-flags.env',
  'EnvironmentFile=-/etc/default/kubelet',
  'ExecStart=/usr/bin/kubelet $KUBELET_KUBECONFIG_ARGS $KUBELET_CONFIG_ARGS $KUBELET_KUBEADM_ARGS $KUBELET_EXTRA_ARGS $KUBELET_CONFIG_DIR_ARGS',
  '',
  '[Install]',
  'WantedBy=multi-user.target',
  '',
].join('\n');

/** Types for which `systemctl start` waits until the program runs, and so reports a failed exec. */
const START_WAITS_FOR_EXEC = new Set(['exec', 'oneshot', 'forking', 'notify', 'notify-reload', 'dbus']);

export class KubeletSystemd extends SimulatedSystemd {
  readonly kubeletUnit: string;
  private readonly kubelet: KubeletProcessHooks;
  private readonly startFails: KubeletStartVerdict | undefined;
  private readonly locate: KubeletSystemdOptions['locateExecutable'];
  private readonly readEnvironmentFile: EnvironmentFileReader;
  /** Why the kubelet last died in startup; undefined once it started cleanly. */
  lastFailure: string | undefined;

  constructor(options: KubeletSystemdOptions) {
    const kubeletUnit = options.kubeletUnit ?? KUBELET_UNIT;
    super({
      ...options,
      units: {
        [kubeletUnit]: { content: KUBELET_VENDOR_UNIT, enabled: true, active: true },
        ...options.units,
      },
    });
    this.kubeletUnit = kubeletUnit;
    this.kubelet = options.kubelet;
    this.startFails = options.kubeletStartFails;
    this.locate = options.locateExecutable;
    this.readEnvironmentFile = options.readEnvironmentFile ?? (async () => undefined);
  }

  /** The command line systemd runs for the unit now (what it loaded, its environment expanded). */
  async commandLine(name: string): Promise<ServiceDefinition | undefined> {
    const loaded = this.unit(name)?.loaded;
    return loaded === undefined ? undefined : serviceDefinition(loaded, this.readEnvironmentFile);
  }

  override async restart(name: string): Promise<void> {
    if (name !== this.kubeletUnit) {
      await super.restart(name);
      return this.checkExec(name);
    }
    this.kubelet.restarting();
    await this.startKubelet(() => super.restart(name));
  }

  override async start(name: string): Promise<void> {
    const wasActive = this.unit(name)?.activeState === 'active';
    if (name !== this.kubeletUnit || wasActive) {
      await super.start(name);
      if (!wasActive) await this.checkExec(name);
      return;
    }
    await this.startKubelet(() => super.start(name));
  }

  override async stop(name: string): Promise<void> {
    await super.stop(name);
    if (name === this.kubeletUnit) this.kubelet.stopped();
  }

  // Like `systemctl restart` of a Type=simple service: the call succeeds once the process is
  // spawned; a kubelet that then dies in startup leaves the unit failed, for the agent's
  // verification (is-active) to find.
  private async startKubelet(operation: () => Promise<void>): Promise<void> {
    try {
      await operation();
    } catch (err) {
      this.kubelet.failed();
      throw err;
    }
    const execFailure = await this.execFailure(this.kubeletUnit);
    const verdict =
      execFailure ??
      (await this.startFails?.({
        unit: this.kubeletUnit,
        definition: this.unit(this.kubeletUnit)?.loaded,
      }));
    if (verdict !== undefined && verdict !== false) {
      this.kubeletDied(typeof verdict === 'string' ? verdict : 'kubelet exited during startup', {
        journaled: execFailure !== undefined,
      });
      return;
    }
    this.lastFailure = undefined;
    await this.kubelet.started();
  }

  /**
   * The machine boots: kubelet.service starts with it, unless its program is missing or `startupFailure`
   * says why the kubelet exits at once (its configuration). `start` brings the kubelet up.
   */
  async boot(startupFailure: () => Promise<string | undefined>, start: () => Promise<void>): Promise<void> {
    const unit = this.unit(this.kubeletUnit);
    if (unit?.loaded !== undefined && unit.activeState !== 'active') await super.start(this.kubeletUnit);
    const execFailure = await this.execFailure(this.kubeletUnit);
    const failure = execFailure ?? (await startupFailure());
    if (failure !== undefined) {
      this.kubeletDied(failure, { journaled: execFailure !== undefined });
      return;
    }
    this.lastFailure = undefined;
    await start();
  }

  private kubeletDied(reason: string, options: { journaled: boolean }): void {
    this.simulateCrash(this.kubeletUnit, { restartPolicy: false });
    this.lastFailure = reason;
    if (!options.journaled) {
      this.log(this.kubeletUnit, `"command failed" err="${reason}"`);
      this.log(this.kubeletUnit, `${this.kubeletUnit}: Main process exited, code=exited, status=1/FAILURE`);
      this.log(this.kubeletUnit, `${this.kubeletUnit}: Failed with result 'exit-code'.`);
    }
    this.kubelet.failed();
  }

  /** After a start of a unit other than kubelet's: its program must exist. */
  private async checkExec(name: string): Promise<void> {
    const failure = await this.execFailure(name);
    if (failure === undefined) return;
    this.simulateCrash(name, { restartPolicy: false });
    const type = (await this.commandLine(name))?.type ?? 'simple';
    if (START_WAITS_FOR_EXEC.has(type)) {
      throw new Error(
        `Job for ${name} failed because the control process exited with error code (${failure}).\nSee "systemctl status ${name}" and "journalctl -xeu ${name}" for details.`,
      );
    }
  }

  /** Why systemd could not execute the unit's program ("… status=203/EXEC"), journaled; undefined if it could. */
  private async execFailure(name: string): Promise<string | undefined> {
    if (!this.locate) return undefined;
    const command = (await this.commandLine(name))?.command;
    if (!command || (await this.locate(command.executable)) !== undefined) return undefined;
    const executable = command.executable;
    this.log(name, `${name}: Failed to locate executable ${executable}: No such file or directory`);
    this.log(name, `${name}: Failed at step EXEC spawning ${executable}: No such file or directory`);
    this.log(name, `${name}: Main process exited, code=exited, status=203/EXEC`);
    this.log(name, `${name}: Failed with result 'exit-code'.`);
    return `${executable}: No such file or directory (status=203/EXEC)`;
  }
}

const UNIT_FILE_CHANGES = new Set<string>(['writeUnit', 'removeUnit', 'writeDropIn', 'removeDropIn']);

/**
 * Which logged systemd changes a node replays before it boots (DurableSimulatedSystemd.attach): all
 * but the kubelet unit's starts, stops and enablement. Its process is the simulated kubelet, which
 * starts with the node as it would at boot; its unit file and drop-ins come back.
 */
export function replayedBeforeBoot(kubeletUnit: string): (change: SystemdChange) => boolean {
  return (change) => change.args[0] !== kubeletUnit || UNIT_FILE_CHANGES.has(change.op);
}
