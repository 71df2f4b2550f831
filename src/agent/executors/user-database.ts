// Owner and group names are resolved against the node's own /etc/passwd and /etc/group (under the
// executor's root), not the host's: in tests and containers the two differ. Files are read on every
// lookup because installing a package may add users between two writes.

import { readFile } from '../../util/fs-async.ts';
import { walkPath } from './safe-path.ts';
import type { Ownership, Principal } from './types.ts';

export class UnknownPrincipalError extends Error {
  constructor(kind: 'user' | 'group', name: string, file: string) {
    super(`unknown ${kind} ${JSON.stringify(name)}: not in ${file}`);
    this.name = 'UnknownPrincipalError';
  }
}

/** name → id from /etc/passwd or /etc/group text (name:x:id:...); malformed lines are skipped. */
function parseIdDatabase(text: string): Map<string, number> {
  const ids = new Map<string, number>();
  for (const line of text.split('\n')) {
    if (line === '' || line.startsWith('#')) continue;
    const fields = line.split(':');
    const name = fields[0];
    const id = fields[2];
    if (!name || id === undefined || !/^\d+$/.test(id)) continue;
    if (!ids.has(name)) ids.set(name, Number(id)); // the first entry wins, as in getpwnam
  }
  return ids;
}

async function readDatabaseText(rootDir: string, file: string): Promise<string> {
  try {
    const walked = await walkPath(rootDir, file, { followLast: true });
    try {
      return await readFile(walked.entry, 'utf8');
    } finally {
      await walked.close();
    }
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return '';
    throw error;
  }
}

async function readDatabase(rootDir: string, file: string): Promise<Map<string, number>> {
  return parseIdDatabase(await readDatabaseText(rootDir, file));
}

/** The name of `uid` in the root's /etc/passwd (for messages), or undefined. */
export async function userName(rootDir: string, uid: number): Promise<string | undefined> {
  for (const [name, id] of parseIdDatabase(await readDatabaseText(rootDir, '/etc/passwd'))) {
    if (id === uid) return name;
  }
  return undefined;
}

async function resolvePrincipal(rootDir: string, kind: 'user' | 'group', who: Principal | undefined) {
  if (who === undefined || who === 'root' || who === '') return 0;
  if (typeof who === 'number') {
    if (!Number.isInteger(who) || who < 0) throw new RangeError(`invalid ${kind} id ${who}`);
    return who;
  }
  if (/^\d+$/.test(who)) return Number(who);
  const file = kind === 'user' ? '/etc/passwd' : '/etc/group';
  const id = (await readDatabase(rootDir, file)).get(who);
  // Unknown names fail loudly rather than silently falling back to root: a file meant for a
  // service user that ends up root-owned breaks that service with no hint why.
  if (id === undefined) throw new UnknownPrincipalError(kind, who, file);
  return id;
}

/** uid/gid for owner and group: numeric ids as given, names via the root's databases, absent = root. */
export async function resolveOwnership(
  rootDir: string,
  owner: Principal | undefined,
  group: Principal | undefined,
): Promise<Ownership> {
  return {
    uid: await resolvePrincipal(rootDir, 'user', owner),
    gid: await resolvePrincipal(rootDir, 'group', group),
  };
}
