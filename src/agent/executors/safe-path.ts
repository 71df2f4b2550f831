// Walks a node path (absolute, as the config names it) to the directory its last component lives in,
// one component at a time on open directory descriptors, so that what the agent then writes, chowns,
// chmods or removes is in the directory it checked — not wherever a path names by the time it acts.
// Node has no openat(2); every step and every act goes through /proc/self/fd/<fd>/<name>, whose
// lookup starts in the directory the descriptor holds (a magic link, not a path looked up again).
// Each directory is opened O_DIRECTORY|O_NOFOLLOW: a symlink is never followed by the kernel, only by
// this walk, which decides whether it may be followed.
//
// The rule, after systemd's chase() with CHASE_SAFE (src/basic/chase.c): root decides where a path
// leads until the walk passes something another user controls — a directory or symlink that user
// owns, or any entry of a directory that user owns. From then on the walk is confined to that user's
// tree: a symlink or directory another user controls is refused, an absolute symlink (which starts
// again at the root) is refused, and '..' may not climb above the first directory of that tree. Unlike
// chase(), confinement is remembered along the walk: alice's relative symlink in root's sticky /tmp
// may not lead to /etc through '..' of root-owned directories. Entries of a directory that others may
// write (group or world, without the sticky bit) are not followed when they are symlinks: anyone could
// have placed them. Root-owned links the OS ships (/var/run -> /run, merged-usr /lib -> usr/lib) are
// followed as before: only root could have made them.
//
// Within the executor's root, an absolute symlink starts again at the root and '..' stops there
// (chroot semantics, like openat2's RESOLVE_IN_ROOT), as before.

import { constants } from 'node:fs';
import { lstat, mkdir, type OpenFile, open, readlink } from '../../util/fs-async.ts';
import { nodePathComponents, PathOutsideRootError } from './root-path.ts';

const MAX_SYMLINK_HOPS = 40; // Linux's own limit before ELOOP.
const DIRECTORY_FLAGS = constants.O_RDONLY | constants.O_DIRECTORY | constants.O_NOFOLLOW;
const NEW_DIRECTORY_MODE = 0o755;
const STICKY = 0o1000;

/** A component of the path leads where its owner may not send the agent. */
export class UnsafePathError extends Error {
  readonly path: string;
  /** The node path of the component that was refused (as walked). */
  readonly component: string;
  readonly ownerUid: number;
  /** The reason, with {owner} where the owner's name goes. */
  readonly why: string;
  constructor(path: string, component: string, ownerUid: number, why: string, ownerName?: string) {
    const who = ownerUid < 0 ? 'another user' : `${ownerName ?? 'uid'} (uid ${ownerUid})`;
    super(`refusing path ${JSON.stringify(path)}: ${component} ${why.replaceAll('{owner}', who)}`);
    this.name = 'UnsafePathError';
    this.path = path;
    this.component = component;
    this.ownerUid = ownerUid;
    this.why = why;
  }

  /** The same refusal, naming the owner (looked up in the node's /etc/passwd). */
  withOwnerName(name: string | undefined): UnsafePathError {
    return name === undefined
      ? this
      : new UnsafePathError(this.path, this.component, this.ownerUid, this.why, name);
  }
}

/** Who may change an entry: a uid, root (0), or SHARED (anyone who may write its directory). */
const SHARED = -1;

interface Ids {
  uid: number;
  gid: number;
  mode: number;
}

function othersMayWrite(dir: Ids): boolean {
  return (dir.mode & 0o002) !== 0 || ((dir.mode & 0o020) !== 0 && dir.gid !== 0);
}

/** Who decides what `entry` in `dir` is. */
function controllerOf(dir: Ids, entry: Ids, isSymlink: boolean): number {
  if (entry.uid !== 0) return entry.uid;
  if (dir.uid !== 0) return dir.uid; // the owner of a directory renames and replaces its entries
  // A root-owned symlink in a directory others may write, without the sticky bit: anyone could have
  // moved it there. (A directory cannot be moved into another without write access to itself.)
  if (isSymlink && othersMayWrite(dir) && (dir.mode & STICKY) === 0) return SHARED;
  return 0;
}

function errorCode(error: unknown): string | undefined {
  return (error as NodeJS.ErrnoException).code;
}

/** `name` in the directory `fd` holds, as a path the kernel resolves from that directory. */
function inDirectory(fd: number, name: string): string {
  return `/proc/self/fd/${fd}/${name}`;
}

interface Level {
  handle: OpenFile;
  ids: Ids;
  /** Node path of this directory, as walked (for messages). */
  nodePath: string;
}

export interface WalkOptions {
  /** Create missing directories (0755, root-owned) on the way. */
  create?: boolean;
  /** Resolve a symlink in the last component too (reading /etc/passwd); default false. */
  followLast?: boolean;
}

/** The directory a path's last component is in, held open; close() it when done. */
export class WalkedPath {
  readonly path: string;
  /** The last component (a symlink there is the entry itself, unless followLast). */
  readonly name: string;
  /** The open directory. */
  readonly fd: number;
  /** Node path of that directory, as walked. */
  readonly directory: string;
  private readonly handle: OpenFile;

  constructor(path: string, name: string, level: Level) {
    this.path = path;
    this.name = name;
    this.fd = level.handle.fd;
    this.directory = level.nodePath;
    this.handle = level.handle;
  }

  /** The entry itself, for the kernel: /proc/self/fd/<fd>/<name>. */
  get entry(): string {
    return inDirectory(this.fd, this.name);
  }

  /** Another name in the same directory (a temporary file). */
  sibling(name: string): string {
    return inDirectory(this.fd, name);
  }

  /** fsync of the directory: a rename, unlink or mkdir in it is durable after this. */
  syncDirectory(): Promise<void> {
    return syncDirectory(this.handle);
  }

  close(): Promise<void> {
    return this.handle.close();
  }
}

/** fsync of an open directory; some filesystems cannot, and the change has happened anyway. */
async function syncDirectory(handle: OpenFile): Promise<void> {
  try {
    await handle.sync();
  } catch (error) {
    const code = errorCode(error);
    if (code !== 'EINVAL' && code !== 'EISDIR' && code !== 'EPERM' && code !== 'ENOTSUP') throw error;
  }
}

function joinNode(dir: string, name: string): string {
  return dir === '/' ? `/${name}` : `${dir}/${name}`;
}

/**
 * Walks `path` under `rootDir` (the node's root directory, trusted as configured) to its last
 * component's directory. Throws UnsafePathError when a component leads out of another user's tree,
 * PathOutsideRootError for a malformed path or a symlink loop, and the system's error (ENOENT,
 * ENOTDIR) when a directory is missing and not created.
 */
export async function walkPath(
  rootDir: string,
  path: string,
  options: WalkOptions = {},
): Promise<WalkedPath> {
  const pending = nodePathComponents(path);
  if (pending.length === 0) throw new PathOutsideRootError(path, 'names the root itself');
  const rootHandle = await open(rootDir, constants.O_RDONLY | constants.O_DIRECTORY);
  const stack: Level[] = [];
  try {
    stack.push({ handle: rootHandle, ids: await rootHandle.stat(), nodePath: '/' });
  } catch (error) {
    await rootHandle.close();
    throw error;
  }
  /** The uid whose tree the walk is confined to, once it passed something that user controls. */
  let confinedTo: number | undefined;
  /** Index in `stack` of the first directory of that tree (undefined: not in it yet). */
  let treeTop: number | undefined;
  let hops = 0;
  /** The component this walk just created (made 0755 once opened). */
  let created: string | undefined;
  let creations = 0;
  const top = () => stack[stack.length - 1]!;
  const refuse = (component: string, owner: number, why: string) =>
    new UnsafePathError(path, component, owner, why);

  /** Checks an entry `who` controls before the walk goes through it; confines the walk when due. */
  const enter = (who: number, component: string, kind: string) => {
    if (who === SHARED) throw refuse(component, SHARED, `is a ${kind} in a directory {owner} may write`);
    if (confinedTo === undefined || who === confinedTo) {
      if (confinedTo === undefined && who !== 0) confinedTo = who;
      return;
    }
    // Inside the confining user's tree, root's entries (the agent's own directories) and another
    // user's are in that tree; outside it (right after that user's symlink) nothing but theirs is.
    if (treeTop === undefined) {
      throw refuse(
        component,
        confinedTo,
        `is a ${kind} reached through a symbolic link of {owner}: it is outside their tree`,
      );
    }
    if (who !== 0) {
      // Another user's entry inside the tree: from here on, that user's tree (a part of this one).
      confinedTo = who;
      treeTop = undefined;
    }
  };

  /** The walk's answer: `name` in the directory on top, handed over (not closed with the others). */
  const finish = (name: string): WalkedPath => {
    const level = top();
    if (confinedTo !== undefined && treeTop === undefined) {
      // Right after another user's symlink, in a directory that is not theirs.
      throw refuse(
        level.nodePath,
        confinedTo,
        'is a directory reached through a symbolic link of {owner}: it is outside their tree',
      );
    }
    stack.pop();
    return new WalkedPath(path, name, level);
  };

  try {
    while (pending.length > 0) {
      const name = pending.shift()!;
      const here = top();
      if (name === '..') {
        if (stack.length === 1) continue; // '..' at the root stays at the root
        if (confinedTo !== undefined && (treeTop === undefined || stack.length - 1 <= treeTop)) {
          throw refuse(
            joinNode(here.nodePath, '..'),
            confinedTo,
            'leads out of the tree of {owner}, whose symbolic link the path follows',
          );
        }
        await stack.pop()!.handle.close();
        continue;
      }
      if (pending.length === 0 && !options.followLast) {
        return finish(name);
      }
      const component = joinNode(here.nodePath, name);
      const entry = inDirectory(here.handle.fd, name);
      let handle: OpenFile | undefined;
      try {
        handle = await open(entry, DIRECTORY_FLAGS);
      } catch (error) {
        const code = errorCode(error);
        if (code === 'ENOENT' && options.create && pending.length > 0) {
          if (confinedTo !== undefined && treeTop === undefined) {
            throw refuse(
              component,
              confinedTo,
              'would be created outside the tree of {owner}, whose symbolic link the path follows',
            );
          }
          // Created in the directory the walk holds, then looked at again like any entry: whoever
          // raced a link or a directory of their own in meanwhile is judged by the same rules.
          if (++creations > MAX_SYMLINK_HOPS) {
            throw new PathOutsideRootError(path, `${component} keeps vanishing while it is created`);
          }
          try {
            await mkdir(entry, { mode: NEW_DIRECTORY_MODE });
            created = component;
          } catch (mkdirError) {
            if (errorCode(mkdirError) !== 'EEXIST') throw mkdirError;
          }
          pending.unshift(name);
          continue;
        } else if (code === 'ELOOP' || code === 'ENOTDIR') {
          // A symlink (O_NOFOLLOW|O_DIRECTORY refuses one with either), or something else.
          const stats = await lstat(entry);
          if (!stats.isSymbolicLink()) {
            if (pending.length === 0) {
              // followLast and the last component is not a link: it is the entry.
              return finish(name);
            }
            throw error;
          }
          enter(controllerOf(here.ids, stats, true), component, 'symbolic link');
          if (++hops > MAX_SYMLINK_HOPS)
            throw new PathOutsideRootError(path, 'too many levels of symbolic links');
          const target = await readlink(entry);
          if (target.startsWith('/')) {
            if (confinedTo !== undefined) {
              throw refuse(
                component,
                confinedTo,
                `is a symbolic link of {owner} to ${JSON.stringify(target)}, outside their tree`,
              );
            }
            while (stack.length > 1) await stack.pop()!.handle.close();
          }
          pending.unshift(...target.split('/').filter((part) => part !== '' && part !== '.'));
          continue;
        } else if (code === 'ENOENT' && pending.length === 0 && options.followLast) {
          return finish(name);
        } else {
          throw error;
        }
      }
      let ids: Ids;
      try {
        ids = await handle.stat();
        enter(controllerOf(here.ids, ids, false), component, 'directory');
        if (created === component && ids.uid === process.geteuid?.()) {
          // Ours: an exact 0755 (mkdir's mode went through the umask), made durable in its parent.
          created = undefined;
          await handle.chmod(NEW_DIRECTORY_MODE);
          ids = await handle.stat();
          await syncDirectory(here.handle);
        }
      } catch (error) {
        await handle.close();
        throw error;
      }
      stack.push({ handle, ids, nodePath: component });
      // The first directory of the confining user's tree: '..' may not climb above it.
      if (confinedTo !== undefined && treeTop === undefined) treeTop = stack.length - 1;
      if (pending.length === 0) {
        // followLast ended on a directory: its entry is in the parent.
        if (treeTop === stack.length - 1) treeTop = undefined;
        await stack.pop()!.handle.close();
        return finish(name);
      }
    }
    throw new PathOutsideRootError(path, 'names the root itself');
  } finally {
    for (const level of stack) await level.handle.close().catch(() => {});
  }
}
