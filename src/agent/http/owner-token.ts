// The optional owner credential of the agent's local API (--local-api-token-file): a random token in a
// root-only file (0600). When it is configured, state-changing requests (POST /v1/update, pod upgrades)
// must carry it as `Authorization: Bearer <token>`, so only whoever can read the file (root, or the
// node's owner account it was handed to) can act, not every local user or host-network pod that can
// reach 127.0.0.1. docs/security.md says when to turn it on.

import { randomBytes, timingSafeEqual } from 'node:crypto';
import { dirname } from 'node:path';
import { writeFileAtomic } from '../../util/atomic-write.ts';
import { chmod, mkdir, readFile } from '../../util/fs-async.ts';

/** The token in `path`; created (32 random bytes, hex) when the file is missing. The file ends up 0600. */
export async function ensureOwnerToken(path: string): Promise<string> {
  let token: string | undefined;
  try {
    token = (await readFile(path, 'utf8')).trim();
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
  }
  if (token === undefined || token === '') {
    token = randomBytes(32).toString('hex');
    await mkdir(dirname(path), { recursive: true, mode: 0o700 });
    await writeFileAtomic(path, `${token}\n`, { mode: 0o600 });
  } else {
    await chmod(path, 0o600);
  }
  return token;
}

/** Whether an Authorization header carries exactly `token` as a bearer token (constant time). */
export function bearerMatches(header: string | undefined, token: string): boolean {
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header ?? '');
  if (!match) return false;
  const given = Buffer.from(match[1]!);
  const wanted = Buffer.from(token);
  return given.length === wanted.length && timingSafeEqual(given, wanted);
}
