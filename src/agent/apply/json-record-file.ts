// A small JSON record kept in the state directory (written atomically, 0600), or absent. The agent
// keeps three besides the state component's files: what an interrupted apply may have touched, the
// last failure, and a pending reboot or self-restart.

import { join } from 'node:path';
import { writeFileAtomic } from '../../util/atomic-write.ts';
import { unlink } from '../../util/fs-async.ts';
import { isPlainObject } from '../../util/plain-object.ts';
import { readTextIfPresent } from '../../util/read-if-present.ts';
import { syncDirectory } from '../executors/directory-sync.ts';
import { removeStaleTemporaryFiles } from '../state/stale-temporary-files.ts';
import { ensureStateDirectory } from '../state/state-directory.ts';

export { isPlainObject as isObject } from '../../util/plain-object.ts';

export class JsonRecordFile<T> {
  readonly stateDir: string;
  readonly fileName: string;
  readonly path: string;
  private readonly isValid: (value: unknown) => value is T;

  constructor(stateDir: string, fileName: string, isValid: (value: unknown) => value is T) {
    this.stateDir = stateDir;
    this.fileName = fileName;
    this.path = join(stateDir, fileName);
    this.isValid = isValid;
  }

  /** The record, or undefined when absent. An unreadable record counts as absent (it is advisory). */
  async read(): Promise<T | undefined> {
    const text = await readTextIfPresent(this.path);
    if (text === undefined) return undefined;
    try {
      const value: unknown = JSON.parse(text);
      return this.isValid(value) ? value : undefined;
    } catch {
      return undefined;
    }
  }

  async write(value: T): Promise<void> {
    await ensureStateDirectory(this.stateDir);
    await removeStaleTemporaryFiles(this.stateDir, this.fileName);
    await writeFileAtomic(this.path, `${JSON.stringify(value)}\n`, { mode: 0o600 });
  }

  async remove(): Promise<void> {
    try {
      await unlink(this.path);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return;
      throw error;
    }
    await syncDirectory(this.stateDir);
  }
}

/** `value` is an object whose named fields have these types (as typeof says). */
export function hasFields(
  value: unknown,
  fields: Record<string, 'string' | 'number' | 'boolean'>,
): value is Record<string, unknown> {
  return isPlainObject(value) && Object.entries(fields).every(([key, type]) => typeof value[key] === type);
}
