// The real package backend of each package manager, one line each (the rules every layer shares are in
// src/api/packages/registry.ts). A backend's modules are imported only when a node uses it.

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
}

export const REAL_PACKAGE_EXECUTORS: Record<
  PackageManagerName,
  (options: RealPackagesOptions) => Promise<PackageExecutor>
> = {
  apt: async (options) => new (await import('./apt/apt-package-executor.ts')).AptPackageExecutor(options),
};

/**
 * The package manager a real node uses. Every node is an apt node until a second manager is
 * registered; then this is where the node's own manager is detected.
 */
export function nodePackageManager(): PackageManagerName {
  return DEFAULT_PACKAGE_MANAGER;
}
