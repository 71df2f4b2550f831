// An in-memory apt (or dnf) for simulated nodes and tests. It keeps the ordering rule agents get wrong: the
// packages of a newly added repository become installable only after update(). Repositories are
// validated exactly as the real backend renders them, so a config the simulator accepts is one
// apt (or dnf) would accept.

import { type PackageManagerName, packageManagerRules } from '../../api/packages/registry.ts';
import type { RenderedRepository } from '../../api/types.ts';
import { sleep } from '../../util/sleep.ts';
import { assertPackageName, assertPackageVersion } from './apt/apt-commands.ts';
import { aptRepository, keyringFile, renderSources } from './apt/apt-sources.ts';
import { assertRpmName, assertRpmVersion } from './dnf/dnf-commands.ts';
import { dnfRepository, renderRepoFile } from './dnf/dnf-repo-file.ts';
import { type FailureInjection, SimulationRecorder, type SimulationTiming } from './simulation-recorder.ts';
import type { PackageExecutor, PackageRequest } from './types.ts';

export type PackageOperation =
  | 'addRepository'
  | 'removeRepository'
  | 'update'
  | 'install'
  | 'remove'
  | 'installedVersion'
  | 'hold'
  | 'release'
  | 'isHeld'
  | 'download';

/** Versions are listed oldest first; installing without a version takes the last one. */
export type PackageCatalogue = Record<string, string[]>;

export interface SimulatedPackagesOptions extends SimulationTiming<PackageOperation> {
  /** Installed before the agent runs: name → version. */
  installed?: Record<string, string>;
  /** Installable from the distribution's own repositories. */
  available?: PackageCatalogue;
  /** What each added repository offers (by repository name), visible after add + update(). */
  repositoryPackages?: Record<string, PackageCatalogue>;
  /** The manager simulated (the node's OS family): names, versions and repositories follow its rules. Default apt. */
  manager?: PackageManagerName;
  /**
   * What a repository offers by its definition (its URI, say), for those `repositoryPackages` does not
   * name: a simulated mirror such as pkgs.k8s.io's. Visible after add + update(), like the others.
   */
  catalogueOf?: (repository: RenderedRepository) => PackageCatalogue | undefined;
}

/** Everything a SimulatedPackages holds, to keep it across runs (`nodeherd up`). */
export interface SimulatedPackagesState {
  installed: Record<string, string>;
  held: string[];
  repositories: RenderedRepository[];
  /** The repositories as of the last update(). */
  indexed: RenderedRepository[];
}

/** Each simulated manager's checks: those of its real backend. */
const CHECKS: Record<
  PackageManagerName,
  { name(name: string): void; version(version: string): void; repository(r: RenderedRepository): void }
> = {
  apt: {
    name: assertPackageName,
    version: assertPackageVersion,
    repository: (repository) => {
      const apt = aptRepository(repository);
      renderSources(apt, keyringFile(apt)?.path);
    },
  },
  dnf: {
    name: assertRpmName,
    version: assertRpmVersion,
    repository: (repository) => {
      renderRepoFile(dnfRepository(repository));
    },
  },
};

export class SimulatedPackages implements PackageExecutor {
  readonly manager: PackageManagerName;
  private readonly check: (typeof CHECKS)[PackageManagerName];
  readonly recorder: SimulationRecorder<PackageOperation>;
  private readonly installedPackages: Map<string, string>;
  private readonly heldPackages = new Set<string>();
  private readonly baseCatalogue: PackageCatalogue;
  private readonly repositoryPackages: Record<string, PackageCatalogue>;
  private readonly addedRepositories = new Map<string, RenderedRepository>();
  /** Repositories as of the last update(): apt only knows those lists. */
  private indexedRepositories: RenderedRepository[] = [];
  private readonly catalogueOf: SimulatedPackagesOptions['catalogueOf'];
  /** Told after every change of installed or held packages, repositories or index. */
  private changed: (() => Promise<void> | void) | undefined;
  /** name=version of the packages in the cache (downloaded, not installed yet): apt's archives. */
  private readonly cached = new Set<string>();

  constructor(options: SimulatedPackagesOptions = {}) {
    this.manager = options.manager ?? 'apt';
    this.check = CHECKS[this.manager];
    this.recorder = new SimulationRecorder(options);
    this.installedPackages = new Map(Object.entries(options.installed ?? {}));
    this.baseCatalogue = { ...options.available };
    this.repositoryPackages = { ...options.repositoryPackages };
    this.catalogueOf = options.catalogueOf;
  }

  /** What it holds now: installed and held packages, repositories and the index (for a copy on disk). */
  state(): SimulatedPackagesState {
    return {
      installed: this.installed(),
      held: this.held(),
      repositories: this.repositories().map((r) => structuredClone(r)),
      indexed: this.indexedRepositories.map((r) => structuredClone(r)),
    };
  }

  /** Calls `listener` after every operation that changed what state() gives (one listener). */
  onChange(listener: (() => Promise<void> | void) | undefined): void {
    this.changed = listener;
  }

  /** Puts back what state() gave (the machine's packages as a previous run left them); no operation runs. */
  restore(state: SimulatedPackagesState): void {
    this.installedPackages.clear();
    for (const [name, version] of Object.entries(state.installed)) this.installedPackages.set(name, version);
    this.heldPackages.clear();
    for (const name of state.held) this.heldPackages.add(name);
    this.addedRepositories.clear();
    for (const repository of state.repositories)
      this.addedRepositories.set(repository.name, structuredClone(repository));
    this.indexedRepositories = state.indexed.map((r) => structuredClone(r));
  }

  get calls() {
    return this.recorder.calls;
  }

  fail(op: PackageOperation, target: string | undefined, injection?: FailureInjection): void {
    this.recorder.fail(op, target, injection);
  }

  installed(): Record<string, string> {
    return Object.fromEntries([...this.installedPackages].sort(([a], [b]) => a.localeCompare(b)));
  }

  repositories(): RenderedRepository[] {
    return [...this.addedRepositories.values()];
  }

  async addRepository(repository: RenderedRepository): Promise<void> {
    this.check.repository(repository); // same validation as the real backend
    await this.recorder.run('addRepository', repository.name, () => {
      this.addedRepositories.set(repository.name, structuredClone(repository));
    });
    await this.changed?.();
  }

  async removeRepository(name: string): Promise<void> {
    await this.recorder.run('removeRepository', name, () => {
      this.addedRepositories.delete(name);
    });
    await this.changed?.();
  }

  async update(): Promise<void> {
    await this.recorder.run('update', undefined, () => {
      this.indexedRepositories = [...this.addedRepositories.values()].map((r) => structuredClone(r));
    });
    await this.changed?.();
  }

  /**
   * Installs from the cache, downloading first what is not there (the 'download' duration is added to
   * the install's, within the one 'install' call): a pre-staged package costs only the install.
   */
  async install(name: string, version?: string): Promise<void> {
    this.check.name(name);
    if (version !== undefined) this.check.version(version);
    const wanted = this.resolve(version, this.versionsOf(name));
    if (wanted !== undefined && !this.cached.has(`${name}=${wanted}`))
      await sleep(this.recorder.durationOf('download', name));
    await this.recorder.run('install', name, () => {
      // The manager knows an installed package from its database even when no index offers it.
      const installed = this.installedPackages.get(name);
      const versions = this.versionsOf(name);
      if (installed !== undefined && !versions.includes(installed)) versions.unshift(installed);
      const chosen = this.choose(name, version, versions);
      this.installedPackages.set(name, chosen);
      this.cached.delete(`${name}=${chosen}`); // apt-get clean, as unattended-upgrades runs it
    });
    await this.changed?.();
  }

  /**
   * apt-get --download-only through the revision's repositories (indexed for the download only, as
   * the real backend's private lists are): the packages land in the cache, nothing is installed.
   */
  async download(
    packages: readonly PackageRequest[],
    repositories: readonly RenderedRepository[],
  ): Promise<string> {
    for (const { name, version } of packages) {
      this.check.name(name);
      if (version !== undefined) this.check.version(version);
    }
    for (const repository of repositories) this.check.repository(repository);
    if (packages.length === 0) return 'nothing to download';
    const names = packages.map((p) => p.name).join(' ');
    return this.recorder.run('download', names, () => {
      const offered = repositories;
      const chosen = packages.map(
        ({ name, version }) => `${name}=${this.choose(name, version, this.versionsOf(name, offered))}`,
      );
      for (const key of chosen) this.cached.add(key);
      return `${chosen.length} downloaded (simulated mirror)`;
    });
  }

  /** Whether name=version is in the cache (downloaded and not installed since). */
  isCached(name: string, version: string): boolean {
    return this.cached.has(`${name}=${version}`);
  }

  /** The newest version the pin matches, as the manager resolves it (dnf: `1.2` is 1.2-<any release>). */
  private resolve(version: string | undefined, versions: readonly string[]): string | undefined {
    if (version === undefined) return versions.at(-1);
    const matches = packageManagerRules(this.manager).versionMatches;
    return versions.findLast((v) => matches(version, v));
  }

  private choose(name: string, version: string | undefined, versions: readonly string[]): string {
    if (versions.length === 0) throw new Error(`E: Unable to locate package ${name}`);
    const chosen = this.resolve(version, versions);
    if (chosen === undefined) throw new Error(`E: Version '${version}' for '${name}' was not found`);
    return chosen;
  }

  async remove(name: string): Promise<void> {
    this.check.name(name);
    await this.recorder.run('remove', name, () => {
      this.installedPackages.delete(name); // removing an absent package is not an error in apt either
      this.heldPackages.delete(name);
    });
    await this.changed?.();
  }

  async hold(name: string): Promise<void> {
    this.check.name(name);
    await this.recorder.run('hold', name, () => {
      if (!this.installedPackages.has(name) && this.versionsOf(name).length === 0) {
        throw new Error(`E: Unable to locate package ${name}`);
      }
      this.heldPackages.add(name);
    });
    await this.changed?.();
  }

  async release(name: string): Promise<void> {
    this.check.name(name);
    await this.recorder.run('release', name, () => {
      this.heldPackages.delete(name);
    });
    await this.changed?.();
  }

  async isHeld(name: string): Promise<boolean> {
    this.check.name(name);
    return this.recorder.run('isHeld', name, () => this.heldPackages.has(name));
  }

  /** Held packages, by name. */
  held(): string[] {
    return [...this.heldPackages].sort();
  }

  /**
   * What unattended-upgrades does behind the agent's back: every installed package that is not held
   * moves to the newest version known; returns those that moved. Not an operation the agent calls.
   */
  upgradeUnheld(): string[] {
    const moved: string[] = [];
    for (const [name, version] of this.installedPackages) {
      const newest = this.versionsOf(name).at(-1);
      if (this.heldPackages.has(name) || newest === undefined || newest === version) continue;
      this.installedPackages.set(name, newest);
      moved.push(name);
    }
    if (moved.length > 0) void this.changed?.();
    return moved.sort();
  }

  async installedVersion(name: string): Promise<string | undefined> {
    this.check.name(name);
    return this.recorder.run('installedVersion', name, () => this.installedPackages.get(name));
  }

  private versionsOf(
    name: string,
    repositories: readonly RenderedRepository[] = this.indexedRepositories,
  ): string[] {
    const versions = [...(this.baseCatalogue[name] ?? [])];
    for (const repository of repositories) {
      const catalogue = this.repositoryPackages[repository.name] ?? this.catalogueOf?.(repository);
      for (const version of catalogue?.[name] ?? []) {
        if (!versions.includes(version)) versions.push(version);
      }
    }
    return versions;
  }
}
