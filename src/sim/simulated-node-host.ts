// The machine-level control an agent gets on a simulated node. A reboot the agent asks for is
// queued and returns, as `systemctl reboot` does; the node then goes down (agent and kubelet stop),
// stays down for a while and boots with a new boot id, and its agent starts again and sees it.

import { randomBytes } from 'node:crypto';
import type { HostControl } from '../agent/host/host-control.ts';

export interface SimulatedNodeHostOptions {
  /** How long the machine stays down. */
  downMs: number;
  /** Carries out the reboot (the node stops, waits and starts). */
  onReboot(downMs: number): Promise<void>;
}

export class SimulatedNodeHost implements HostControl {
  private readonly options: SimulatedNodeHostOptions;
  private currentBootId = newBootId();
  private rebootCount = 0;

  constructor(options: SimulatedNodeHostOptions) {
    this.options = options;
  }

  /** Boots completed after a reboot. */
  get reboots(): number {
    return this.rebootCount;
  }

  /** The boot id now (what the kubelet reports as nodeInfo.bootID). */
  get currentBoot(): string {
    return this.currentBootId;
  }

  async bootId(): Promise<string> {
    return this.currentBootId;
  }

  async reboot(): Promise<void> {
    // Queued: the caller (the agent) must be able to return before it is stopped.
    setImmediate(() => {
      this.options.onReboot(this.options.downMs).catch(() => {});
    });
  }

  /** The machine came back up. */
  booted(): void {
    this.currentBootId = newBootId();
    this.rebootCount++;
  }
}

function newBootId(): string {
  return randomBytes(16).toString('hex');
}
