// The real package backend of each package manager, one line each (the rules every layer shares are in
// src/api/packages/registry.ts), and the detection of the manager a node has. A backend's modules are
// imported only when a node uses it.

import { access, readlink } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { DEFAULT_PACKAGE_MANAGER, type PackageManagerName } from '../../api/packages/registry.ts';
import type { CommandRunner } from './command-runner.ts';
import type { FileExecutor, PackageExecutor } from './types.ts';

export interface RealPackagesOptions {
  /** The node's root; repository files are written under it through `files`. */
  rootDir: string;
  files: FileExecutor;
  runner?: CommandRunner;
  /** Run the manager's commands although rootDir is not '/' (host-root mode: they run in the node's namespaces). */
  allowLiveCommands?: boolean;
  /** Environment: NODEHERD_DNF_RELEASEVER sets dnf's --releasever (default: dnf's own). */
  env?: Record<string, string | undefined>;
}

export const REAL_PACKAGE_EXECUTORS: Record<
  PackageManagerName,
  (options: RealPackagesOptions) => Promise<PackageExecutor>
> = {
  apt: async (options) => new (await import('./apt/apt-package-executor.ts')).AptPackageExecutor(options),
  dnf: async (options) => {
    const releasever = (options.env ?? process.env).NODEHERD_DNF_RELEASEVER || undefined;
    return new (await import('./dnf/dnf-package-executor.ts')).DnfPackageExecutor({
      ...options,
      ...(releasever !== undefined ? { releasever } : {}),
    });
  },
};

/** The manager a node has, and what it reports (nodeherd.io/package-manager). */
export interface NodePackageManager {
  /** The backend the agent runs. */
  manager: PackageManagerName;
  /**
   * What the Node says: the manager's name, or `dnf5` (Fedora 41+, RHEL 10's successor releases) whose
   * command line and built-in versionlock differ from dnf 4's; the controller starts no revision with
   * dnf packages or repositories on it (docs/operations.md).
   */
  reported: string;
}

async function exists(path: string): Promise<boolean> {
  return access(path).then(
    () => true,
    () => false,
  );
}

/**
 * Looks at the node's root: dpkg's database and apt-get make an apt node (a Debian host with dnf
 * installed as a tool, like nodeherd's CI, is one); otherwise dnf5 or dnf 4's binaries make a dnf node.
 * A root with neither is an apt node, as every node was before managers were detected.
 */
export async function detectPackageManager(rootDir: string): Promise<NodePackageManager> {
  const at = (path: string) => join(rootDir, path);
  if ((await exists(at('/var/lib/dpkg/status'))) && (await exists(at('/usr/bin/apt-get')))) {
    return { manager: 'apt', reported: 'apt' };
  }
  // Fedora 41+ links /usr/bin/dnf to dnf5; RHEL 8-10 link it to dnf-3.
  const dnfLink = await readlink(at('/usr/bin/dnf')).catch(() => undefined);
  if (
    (await exists(at('/usr/bin/dnf5'))) &&
    ((dnfLink !== undefined && basename(dnfLink) === 'dnf5') || !(await exists(at('/usr/bin/dnf'))))
  ) {
    return { manager: 'dnf', reported: 'dnf5' };
  }
  if ((await exists(at('/usr/bin/dnf'))) || (await exists(at('/usr/bin/dnf-3')))) {
    return { manager: 'dnf', reported: 'dnf' };
  }
  return { manager: DEFAULT_PACKAGE_MANAGER, reported: DEFAULT_PACKAGE_MANAGER };
}
