// The simulated systemd of a simulated node: SimulatedSystemd, plus the link between the kubelet unit
// and the simulated kubelet. When the agent restarts, stops or starts kubelet.service, the kubelet
// process goes down and comes back (NotReady for its startup window, then Ready). When it fails to
// come up (an injected executor failure, or a predicate saying so, e.g. "with this drop-in" or "once
// revision X is applied") the unit is failed, the kubelet stays down and its Lease goes stale.

import type { SystemdChange } from '../agent/executors/durable-simulated-systemd.ts';
import { SimulatedSystemd, type SimulatedSystemdOptions } from '../agent/executors/simulated-systemd.ts';

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
}

export const KUBELET_UNIT = 'kubelet.service';

/** The vendor unit of a simulated kubelet, as the kubelet package ships it. */
export const KUBELET_VENDOR_UNIT =
  '[Unit]\nDescription=kubelet: The Kubernetes Node Agent\n\n[Service]\nExecStart=/usr/bin/kubelet\n\n[Install]\nWantedBy=multi-user.target\n';

export class KubeletSystemd extends SimulatedSystemd {
  readonly kubeletUnit: string;
  private readonly kubelet: KubeletProcessHooks;
  private readonly startFails: KubeletStartVerdict | undefined;
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
  }

  override async restart(name: string): Promise<void> {
    if (name !== this.kubeletUnit) return super.restart(name);
    this.kubelet.restarting();
    await this.startKubelet(() => super.restart(name));
  }

  override async start(name: string): Promise<void> {
    if (name !== this.kubeletUnit) return super.start(name);
    const wasActive = this.unit(name)?.activeState === 'active';
    if (wasActive) return super.start(name);
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
    const verdict = await this.startFails?.({
      unit: this.kubeletUnit,
      definition: this.unit(this.kubeletUnit)?.loaded,
    });
    if (verdict !== undefined && verdict !== false) {
      this.simulateCrash(this.kubeletUnit, { restartPolicy: false });
      this.lastFailure = typeof verdict === 'string' ? verdict : 'kubelet exited during startup';
      this.kubelet.failed();
      return;
    }
    this.lastFailure = undefined;
    await this.kubelet.started();
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
