// The real FileExecutor: acts on the filesystem under a root directory ('/' on a node, a temporary
// directory in tests, a container's rootfs in the end-to-end suite). Every path goes through
// resolveInRoot, so nothing outside the root is ever read, written or removed.

import { constants } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { writeFileAtomic } from '../../util/atomic-write.ts';
import { chmod, lstat, mkdir, type OpenFile, open, rmdir, unlink } from '../../util/fs-async.ts';
import { syncDirectory } from './directory-sync.ts';
import { resolveInRoot } from './root-path.ts';
import type { FileExecutor, FileState, FileWriteOptions, Ownership, Principal } from './types.ts';
import { resolveOwnership } from './user-database.ts';

const DEFAULT_FILE_MODE = 0o644;
const DIRECTORY_MODE = 0o755;
const SPECIAL_BITS = 0o7000;

function errorCode(error: unknown): string | undefined {
  return (error as NodeJS.ErrnoException).code;
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

  /** The host path a node path maps to (symlinked directories resolved inside the root). */
  hostPath(path: string): Promise<string> {
    return resolveInRoot(this.rootDir, path);
  }

  async read(path: string): Promise<FileState | undefined> {
    const hostPath = await this.hostPath(path);
    let handle: OpenFile;
    try {
      // O_NOFOLLOW: report a symlink as what it is; O_NONBLOCK: a FIFO must not hang the agent.
      handle = await open(hostPath, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
    } catch (error) {
      const code = errorCode(error);
      if (code === 'ENOENT' || code === 'ENOTDIR') return undefined;
      if (code !== 'ELOOP' && code !== 'ENXIO') throw error;
      const stats = await lstat(hostPath); // a symlink or a socket
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
    const hostPath = await this.hostPath(path);
    const { uid, gid } = await this.resolveOwnership(options.owner, options.group);
    const existing = await lstat(hostPath).catch((error) => {
      if (errorCode(error) === 'ENOENT') return undefined;
      throw error;
    });
    if (existing?.isDirectory()) throw new Error(`cannot write file ${path}: a directory is in the way`);
    await this.createParents(dirname(hostPath));
    await writeFileAtomic(hostPath, content, { mode, uid, gid });
    // chown clears setuid/setgid even for root, so those bits are set again after the owner; the
    // file briefly has fewer privileges than asked, never more.
    if (mode & SPECIAL_BITS) await chmod(hostPath, mode);
  }

  async remove(path: string): Promise<void> {
    const hostPath = await this.hostPath(path);
    try {
      const stats = await lstat(hostPath);
      if (stats.isDirectory()) throw new Error(`cannot remove ${path}: it is a directory`);
      await unlink(hostPath);
    } catch (error) {
      const code = errorCode(error);
      if (code === 'ENOENT' || code === 'ENOTDIR') return;
      throw error;
    }
    await syncDirectory(dirname(hostPath));
  }

  async removeDirectoryIfEmpty(path: string): Promise<boolean> {
    const hostPath = await this.hostPath(path);
    try {
      const stats = await lstat(hostPath);
      if (!stats.isDirectory()) return false;
      await rmdir(hostPath);
    } catch (error) {
      const code = errorCode(error);
      if (code === 'ENOENT') return true;
      if (code === 'ENOTEMPTY' || code === 'EEXIST' || code === 'ENOTDIR') return false;
      throw error;
    }
    await syncDirectory(dirname(hostPath));
    return true;
  }

  resolveOwnership(owner?: Principal, group?: Principal): Promise<Ownership> {
    return resolveOwnership(this.rootDir, owner, group);
  }

  // Creates missing directories one by one with an exact 0755 (not filtered by the umask), each
  // made durable in its parent, outermost first.
  private async createParents(hostDir: string): Promise<void> {
    const missing: string[] = [];
    for (let dir = hostDir; dir !== this.rootDir && dir !== dirname(dir); dir = dirname(dir)) {
      try {
        await lstat(dir);
        break;
      } catch (error) {
        if (errorCode(error) !== 'ENOENT') throw error;
        missing.unshift(dir);
      }
    }
    for (const dir of missing) {
      try {
        await mkdir(dir, { mode: DIRECTORY_MODE });
        await chmod(dir, DIRECTORY_MODE);
      } catch (error) {
        if (errorCode(error) !== 'EEXIST') throw error; // created concurrently: fine
      }
      await syncDirectory(dirname(dir));
    }
  }
}

function ids(stats: { uid: number; gid: number }): { uid: number; gid: number } {
  return { uid: stats.uid, gid: stats.gid };
}
