// Atomic file replacement: readers see either the old content or the new content, never a partial
// file, and after a crash the file is one or the other. The content goes to a temporary file in the
// same directory (rename is only atomic within one filesystem), is fsynced, renamed over the target,
// and then the directory is fsynced so the rename itself survives a power loss.

import { randomBytes } from 'node:crypto';
import {
  closeSync,
  fchmodSync,
  fchownSync,
  fsyncSync,
  openSync,
  renameSync,
  unlinkSync,
  writeSync,
} from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { type OpenFile, open, rename, unlink } from './fs-async.ts';

export interface AtomicWriteOptions {
  /**
   * Permission bits of the written file, applied exactly (not filtered by the umask).
   * Defaults to 0o600: forgetting the mode must not leak a secret; a file that is too private is
   * noticed at once, one that is too public is not.
   */
  mode?: number;
  /** Owner to set on the file before it becomes visible (needs privileges). */
  uid?: number;
  /** Group to set on the file before it becomes visible (needs privileges). */
  gid?: number;
}

const DEFAULT_MODE = 0o600;

// Unique per writer, so concurrent writers never share a temporary file; dot-prefixed so globbing
// readers skip it.
function temporaryPathFor(path: string): string {
  return join(dirname(path), `.${basename(path)}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`);
}

function toBytes(data: string | Uint8Array): Uint8Array {
  return typeof data === 'string' ? Buffer.from(data, 'utf8') : data;
}

// Some filesystems cannot fsync a directory; the rename has still happened, so those errors are
// not worth failing the write for.
function isUnsupportedDirectorySync(error: unknown): boolean {
  const code = (error as NodeJS.ErrnoException).code;
  return code === 'EINVAL' || code === 'EISDIR' || code === 'EPERM' || code === 'ENOTSUP';
}

function syncDirectory(dir: string): void {
  let fd: number | undefined;
  try {
    fd = openSync(dir, 'r');
    fsyncSync(fd);
  } catch (error) {
    if (!isUnsupportedDirectorySync(error)) throw error;
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

async function syncDirectoryAsync(dir: string): Promise<void> {
  let handle: OpenFile | undefined;
  try {
    handle = await open(dir, 'r');
    await handle.sync();
  } catch (error) {
    if (!isUnsupportedDirectorySync(error)) throw error;
  } finally {
    await handle?.close();
  }
}

function wantsOwner(options: AtomicWriteOptions): boolean {
  return options.uid !== undefined || options.gid !== undefined;
}

/** Replaces `path` with `data` atomically and durably (blocking variant). */
export function writeFileAtomicSync(
  path: string,
  data: string | Uint8Array,
  options: AtomicWriteOptions = {},
): void {
  const temporary = temporaryPathFor(path);
  const mode = options.mode ?? DEFAULT_MODE;
  const bytes = toBytes(data);
  let fd: number | undefined;
  try {
    // 'wx' refuses to follow a planted symlink or reuse an existing file.
    fd = openSync(temporary, 'wx', mode);
    // chown clears setuid/setgid, so the mode is set after it.
    if (wantsOwner(options)) fchownSync(fd, options.uid ?? -1, options.gid ?? -1);
    fchmodSync(fd, mode);
    let written = 0;
    while (written < bytes.length) {
      written += writeSync(fd, bytes, written, bytes.length - written);
    }
    fsyncSync(fd);
    closeSync(fd);
    fd = undefined;
    renameSync(temporary, path);
  } catch (error) {
    if (fd !== undefined) closeSync(fd);
    try {
      unlinkSync(temporary);
    } catch {
      // Already renamed or never created.
    }
    throw error;
  }
  syncDirectory(dirname(path));
}

/** Replaces `path` with `data` atomically and durably. */
export async function writeFileAtomic(
  path: string,
  data: string | Uint8Array,
  options: AtomicWriteOptions = {},
): Promise<void> {
  const temporary = temporaryPathFor(path);
  const mode = options.mode ?? DEFAULT_MODE;
  let handle: OpenFile | undefined;
  try {
    handle = await open(temporary, 'wx', mode);
    if (wantsOwner(options)) await handle.chown(options.uid ?? -1, options.gid ?? -1);
    await handle.chmod(mode);
    await handle.writeFile(toBytes(data));
    await handle.sync();
    await handle.close();
    handle = undefined;
    await rename(temporary, path);
  } catch (error) {
    await handle?.close();
    await unlink(temporary).catch(() => {});
    throw error;
  }
  await syncDirectoryAsync(dirname(path));
}
