// Maps a node path (absolute, as the config names it) to a host path under the executor's root
// directory, resolving symlinks the way the node itself would see them: an absolute symlink target
// starts again at the root and '..' stops at the root (chroot semantics, like openat2's
// RESOLVE_IN_ROOT). So a symlink can never lead a write outside the root: a rootfs's own
// `/etc/localtime -> /usr/share/...` or merged-usr `/lib -> usr/lib` resolve inside it.
//
// This resolves by path: nothing may act by the path it returns (a link swapped in meanwhile would
// be followed, and it trusts every user's links). The file executor walks and acts on descriptors
// (safe-path.ts); this serves messages, tests and the simulated executor's path checks.

import { join } from 'node:path';
import { lstat, readlink } from '../../util/fs-async.ts';

const MAX_SYMLINK_HOPS = 40; // Linux's own limit before ELOOP.

export class PathOutsideRootError extends Error {
  constructor(path: string, why: string) {
    super(`refusing path ${JSON.stringify(path)}: ${why}`);
    this.name = 'PathOutsideRootError';
  }
}

/** Splits a config path into its components; refuses relative paths and '..' outright. */
export function nodePathComponents(path: string): string[] {
  if (!path.startsWith('/')) throw new PathOutsideRootError(path, 'not absolute');
  if (path.includes('\0')) throw new PathOutsideRootError(path, 'contains a NUL byte');
  const parts = path.split('/').filter((part) => part !== '' && part !== '.');
  if (parts.includes('..')) throw new PathOutsideRootError(path, "contains '..'");
  return parts;
}

function isMissing(error: unknown): boolean {
  const code = (error as NodeJS.ErrnoException).code;
  return code === 'ENOENT' || code === 'ENOTDIR';
}

/**
 * The host path of `path` under `rootDir`, every symlink in the directories resolved inside the
 * root. The last component is kept as is unless `followLast` (a symlink there is the entry itself).
 */
export async function resolveInRoot(
  rootDir: string,
  path: string,
  options: { followLast?: boolean } = {},
): Promise<string> {
  const pending = nodePathComponents(path);
  let resolved: string[] = [];
  let hops = 0;
  while (pending.length > 0) {
    const part = pending.shift()!;
    if (part === '..') {
      resolved.pop(); // '..' at the root stays at the root.
      continue;
    }
    if (pending.length === 0 && !options.followLast) {
      resolved.push(part);
      break;
    }
    const hostPath = join(rootDir, ...resolved, part);
    let isSymlink = false;
    try {
      isSymlink = (await lstat(hostPath)).isSymbolicLink();
    } catch (error) {
      if (!isMissing(error)) throw error;
    }
    if (!isSymlink) {
      resolved.push(part);
      continue;
    }
    if (++hops > MAX_SYMLINK_HOPS) throw new PathOutsideRootError(path, 'too many levels of symbolic links');
    const target = await readlink(hostPath);
    if (target.startsWith('/')) resolved = [];
    pending.unshift(...target.split('/').filter((p) => p !== '' && p !== '.'));
  }
  return join(rootDir, ...resolved);
}
