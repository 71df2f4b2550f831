// One JSON file holding part of a simulated node's state across runs of `nodeherd up` (its files,
// its packages): read back once when the node is built, then rewritten whole and atomically after
// each change, one write at a time so that an older state never overwrites a newer one.

import { mkdir, readFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { writeFileAtomic } from '../util/atomic-write.ts';

export class NodeSnapshotFile<T> {
  private readonly path: string;
  /** What the file holds, for errors: "files", "packages". */
  private readonly what: string;
  private saving: Promise<void> = Promise.resolve();

  constructor(path: string, what: string) {
    this.path = path;
    this.what = what;
  }

  /**
   * Hands the state the last run saved to `restore`; on a first run (no file) does nothing. A file
   * that cannot be read, parsed or restored is an error naming it.
   */
  async load(restore: (state: T) => void | Promise<void>): Promise<void> {
    try {
      await restore(JSON.parse(await readFile(this.path, 'utf8')) as T);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return;
      throw new Error(
        `cannot read the simulated node's ${this.what} from ${this.path}: ${(error as Error).message}`,
      );
    }
  }

  /** Writes what `state()` returns once every earlier save is done; resolves when it is on disk. */
  save(state: () => T | Promise<T>): Promise<void> {
    const next = this.saving.then(async () => {
      const text = `${JSON.stringify(await state())}\n`;
      await mkdir(dirname(this.path), { recursive: true, mode: 0o700 });
      await writeFileAtomic(this.path, text, { mode: 0o600 });
    });
    this.saving = next.catch(() => {});
    return next;
  }

  /** Resolves once every save so far is on disk (or failed). */
  saved(): Promise<void> {
    return this.saving;
  }
}
