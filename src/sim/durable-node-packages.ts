// The packages of a simulated node, kept across runs of `nodeherd up`, as a real machine keeps its
// dpkg database and apt lists on disk. Without them every run would start from the base image: a
// kubelet the pool upgraded would come back at the base image's version, with none of the pool's
// repositories, and the agent would find its pinned packages drifted. After each change the whole state
// (installed and held packages, repositories, the index as of the last update) is written atomically
// to one JSON file, like the node's files (durable-node-files.ts).

import type { SimulatedPackages, SimulatedPackagesState } from '../agent/executors/simulated-packages.ts';
import { NodeSnapshotFile } from './durable-node-snapshot.ts';

export class DurableNodePackages {
  private readonly snapshot: NodeSnapshotFile<SimulatedPackagesState>;

  private constructor(snapshot: NodeSnapshotFile<SimulatedPackagesState>) {
    this.snapshot = snapshot;
  }

  /** Loads what the node had at the end of the last run into `packages` (before it boots), and keeps saving. */
  static async restore(packages: SimulatedPackages, snapshotPath: string): Promise<DurableNodePackages> {
    const snapshot = new NodeSnapshotFile<SimulatedPackagesState>(snapshotPath, 'packages');
    await snapshot.load((state) => packages.restore(state));
    // Awaited by the operation: what the agent records as done is on disk.
    packages.onChange(() => snapshot.save(() => packages.state()));
    return new DurableNodePackages(snapshot);
  }

  /** Resolves once every change so far is on disk. */
  saved(): Promise<void> {
    return this.snapshot.saved();
  }
}
