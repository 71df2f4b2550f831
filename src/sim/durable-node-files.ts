// The files of a simulated node, kept across runs of `nodeherd up`. A simulated node's filesystem is
// in memory (MemoryFileExecutor); without a copy on disk every restart would find the managed files
// gone and the agent would write them all back (drift repair), as if the machine had been wiped.
// After each change the whole set is written atomically to one JSON file: a node holds a handful
// of managed files, and one file per node keeps the state directory easy to read.

import type { MemoryFileExecutor } from '../agent/executors/memory-file-executor.ts';
import type {
  FileExecutor,
  FileState,
  FileWriteOptions,
  Ownership,
  Principal,
} from '../agent/executors/types.ts';
import { NodeSnapshotFile } from './durable-node-snapshot.ts';

interface StoredFile {
  path: string;
  /** base64 */
  content: string;
  mode: number;
  uid: number;
  gid: number;
}

export class DurableNodeFiles implements FileExecutor {
  private readonly files: MemoryFileExecutor;
  private readonly snapshot: NodeSnapshotFile<StoredFile[]>;

  private constructor(files: MemoryFileExecutor, snapshot: NodeSnapshotFile<StoredFile[]>) {
    this.files = files;
    this.snapshot = snapshot;
  }

  /** Loads what the node held at the end of the last run into `files`, and keeps saving it. */
  static async restore(files: MemoryFileExecutor, snapshotPath: string): Promise<DurableNodeFiles> {
    const snapshot = new NodeSnapshotFile<StoredFile[]>(snapshotPath, 'files');
    await snapshot.load(async (stored) => {
      for (const file of stored) {
        await files.write(file.path, Buffer.from(file.content, 'base64'), {
          mode: file.mode,
          owner: file.uid,
          group: file.gid,
        });
      }
    });
    return new DurableNodeFiles(files, snapshot);
  }

  read(path: string): Promise<FileState | undefined> {
    return this.files.read(path);
  }

  async write(path: string, content: Buffer, options?: FileWriteOptions): Promise<void> {
    await this.files.write(path, content, options);
    await this.save();
  }

  async remove(path: string): Promise<void> {
    await this.files.remove(path);
    await this.save();
  }

  removeDirectoryIfEmpty(path: string): Promise<boolean> {
    return this.files.removeDirectoryIfEmpty(path);
  }

  resolveOwnership(owner?: Principal, group?: Principal): Promise<Ownership> {
    return this.files.resolveOwnership(owner, group);
  }

  private save(): Promise<void> {
    return this.snapshot.save(async () => {
      const stored: StoredFile[] = [];
      for (const path of this.files.paths()) {
        const state = await this.files.read(path);
        if (!state) continue;
        stored.push({
          path,
          content: state.content.toString('base64'),
          mode: state.mode,
          uid: state.uid,
          gid: state.gid,
        });
      }
      return stored;
    });
  }
}
