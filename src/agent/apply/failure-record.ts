// The last failed apply, kept across restarts so that a revision that failed and was rolled back is
// not applied again by a restarted agent (it would flap the node), and so retries back off.

import type { StoredRevision } from '../state/state-directory.ts';
import { JsonRecordFile, recordOf } from './json-record-file.ts';

const FAILURE_FILE = 'last-failure.json';

const ROLLBACK_STATES = ['none', 'in-progress', 'done', 'failed'] as const;
/** in-progress: the rollback was interrupted and must be finished; failed: it failed too (needs a human). */
export type RollbackState = (typeof ROLLBACK_STATES)[number];

export interface FailureRecord extends StoredRevision {
  reason: string;
  /** Epoch ms of the latest failure. */
  failedAt: number;
  /** Consecutive failed attempts at this revision. */
  attempts: number;
  rollback: RollbackState;
  /** The revision restored by the rollback. */
  rolledBackTo?: string;
  /** The failing program's line that says why (failure-excerpt.ts), redacted. */
  cause?: string;
  /** The failed unit's journal and the probe's or command's output, redacted and bounded. */
  excerpt?: string;
}

const isFailureRecord = recordOf<FailureRecord>({
  revisionName: 'string',
  revisionHash: 'string',
  reason: 'string',
  failedAt: 'number',
  attempts: 'number',
  rollback: ROLLBACK_STATES,
});

export class FailureStore {
  private readonly file: JsonRecordFile<FailureRecord>;
  private record: FailureRecord | undefined;

  constructor(stateDir: string) {
    this.file = new JsonRecordFile(stateDir, FAILURE_FILE, isFailureRecord);
  }

  async load(): Promise<FailureRecord | undefined> {
    this.record = await this.file.read();
    return this.current;
  }

  get current(): FailureRecord | undefined {
    return this.record && { ...this.record };
  }

  async write(record: FailureRecord): Promise<void> {
    this.record = { ...record };
    await this.file.write(record);
  }

  async clear(): Promise<void> {
    if (this.record === undefined) return;
    this.record = undefined;
    await this.file.remove();
  }
}
