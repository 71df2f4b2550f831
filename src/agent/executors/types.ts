// The executors are the only way the agent touches the node: files, systemd units, packages. Each
// concern has a real backend (acts on a root filesystem and runs systemctl or the package manager) and
// a simulated one (in memory, for simulated nodes and tests). The interfaces use plain values only;
// packages take repositories as the config renders them (each manager has its own fields).

import type { PackageManagerName } from '../../api/packages/registry.ts';
import type { RenderedRepository } from '../../api/types.ts';

/** What is at a path right now. `kind` is not 'file' when something else sits where a file belongs. */
export interface FileState {
  kind: 'file' | 'symlink' | 'directory' | 'other';
  /** The file's bytes; empty for anything that is not a regular file. */
  content: Buffer;
  /** Permission bits only (including setuid/setgid/sticky), e.g. 0o644. */
  mode: number;
  uid: number;
  gid: number;
}

/** A user or group: a name looked up in the root's /etc/passwd or /etc/group, or a numeric id. */
export type Principal = string | number;

export interface FileWriteOptions {
  /** Permission bits; default 0o644. */
  mode?: number;
  /** Default root. */
  owner?: Principal;
  /** Default root. */
  group?: Principal;
}

export interface Ownership {
  uid: number;
  gid: number;
}

export interface FileExecutor {
  /** The entry at `path` (never following a symlink in the last component), or undefined if absent. */
  read(path: string): Promise<FileState | undefined>;
  /**
   * Replaces the entry at `path` atomically: readers see the old file or the new one, never a mix,
   * and after a crash the path holds one of the two. Missing parent directories are created 0755.
   * A symlink at `path` is replaced, never written through.
   */
  write(path: string, content: Buffer, options?: FileWriteOptions): Promise<void>;
  /** Removes the file or symlink at `path`; a missing path is not an error. */
  remove(path: string): Promise<void>;
  /** Removes the directory at `path` if it exists and is empty; says whether it is gone now. */
  removeDirectoryIfEmpty(path: string): Promise<boolean>;
  /** Resolves owner and group the way `write` does (unknown names are an error, absent means root). */
  resolveOwnership(owner?: Principal, group?: Principal): Promise<Ownership>;
}

/** The subset of `systemctl show` the agent and its health gates look at. */
export interface UnitStatus {
  /** active | reloading | inactive | failed | activating | deactivating */
  activeState: string;
  /** running | exited | dead | failed | auto-restart | ... */
  subState: string;
  /** Automatic restarts by systemd's Restart= policy since the unit was last started by hand. */
  nRestarts?: number;
  /** Changes on every start: lets a health gate tell a restarted unit from one that stayed up. */
  invocationId?: string;
  /** enabled | disabled | static | masked | ... (UnitFileState) */
  unitFileState?: string;
  /**
   * When the unit last became active, on CLOCK_MONOTONIC in microseconds (ActiveEnterTimestampMonotonic),
   * the clock of process.hrtime: how long it has stayed up. Absent where the backend does not know.
   */
  activeEnterMonotonicUs?: number;
}

export interface SystemdExecutor {
  /** Writes /etc/systemd/system/<name> (0644). Takes effect after daemonReload(). */
  writeUnit(name: string, content: string): Promise<void>;
  removeUnit(name: string): Promise<void>;
  /** Writes /etc/systemd/system/<unit>.d/<dropIn> (0644). */
  writeDropIn(unit: string, dropIn: string, content: string): Promise<void>;
  /** Removes the drop-in, and the <unit>.d directory when nothing else is left in it. */
  removeDropIn(unit: string, dropIn: string): Promise<void>;
  /** The content of /etc/systemd/system/<name>, or undefined when there is no such file (drift checks). */
  readUnit(name: string): Promise<string | undefined>;
  /** The content of the drop-in, or undefined when there is none (drift checks). */
  readDropIn(unit: string, dropIn: string): Promise<string | undefined>;
  daemonReload(): Promise<void>;
  enable(name: string): Promise<void>;
  disable(name: string): Promise<void>;
  start(name: string): Promise<void>;
  stop(name: string): Promise<void>;
  restart(name: string): Promise<void>;
  reload(name: string): Promise<void>;
  isActive(name: string): Promise<boolean>;
  isFailed(name: string): Promise<boolean>;
  status(name: string): Promise<UnitStatus>;
  /**
   * The unit's enablement on disk now (`systemctl is-enabled`: enabled, disabled, static, masked,
   * not-found, ...). status().unitFileState is the manager's view, cached until the next daemon-reload,
   * and enable/disable run without one.
   */
  unitFileState(name: string): Promise<string>;
  /**
   * The unit's last `lines` journal lines, oldest first, message text only
   * (`journalctl -u <name> -n <lines> --no-pager -o cat`): why a unit failed, in its own words.
   * Empty where the journal has nothing (or cannot be read: this only explains a failure).
   */
  journal(name: string, lines: number): Promise<string[]>;
}

/**
 * One package manager on the node (apt, ...): the real backend of each lives in its folder beside this
 * file (apt/), registered in package-managers.ts. Repositories come as the config renders them; the
 * backend turns them into its own files and refuses what its manager could not be given safely.
 */
export interface PackageExecutor {
  /** Which manager this is: a plan action or repository for another one is refused. */
  readonly manager: PackageManagerName;
  addRepository(repository: RenderedRepository): Promise<void>;
  removeRepository(name: string): Promise<void>;
  /** Refreshes the package index (apt-get update). */
  update(): Promise<void>;
  /**
   * Installs the package, pinned to `version` when given (downgrades allowed: rollback needs them),
   * moving it even when it is held: nodeherd's own install is what the hold is for.
   */
  install(name: string, version?: string): Promise<void>;
  /** Removes the package but keeps its configuration files (apt-get remove, not purge), held or not. */
  remove(name: string): Promise<void>;
  /** The installed version, or undefined when the package is not installed. */
  installedVersion(name: string): Promise<string | undefined>;
  /** Holds the package at its version: the manager's upgrades leave it alone (apt-mark hold). */
  hold(name: string): Promise<void>;
  /** Releases a hold (apt-mark unhold); a package that is not held, or not there, is not an error. */
  release(name: string): Promise<void>;
  /** Whether the package is held. */
  isHeld(name: string): Promise<boolean>;
  /**
   * Pre-staging: downloads into the manager's cache what installing these packages at these versions
   * needs (apt-get --download-only; dnf's --downloadonly), installing nothing and changing neither the
   * node's repositories nor the index its installs use: `repositories` (the revision's, of this
   * manager) are read through a private configuration. A package or version they do not offer fails
   * here, before the node's turn. Returns what it downloaded, in the manager's words (bounded).
   */
  download(packages: readonly PackageRequest[], repositories: readonly RenderedRepository[]): Promise<string>;
}

/** A package at a version (undefined: the newest the repositories offer). */
export interface PackageRequest {
  name: string;
  version?: string;
}
