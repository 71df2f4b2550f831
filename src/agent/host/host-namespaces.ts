// The agent as a privileged DaemonSet pod: the node's root filesystem is mounted into the pod (e.g. at
// /host) and the pod shares the node's PID namespace (hostPID), so PID 1 is the node's systemd. Files
// are then written under the host root by the usual executors; commands that act on the running
// system (systemctl, apt-get, dpkg-query, exec probes, reboot) run in the node's own namespaces through
// nsenter into the target process (mount, UTS, IPC, network, PID), so they are the node's binaries,
// talking to the node's systemd over its D-Bus socket, exactly as if the agent ran there as a unit.
// The target is configurable (default 1) so the same mode manages a container as seen from outside:
// the end-to-end test points it at a systemd-nspawn container's systemd.

import type { CommandOptions, CommandResult, CommandRunner } from '../executors/command-runner.ts';
import { execFileRunner } from '../executors/command-runner.ts';

/** The namespaces entered: everything but the user and cgroup namespaces (the agent is root already). */
export function hostCommandPrefix(targetPid: number): string[] {
  if (!Number.isInteger(targetPid) || targetPid < 1) throw new Error(`invalid host PID ${targetPid}`);
  return ['nsenter', `--target=${targetPid}`, '--mount', '--uts', '--ipc', '--net', '--pid', '--'];
}

/** Runs every command in the namespaces of targetPid (see the top of this file). */
export class HostNamespaceRunner implements CommandRunner {
  private readonly prefix: string[];
  private readonly base: CommandRunner;

  constructor(targetPid: number, base: CommandRunner = execFileRunner) {
    this.prefix = hostCommandPrefix(targetPid);
    this.base = base;
  }

  run(file: string, args: readonly string[], options?: CommandOptions): Promise<CommandResult> {
    const [nsenter, ...nsenterArgs] = this.prefix as [string, ...string[]];
    return this.base.run(nsenter, [...nsenterArgs, file, ...args], options);
  }
}
