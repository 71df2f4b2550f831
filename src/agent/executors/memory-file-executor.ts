// An in-memory FileExecutor for simulated nodes: a fleet of a thousand simulated agents should not
// need a thousand directory trees. Same contract as LocalFileExecutor for regular files (paths must
// be absolute without '..', unknown owner names are an error); no symlinks, directories implicit.

import { nodePathComponents } from './root-path.ts';
import type { FileExecutor, FileState, FileWriteOptions, Ownership, Principal } from './types.ts';
import { UnknownPrincipalError } from './user-database.ts';

interface StoredFile {
  content: Buffer;
  mode: number;
  uid: number;
  gid: number;
}

export class MemoryFileExecutor implements FileExecutor {
  private readonly files = new Map<string, StoredFile>();
  private readonly users: Map<string, number>;
  private readonly groups: Map<string, number>;

  constructor(options: { users?: Record<string, number>; groups?: Record<string, number> } = {}) {
    this.users = new Map(Object.entries({ root: 0, ...options.users }));
    this.groups = new Map(Object.entries({ root: 0, ...options.groups }));
  }

  /** Every stored path, sorted: lets a simulation or test see the whole node at once. */
  paths(): string[] {
    return [...this.files.keys()].sort();
  }

  async read(path: string): Promise<FileState | undefined> {
    const file = this.files.get(normalize(path));
    if (!file) return undefined;
    return {
      kind: 'file',
      content: Buffer.from(file.content),
      mode: file.mode,
      uid: file.uid,
      gid: file.gid,
    };
  }

  async write(path: string, content: Buffer, options: FileWriteOptions = {}): Promise<void> {
    const key = normalize(path);
    const mode = options.mode ?? 0o644;
    if (!Number.isInteger(mode) || mode < 0 || mode > 0o7777) throw new RangeError(`invalid mode ${mode}`);
    if (this.paths().some((other) => other.startsWith(`${key}/`))) {
      throw new Error(`cannot write file ${path}: a directory is in the way`);
    }
    const { uid, gid } = await this.resolveOwnership(options.owner, options.group);
    this.files.set(key, { content: Buffer.from(content), mode, uid, gid });
  }

  async remove(path: string): Promise<void> {
    this.files.delete(normalize(path));
  }

  async removeDirectoryIfEmpty(path: string): Promise<boolean> {
    const prefix = `${normalize(path)}/`;
    return !this.paths().some((other) => other.startsWith(prefix));
  }

  async resolveOwnership(owner?: Principal, group?: Principal): Promise<Ownership> {
    return {
      uid: lookup(this.users, 'user', owner, '/etc/passwd'),
      gid: lookup(this.groups, 'group', group, '/etc/group'),
    };
  }
}

function normalize(path: string): string {
  return `/${nodePathComponents(path).join('/')}`;
}

function lookup(
  table: Map<string, number>,
  kind: 'user' | 'group',
  who: Principal | undefined,
  file: string,
): number {
  if (who === undefined || who === '') return 0;
  if (typeof who === 'number') return who;
  if (/^\d+$/.test(who)) return Number(who);
  const id = table.get(who);
  if (id === undefined) throw new UnknownPrincipalError(kind, who, file);
  return id;
}
