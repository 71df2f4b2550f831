// The real host: reboots through systemd (`systemctl reboot`, so units stop cleanly) and reads the
// kernel's boot id.

import { readFile } from '../../util/fs-async.ts';
import { type CommandRunner, execFileRunner, runChecked } from '../executors/command-runner.ts';
import type { HostControl } from './host-control.ts';

export interface SystemdHostOptions {
  runner?: CommandRunner;
  systemctlPath?: string;
  bootIdPath?: string;
}

export class SystemdHost implements HostControl {
  private readonly runner: CommandRunner;
  private readonly systemctlPath: string;
  private readonly bootIdPath: string;

  constructor(options: SystemdHostOptions = {}) {
    this.runner = options.runner ?? execFileRunner;
    this.systemctlPath = options.systemctlPath ?? 'systemctl';
    this.bootIdPath = options.bootIdPath ?? '/proc/sys/kernel/random/boot_id';
  }

  async bootId(): Promise<string> {
    return (await readFile(this.bootIdPath, 'utf8')).trim();
  }

  async reboot(): Promise<void> {
    await runChecked(this.runner, this.systemctlPath, ['reboot'], { timeoutMs: 60_000 });
  }
}
