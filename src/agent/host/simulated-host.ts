// A host that only pretends to reboot: it records the request and starts a new "boot" (a new boot
// id). With a state file the boot id survives the agent's process, so an agent run as a child
// process sees the reboot after its restart like a real one would.

import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { writeFileAtomic } from '../../util/atomic-write.ts';
import type { HostControl } from './host-control.ts';

export interface SimulatedHostOptions {
  /** Keeps the boot id and reboot count across processes (JSON); in memory when absent. */
  stateFile?: string;
}

interface HostState {
  bootId: string;
  reboots: number;
}

export class SimulatedHost implements HostControl {
  private readonly stateFile: string | undefined;
  private state: HostState;

  constructor(options: SimulatedHostOptions = {}) {
    this.stateFile = options.stateFile;
    this.state = readState(this.stateFile) ?? { bootId: newBootId(), reboots: 0 };
  }

  /** Reboots requested so far (across processes when a state file is used). */
  get reboots(): number {
    return this.state.reboots;
  }

  async bootId(): Promise<string> {
    return this.state.bootId;
  }

  async reboot(): Promise<void> {
    this.state = { bootId: newBootId(), reboots: this.state.reboots + 1 };
    if (this.stateFile) await writeFileAtomic(this.stateFile, JSON.stringify(this.state), { mode: 0o600 });
  }
}

function readState(path: string | undefined): HostState | undefined {
  if (path === undefined) return undefined;
  try {
    const parsed = JSON.parse(readFileSync(path, 'utf8')) as HostState;
    return typeof parsed.bootId === 'string' && typeof parsed.reboots === 'number' ? parsed : undefined;
  } catch {
    return undefined;
  }
}

function newBootId(): string {
  return randomBytes(16).toString('hex');
}
