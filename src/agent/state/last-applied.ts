// The last revision this node applied completely: what the next plan diffs against (no record
// means everything counts as changed) and what a local rollback returns to.
//
// Written only after an apply fully succeeded, atomically (temporary file, fsync, rename, fsync of
// the directory), 0600. So after a crash it holds the previous complete revision or the new one,
// never a mix, and never a revision that was only half applied.
//
// There is no backup of overwritten files or units: restoring the last applied revision after a
// failed apply is planning from the failed target back to this record's spec and applying that
// plan. The spec is the backup, so the content of every managed file is known without copies.
//
// JSON, not YAML: importing the `yaml` package costs the agent about 13 MB of RSS (49 → 62 MB
// measured with node 24.21 after fs/child_process/crypto), a quarter of its 50 MB budget.

import { readTextIfPresent } from '../../util/read-if-present.ts';
import { isoTime } from '../../util/utc-time.ts';
import { DEFAULT_STATE_DIR, type StoredRevision } from './state-directory.ts';
import { StateFile } from './state-file.ts';

const LAST_APPLIED_FILE = 'last-applied.json';
const FORMAT_VERSION = 1;

export interface LastApplied extends StoredRevision {
  /** RFC 3339 time the apply completed. */
  appliedAt: string;
  /** The revision's spec as applied; opaque here (the plan function knows its shape). */
  spec: unknown;
}

export class CorruptStateError extends Error {
  constructor(path: string, why: string) {
    super(`${path} is unreadable: ${why}`);
    this.name = 'CorruptStateError';
  }
}

export class LastAppliedStore extends StateFile {
  constructor(stateDir: string = DEFAULT_STATE_DIR) {
    super(stateDir, LAST_APPLIED_FILE);
  }

  /**
   * The record, or undefined if none was ever written. A file that does not parse (edited by hand;
   * atomic writes never tear it) throws CorruptStateError: the caller decides whether to re-apply
   * everything, rather than this store silently forgetting what is on the node.
   */
  async read(): Promise<LastApplied | undefined> {
    const text = await readTextIfPresent(this.path);
    if (text === undefined) return undefined;
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch (error) {
      throw new CorruptStateError(this.path, (error as Error).message);
    }
    return toLastApplied(this.path, parsed);
  }

  async write(record: Omit<LastApplied, 'appliedAt'> & { appliedAt?: string }): Promise<LastApplied> {
    const stored: LastApplied = {
      revisionName: record.revisionName,
      revisionHash: record.revisionHash,
      appliedAt: record.appliedAt ?? isoTime(),
      spec: record.spec,
    };
    const body = JSON.stringify({ formatVersion: FORMAT_VERSION, ...stored }, null, 2);
    await this.replace(`${body}\n`);
    return stored;
  }
}

function toLastApplied(path: string, value: unknown): LastApplied {
  if (typeof value !== 'object' || value === null) throw new CorruptStateError(path, 'not an object');
  const record = value as Record<string, unknown>;
  if (record.formatVersion !== FORMAT_VERSION) {
    throw new CorruptStateError(path, `unknown format version ${JSON.stringify(record.formatVersion)}`);
  }
  for (const field of ['revisionName', 'revisionHash', 'appliedAt']) {
    if (typeof record[field] !== 'string') throw new CorruptStateError(path, `${field} is not a string`);
  }
  return {
    revisionName: record.revisionName as string,
    revisionHash: record.revisionHash as string,
    appliedAt: record.appliedAt as string,
    spec: record.spec,
  };
}
