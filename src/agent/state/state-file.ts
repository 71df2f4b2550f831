// One file in the agent's state directory, and the two ways the agent changes such a file: replacing
// it whole (the directory made private first, other processes' leftover temporary files removed, then
// an atomic write of a 0600 file) and deleting it durably (the directory fsynced after the unlink).
// The last applied revision, the apply journal and the small JSON records extend it; the two changes
// are protected, so each store's own methods stay the only way to change its file.

import { join } from 'node:path';
import { writeFileAtomic } from '../../util/atomic-write.ts';
import { unlink } from '../../util/fs-async.ts';
import { syncDirectory } from '../executors/directory-sync.ts';
import { removeStaleTemporaryFiles } from './stale-temporary-files.ts';
import { ensureStateDirectory } from './state-directory.ts';

export abstract class StateFile {
  readonly stateDir: string;
  readonly fileName: string;
  readonly path: string;

  protected constructor(stateDir: string, fileName: string) {
    this.stateDir = stateDir;
    this.fileName = fileName;
    this.path = join(stateDir, fileName);
  }

  /** Replaces the file with `text`: after a crash it holds the old text or the new, never a mix. */
  protected async replace(text: string): Promise<void> {
    await ensureStateDirectory(this.stateDir);
    await removeStaleTemporaryFiles(this.stateDir, this.fileName);
    await writeFileAtomic(this.path, text, { mode: 0o600 });
  }

  /**
   * Deletes the file, durably once this resolves. `syncIfAbsent`: fsync the directory even when the
   * file was already gone (an earlier delete's sync may have failed).
   */
  protected async remove({ syncIfAbsent = false }: { syncIfAbsent?: boolean } = {}): Promise<void> {
    try {
      await unlink(this.path);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
      if (!syncIfAbsent) return;
    }
    await syncDirectory(this.stateDir);
  }
}
