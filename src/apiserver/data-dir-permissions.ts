// The data dir holds every Secret (state.db and its WAL), the CA and serving keys, the token hashes
// and the admin kubeconfig. Files the server creates are private already; this makes those that were
// there before private too (a data dir made by hand, restored from a backup, or written by an older
// build), so nothing depends on the umask or the history of the directory.

import { chmodSync, closeSync, mkdirSync, openSync } from 'node:fs';
import { join } from 'node:path';
import { pkiPaths } from './auth/certificates.ts';
import { ADMIN_KUBECONFIG_FILE } from './auth/credentials.ts';
import { SIGNING_KEY_FILE } from './auth/service-account-tokens.ts';
import { LEGACY_TOKENS_FILE, TOKENS_DB } from './auth/tokens.ts';

export const STATE_DB = 'state.db';

const SQLITE_COMPANIONS = ['', '-wal', '-shm', '-journal'];

/** The files of a data dir that hold secrets or keys. */
export function privateFilesOf(dataDir: string): string[] {
  const pki = pkiPaths(dataDir);
  return [
    ...SQLITE_COMPANIONS.map((suffix) => join(dataDir, `${STATE_DB}${suffix}`)),
    ...SQLITE_COMPANIONS.map((suffix) => join(dataDir, `${TOKENS_DB}${suffix}`)),
    join(dataDir, LEGACY_TOKENS_FILE),
    join(dataDir, ADMIN_KUBECONFIG_FILE),
    join(dataDir, SIGNING_KEY_FILE),
    pki.caKey,
    pki.serverKey,
  ];
}

function chmodIfPresent(path: string, mode: number): void {
  try {
    chmodSync(path, mode);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
  }
}

/**
 * Makes the data dir (and its pki dir) 0700 and every private file in it 0600, and creates state.db
 * as 0600 if it is missing: SQLite gives its -wal and -shm files the database file's mode.
 */
export function restrictDataDir(dataDir: string): void {
  mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  chmodSync(dataDir, 0o700);
  chmodIfPresent(pkiPaths(dataDir).dir, 0o700);
  closeSync(openSync(join(dataDir, STATE_DB), 'a', 0o600));
  for (const path of privateFilesOf(dataDir)) chmodIfPresent(path, 0o600);
}
