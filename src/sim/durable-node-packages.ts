// The packages of a simulated node, kept across runs of `nodeherd up`, as a real machine keeps its
// dpkg database and apt lists on disk. Without them every run would start from the base image: a
// kubelet the pool upgraded would come back at the base image's version, with none of the pool's
// repositories, and the agent would find its pinned packages drifted. After each change the whole state
// (installed and held packages, repositories, the index as of the last update) is written atomically
// to one JSON file, like the node's files (durable-node-files.ts).

import { mkdir, readFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import type { SimulatedPackages, SimulatedPackagesState } from '../agent/executors/simulated-packages.ts';
import { writeFileAtomic } from '../util/atomic-write.ts';

export class DurableNodePackages {
  private readonly packages: SimulatedPackages;
  private readonly snapshotPath: string;
  /** Serialises snapshot writes, so an older state never overwrites a newer one. */
  private saving: Promise<void> = Promise.resolve();

  private constructor(packages: SimulatedPackages, snapshotPath: string) {
    this.packages = packages;
    this.snapshotPath = snapshotPath;
  }

  /** Loads what the node had at the end of the last run into `packages` (before it boots), and keeps saving. */
  static async restore(packages: SimulatedPackages, snapshotPath: string): Promise<DurableNodePackages> {
    try {
      packages.restore(JSON.parse(await readFile(snapshotPath, 'utf8')) as SimulatedPackagesState);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') {
        throw new Error(
          `cannot read the simulated node's packages from ${snapshotPath}: ${(error as Error).message}`,
        );
      }
    }
    const durable = new DurableNodePackages(packages, snapshotPath);
    // Awaited by the operation: what the agent records as done is on disk.
    packages.onChange(() => durable.save());
    return durable;
  }

  /** Resolves once every change so far is on disk. */
  saved(): Promise<void> {
    return this.saving;
  }

  private save(): Promise<void> {
    const next = this.saving.then(async () => {
      await mkdir(dirname(this.snapshotPath), { recursive: true, mode: 0o700 });
      await writeFileAtomic(this.snapshotPath, `${JSON.stringify(this.packages.state())}\n`, { mode: 0o600 });
    });
    this.saving = next.catch(() => {});
    return next;
  }
}
