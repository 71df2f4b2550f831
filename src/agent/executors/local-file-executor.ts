// The real FileExecutor: acts on the filesystem under a root directory ('/' on a node, a temporary
// directory in tests, a container's rootfs in the end-to-end suite). Every path is walked on open
// directory descriptors (safe-path.ts) and every act — create, write, chown, chmod, rename, unlink,
// rmdir — goes through the directory the walk holds, so nothing outside the root is touched, and no
// user can redirect the agent out of their own tree with a symlink, before or during the act.

import { randomBytes } from 'node:crypto';
import { constants } from 'node:fs';
import { resolve } from 'node:path';
import { lstat, type OpenFile, open, rename, rmdir, unlink } from '../../util/fs-async.ts';
import { removeStaleTemporaryFiles } from '../state/stale-temporary-files.ts';
import { resolveInRoot } from './root-path.ts';
import { UnsafePathError, type WalkedPath, type WalkOptions, walkPath } from './safe-path.ts';
import type { FileExecutor, FileState, FileWriteOptions, Ownership, Principal } from './types.ts';
import { resolveOwnership, userName } from './user-database.ts';

const DEFAULT_FILE_MODE = 0o644;
const TEMPORARY_MODE = 0o600;

function errorCode(error: unknown): string | undefined {
  return (error as NodeJS.ErrnoException).code;
}

function isMissing(error: unknown): boolean {
  const code = errorCode(error);
  return code === 'ENOENT' || code === 'ENOTDIR';
}

function kindOf(stats: { isFile(): boolean; isSymbolicLink(): boolean; isDirectory(): boolean }) {
  if (stats.isFile()) return 'file';
  if (stats.isSymbolicLink()) return 'symlink';
  if (stats.isDirectory()) return 'directory';
  return 'other';
}

export class LocalFileExecutor implements FileExecutor {
  readonly rootDir: string;

  constructor(rootDir: string) {
    this.rootDir = resolve(rootDir);
  }

  /**
   * The host path a node path maps to (symlinked directories resolved inside the root), for
   * messages and tests only: acting by it would follow whatever link is there by then.
   */
  hostPath(path: string): Promise<string> {
    return resolveInRoot(this.rootDir, path);
  }

  /**
   * Runs `act` on the walked path. A refusal names the owner from the node's /etc/passwd.
   * Missing directories (without `create`) make `missing()`'s answer.
   */
  private async at<T>(
    path: string,
    options: WalkOptions,
    act: (walked: WalkedPath) => Promise<T>,
    missing: () => T,
  ): Promise<T> {
    let walked: WalkedPath;
    try {
      walked = await walkPath(this.rootDir, path, options);
    } catch (error) {
      if (error instanceof UnsafePathError) throw await this.named(error);
      if (!options.create && isMissing(error)) return missing();
      throw error;
    }
    try {
      return await act(walked);
    } finally {
      await walked.close();
    }
  }

  private async named(error: UnsafePathError): Promise<UnsafePathError> {
    if (error.ownerUid < 0) return error;
    return error.withOwnerName(await userName(this.rootDir, error.ownerUid).catch(() => undefined));
  }

  async read(path: string): Promise<FileState | undefined> {
    try {
      return await this.at(
        path,
        {},
        (walked) => this.readEntry(walked),
        () => undefined,
      );
    } catch (error) {
      // What a refused path leads to is not the node's file: to drift checks it is missing.
      if (error instanceof UnsafePathError) return undefined;
      throw error;
    }
  }

  private async readEntry(walked: WalkedPath): Promise<FileState | undefined> {
    let handle: OpenFile;
    try {
      // O_NOFOLLOW: report a symlink as what it is; O_NONBLOCK: a FIFO must not hang the agent.
      handle = await open(walked.entry, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
    } catch (error) {
      const code = errorCode(error);
      if (code === 'ENOENT' || code === 'ENOTDIR') return undefined;
      if (code !== 'ELOOP' && code !== 'ENXIO') throw error;
      const stats = await lstat(walked.entry); // a symlink or a socket
      return { kind: kindOf(stats), content: Buffer.alloc(0), mode: stats.mode & 0o7777, ...ids(stats) };
    }
    try {
      const stats = await handle.stat();
      const kind = kindOf(stats);
      const content = kind === 'file' ? await handle.readFile() : Buffer.alloc(0);
      return { kind, content, mode: stats.mode & 0o7777, ...ids(stats) };
    } finally {
      await handle.close();
    }
  }

  async write(path: string, content: Buffer, options: FileWriteOptions = {}): Promise<void> {
    const mode = options.mode ?? DEFAULT_FILE_MODE;
    if (!Number.isInteger(mode) || mode < 0 || mode > 0o7777) throw new RangeError(`invalid mode ${mode}`);
    const { uid, gid } = await this.resolveOwnership(options.owner, options.group);
    await this.at(
      path,
      { create: true },
      async (walked) => {
        const existing = await lstat(walked.entry).catch((error) => {
          if (errorCode(error) === 'ENOENT') return undefined;
          throw error;
        });
        if (existing?.isDirectory()) throw new Error(`cannot write file ${path}: a directory is in the way`);
        await writeInDirectory(walked, content, mode, uid, gid);
      },
      () => undefined,
    );
  }

  async remove(path: string): Promise<void> {
    try {
      await this.at(
        path,
        {},
        async (walked) => {
          try {
            const stats = await lstat(walked.entry);
            if (stats.isDirectory()) throw new Error(`cannot remove ${path}: it is a directory`);
            await unlink(walked.entry);
          } catch (error) {
            if (isMissing(error)) return;
            throw error;
          }
          await walked.syncDirectory();
        },
        () => undefined,
      );
    } catch (error) {
      // Nothing of the node's is at a refused path. Only when something is where the link leads
      // does the removal fail loudly (and remove nothing): a rollback of a refused write has nothing
      // to undo there and must go on.
      if (!(error instanceof UnsafePathError)) throw error;
      const elsewhere = await resolveInRoot(this.rootDir, path)
        .then(lstat)
        .catch(() => undefined);
      if (elsewhere !== undefined) throw error;
    }
  }

  async removeDirectoryIfEmpty(path: string): Promise<boolean> {
    try {
      return await this.at(
        path,
        {},
        async (walked) => {
          try {
            const stats = await lstat(walked.entry);
            if (!stats.isDirectory()) return false;
            await rmdir(walked.entry);
          } catch (error) {
            const code = errorCode(error);
            if (code === 'ENOENT') return true;
            if (code === 'ENOTEMPTY' || code === 'EEXIST' || code === 'ENOTDIR') return false;
            throw error;
          }
          await walked.syncDirectory();
          return true;
        },
        () => true,
      );
    } catch (error) {
      if (error instanceof UnsafePathError) return false;
      throw error;
    }
  }

  /** Removes other processes' leftover temporary files of `path`'s atomic writes, beside it. */
  async removeStaleTemporaryFiles(path: string): Promise<void> {
    try {
      await this.at(
        path,
        {},
        (walked) => removeStaleTemporaryFiles(`/proc/self/fd/${walked.fd}`, walked.name),
        () => undefined,
      );
    } catch (error) {
      if (!(error instanceof UnsafePathError)) throw error; // a refused path has no leftovers of ours
    }
  }

  resolveOwnership(owner?: Principal, group?: Principal): Promise<Ownership> {
    return resolveOwnership(this.rootDir, owner, group);
  }
}

/**
 * The atomic write, inside the walked directory: a new temporary file (O_EXCL|O_NOFOLLOW, 0600), its
 * content, owner and then mode set on its descriptor (chown clears setuid/setgid, so the mode comes
 * after it), fsync, rename over the name, fsync of the directory. Nothing is done by path after the
 * rename: a link swapped in there is never followed.
 */
async function writeInDirectory(
  walked: WalkedPath,
  content: Buffer,
  mode: number,
  uid: number,
  gid: number,
): Promise<void> {
  const temporaryName = `.${walked.name}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`;
  const temporary = walked.sibling(temporaryName);
  let handle: OpenFile | undefined;
  try {
    handle = await open(
      temporary,
      constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW,
      TEMPORARY_MODE,
    );
    await handle.writeFile(content);
    await handle.chown(uid, gid);
    await handle.chmod(mode);
    await handle.sync();
    await handle.close();
    handle = undefined;
    await rename(temporary, walked.entry);
  } catch (error) {
    await handle?.close().catch(() => {});
    await unlink(temporary).catch(() => {});
    throw error;
  }
  await walked.syncDirectory();
}

function ids(stats: { uid: number; gid: number }): { uid: number; gid: number } {
  return { uid: stats.uid, gid: stats.gid };
}
