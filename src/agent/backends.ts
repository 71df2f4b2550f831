// Builds the executors and host control a backend choice stands for (see agent-config.ts).

// Each backend's modules are imported when chosen: a simulated agent never loads child_process
// and the command runners, a real one never loads the simulations (RSS is the agent's scarcest
// resource: see bench/agent-idle.bench.ts).

import { join } from 'node:path';
import type { Backend } from './agent-config.ts';
import type { ProbeRunner } from './apply/health-probe.ts';
import type { CommandRunner } from './executors/command-runner.ts';
import type { FileExecutor, PackageExecutor, SystemdExecutor } from './executors/types.ts';
import type { HostControl } from './host/host-control.ts';

export interface Backends {
  files: FileExecutor;
  systemd: SystemdExecutor;
  packages: PackageExecutor;
  /**
   * The package manager the node reports (nodeherd.io/package-manager): packages.manager, or `dnf5`
   * where the dnf backend runs on a dnf5 node (package-managers.ts).
   */
  packageManager: string;
  host: HostControl;
  /** Whether a requested reboot really ends this process (so the agent waits for it). */
  realHost: boolean;
  /** Set when probes must not run in the agent's own namespaces (host-root mode). */
  probes?: ProbeRunner;
  /**
   * Runs programs on the node (the pool's reboot sentinel command): in the node's namespaces in
   * host-root mode, here with the root '/'; absent where the files are not the live system's.
   */
  commands?: CommandRunner;
}

export interface BackendOptions {
  backend: Backend;
  rootDir: string;
  simulationDir: string;
  simulatedDurations: Record<string, number>;
  /**
   * Host-root mode (the agent as a DaemonSet pod): rootDir is the node's root mounted into the pod,
   * and commands run in the namespaces of this process, the node's systemd (host/host-namespaces.ts).
   */
  hostPid?: number;
}

export async function createBackends(options: BackendOptions): Promise<Backends> {
  const durations = options.simulatedDurations;
  switch (options.backend) {
    case 'real': {
      const [
        { LocalFileExecutor },
        { SystemctlExecutor },
        { REAL_PACKAGE_EXECUTORS, detectPackageManager },
        { SystemdHost },
      ] = await Promise.all([
        import('./executors/local-file-executor.ts'),
        import('./executors/systemctl-executor.ts'),
        import('./executors/package-managers.ts'),
        import('./host/systemd-host.ts'),
      ]);
      const detected = await detectPackageManager(options.rootDir);
      const packages = REAL_PACKAGE_EXECUTORS[detected.manager];
      const files = new LocalFileExecutor(options.rootDir);
      if (options.hostPid !== undefined) {
        // Host-root mode: the files under rootDir and the commands' namespaces are the same node.
        const [{ HostNamespaceRunner, hostCommandPrefix }, { NodeProbeRunner }] = await Promise.all([
          import('./host/host-namespaces.ts'),
          import('./apply/health-probe.ts'),
        ]);
        const runner = new HostNamespaceRunner(options.hostPid);
        const live = { rootDir: options.rootDir, files, runner, allowLiveCommands: true };
        return {
          files,
          systemd: new SystemctlExecutor(live),
          packages: await packages(live),
          packageManager: detected.reported,
          host: new SystemdHost({ runner }),
          realHost: true,
          probes: new NodeProbeRunner({ commandPrefix: hostCommandPrefix(options.hostPid) }),
          commands: runner,
        };
      }
      // With a root other than '/' the executors refuse systemctl and the package manager, which would
      // act on the live system rather than on the files under the root (live-system-guard.ts).
      return {
        files,
        systemd: new SystemctlExecutor({ rootDir: options.rootDir, files }),
        packages: await packages({ rootDir: options.rootDir, files }),
        packageManager: detected.reported,
        host: new SystemdHost(),
        realHost: true,
        ...(options.rootDir === '/'
          ? { commands: (await import('./executors/command-runner.ts')).execFileRunner }
          : {}),
      };
    }
    case 'simulated-systemd': {
      const [
        { LocalFileExecutor },
        { DurableSimulatedSystemd },
        { SimulatedPackages },
        { SimulatedHost },
        { ensureStateDirectory },
      ] = await Promise.all([
        import('./executors/local-file-executor.ts'),
        import('./executors/durable-simulated-systemd.ts'),
        import('./executors/simulated-packages.ts'),
        import('./host/simulated-host.ts'),
        import('./state/state-directory.ts'),
      ]);
      await ensureStateDirectory(options.simulationDir);
      return {
        files: new LocalFileExecutor(options.rootDir),
        systemd: await DurableSimulatedSystemd.open(join(options.simulationDir, 'systemd.jsonl'), {
          durations,
        }),
        packages: new SimulatedPackages({ durations }),
        packageManager: 'apt',
        host: new SimulatedHost({ stateFile: join(options.simulationDir, 'host.json') }),
        realHost: false,
      };
    }
    case 'simulated': {
      const [{ MemoryFileExecutor }, { SimulatedSystemd }, { SimulatedPackages }, { SimulatedHost }] =
        await Promise.all([
          import('./executors/memory-file-executor.ts'),
          import('./executors/simulated-systemd.ts'),
          import('./executors/simulated-packages.ts'),
          import('./host/simulated-host.ts'),
        ]);
      return {
        files: new MemoryFileExecutor(),
        systemd: new SimulatedSystemd({ durations }),
        packages: new SimulatedPackages({ durations }),
        packageManager: 'apt',
        host: new SimulatedHost(),
        realHost: false,
      };
    }
  }
}
