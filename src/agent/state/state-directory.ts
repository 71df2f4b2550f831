// Where the agent keeps what it must remember across restarts and crashes: the last applied
// revision and the journal of an apply in progress. Private to root (0700): the last applied spec
// can hold file contents taken from Secrets.

import { chmod, mkdir } from '../../util/fs-async.ts';

export const DEFAULT_STATE_DIR = '/var/lib/nodeherd';

/** The revision a state record is about, under the names the records store it by. */
export interface StoredRevision {
  revisionName: string;
  revisionHash: string;
}

export async function ensureStateDirectory(stateDir: string): Promise<void> {
  await mkdir(stateDir, { recursive: true, mode: 0o700 });
  await chmod(stateDir, 0o700);
}
