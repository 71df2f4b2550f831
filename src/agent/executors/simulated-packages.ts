// An in-memory apt for simulated nodes and tests. It keeps the ordering rule agents get wrong: the
// packages of a newly added repository become installable only after update(). Repositories are
// validated exactly as the real backend renders them, so a config the simulator accepts is one
// apt would accept.

import type { RenderedRepository } from '../../api/types.ts';
import { assertPackageName, assertPackageVersion } from './apt/apt-commands.ts';
import { aptRepository, keyringFile, renderSources } from './apt/apt-sources.ts';
import { type FailureInjection, SimulationRecorder, type SimulationTiming } from './simulation-recorder.ts';
import type { PackageExecutor } from './types.ts';

export type PackageOperation =
  | 'addRepository'
  | 'removeRepository'
  | 'update'
  | 'install'
  | 'remove'
  | 'installedVersion'
  | 'hold'
  | 'release'
  | 'isHeld';

/** Versions are listed oldest first; installing without a version takes the last one. */
export type PackageCatalogue = Record<string, string[]>;

export interface SimulatedPackagesOptions extends SimulationTiming<PackageOperation> {
  /** Installed before the agent runs: name → version. */
  installed?: Record<string, string>;
  /** Installable from the distribution's own repositories. */
  available?: PackageCatalogue;
  /** What each added repository offers (by repository name), visible after add + update(). */
  repositoryPackages?: Record<string, PackageCatalogue>;
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

export class SimulatedPackages implements PackageExecutor {
  readonly manager = 'apt';
  readonly recorder: SimulationRecorder<PackageOperation>;
  private readonly installedPackages: Map<string, string>;
  private readonly heldPackages = new Set<string>();
  private readonly baseCatalogue: PackageCatalogue;
  private readonly repositoryPackages: Record<string, PackageCatalogue>;
  private readonly catalogueOf: SimulatedPackagesOptions['catalogueOf'];
  private readonly addedRepositories = new Map<string, RenderedRepository>();
  /** Told after every change of installed or held packages, repositories or index. */
  private changed: (() => Promise<void> | void) | undefined;
  /** Repositories as of the last update(): apt only knows those lists. */
  private indexedRepositories: RenderedRepository[] = [];

  constructor(options: SimulatedPackagesOptions = {}) {
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
    const apt = aptRepository(repository);
    renderSources(apt, keyringFile(apt)?.path); // same validation as the real backend
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

  async install(name: string, version?: string): Promise<void> {
    assertPackageName(name);
    if (version !== undefined) assertPackageVersion(version);
    await this.recorder.run('install', name, () => {
      // apt knows an installed package from dpkg's status even when no index offers it.
      const installed = this.installedPackages.get(name);
      const versions = this.versionsOf(name);
      if (installed !== undefined && !versions.includes(installed)) versions.unshift(installed);
      if (versions.length === 0) throw new Error(`E: Unable to locate package ${name}`);
      const chosen = version ?? versions[versions.length - 1]!;
      if (!versions.includes(chosen)) throw new Error(`E: Version '${chosen}' for '${name}' was not found`);
      this.installedPackages.set(name, chosen);
    });
    await this.changed?.();
  }

  async remove(name: string): Promise<void> {
    assertPackageName(name);
    await this.recorder.run('remove', name, () => {
      this.installedPackages.delete(name); // removing an absent package is not an error in apt either
      this.heldPackages.delete(name);
    });
    await this.changed?.();
  }

  async hold(name: string): Promise<void> {
    assertPackageName(name);
    await this.recorder.run('hold', name, () => {
      if (!this.installedPackages.has(name) && this.versionsOf(name).length === 0) {
        throw new Error(`E: Unable to locate package ${name}`);
      }
      this.heldPackages.add(name);
    });
    await this.changed?.();
  }

  async release(name: string): Promise<void> {
    assertPackageName(name);
    await this.recorder.run('release', name, () => {
      this.heldPackages.delete(name);
    });
    await this.changed?.();
  }

  async isHeld(name: string): Promise<boolean> {
    assertPackageName(name);
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
    assertPackageName(name);
    return this.recorder.run('installedVersion', name, () => this.installedPackages.get(name));
  }

  private versionsOf(name: string): string[] {
    const versions = [...(this.baseCatalogue[name] ?? [])];
    for (const repository of this.indexedRepositories) {
      const catalogue = this.repositoryPackages[repository.name] ?? this.catalogueOf?.(repository);
      for (const version of catalogue?.[name] ?? []) {
        if (!versions.includes(version)) versions.push(version);
      }
    }
    return versions;
  }
}
