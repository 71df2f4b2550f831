// inotify on the managed files (fs.watch on their directories, not on the files: an atomic replace
// renames a new inode over the old one, and a watch on the old inode would go quiet). A directory
// that does not exist yet is watched through its nearest existing ancestor, for the name that leads
// to it; any event that creates, removes or renames along the way re-arms the watches. Bursts are
// debounced into one call. Only noticing is done here: what changed is the drift check's question.

import { existsSync, type FSWatcher, watch } from 'node:fs';
import { basename, dirname, join, relative, sep } from 'node:path';
import type { Logger } from '../logger.ts';

export interface ManagedPathWatcherOptions {
  /** The node's root on this machine ('/' on a real node). */
  root: string;
  debounceMs: number;
  onChange(): void;
  logger: Logger;
}

export class ManagedPathWatcher {
  private readonly options: ManagedPathWatcherOptions;
  private paths: string[] = [];
  /** Watched directory (on this machine) → the entry names in it that matter. */
  private interest = new Map<string, Set<string>>();
  private readonly watchers = new Map<string, FSWatcher>();
  private timer: NodeJS.Timeout | undefined;
  private closed = false;

  constructor(options: ManagedPathWatcherOptions) {
    this.options = options;
  }

  /** Paths on the node (e.g. /etc/foo.conf) to watch from now on. */
  setPaths(paths: readonly string[]): void {
    this.paths = [...new Set(paths)].sort();
    this.arm();
  }

  /** Directories watched now (tests). */
  watchedDirectories(): string[] {
    return [...this.watchers.keys()].sort();
  }

  close(): void {
    this.closed = true;
    clearTimeout(this.timer);
    for (const watcher of this.watchers.values()) watcher.close();
    this.watchers.clear();
  }

  private arm(): void {
    if (this.closed) return;
    const interest = new Map<string, Set<string>>();
    for (const path of this.paths) {
      const [dir, name] = this.nearestWatchable(join(this.options.root, path));
      const names = interest.get(dir) ?? new Set<string>();
      names.add(name);
      interest.set(dir, names);
    }
    this.interest = interest;
    for (const [dir, watcher] of this.watchers) {
      if (interest.has(dir)) continue;
      watcher.close();
      this.watchers.delete(dir);
    }
    for (const dir of interest.keys()) {
      if (this.watchers.has(dir)) continue;
      try {
        const watcher = watch(dir, { persistent: false }, (_event, filename) =>
          this.onEvent(dir, filename === null ? null : String(filename)),
        );
        // The directory went away (or inotify failed): look again after the debounce.
        watcher.on('error', () => {
          watcher.close();
          if (this.watchers.get(dir) === watcher) this.watchers.delete(dir);
          this.schedule();
        });
        this.watchers.set(dir, watcher);
      } catch (error) {
        // Gone between the check and the watch, or out of inotify watches: the periodic check remains.
        this.options.logger.warn({ directory: dir, error: error as Error }, 'cannot watch a directory');
      }
    }
  }

  /** The directory to watch for `file` and the entry name in it that leads there. */
  private nearestWatchable(file: string): [string, string] {
    let name = basename(file);
    let dir = dirname(file);
    const root = this.options.root;
    while (!existsSync(dir) && dir !== root && !relative(root, dir).startsWith(`..${sep}`)) {
      name = basename(dir);
      const parent = dirname(dir);
      if (parent === dir) break;
      dir = parent;
    }
    return [dir, name];
  }

  private onEvent(dir: string, filename: string | null): void {
    const names = this.interest.get(dir);
    if (filename === null || names?.has(filename) || !existsSync(dir)) this.schedule();
  }

  private schedule(): void {
    if (this.closed) return;
    clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      this.arm();
      this.options.onChange();
    }, this.options.debounceMs);
    this.timer.unref?.();
  }
}
