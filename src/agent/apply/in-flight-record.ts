// The revisions an unfinished apply may have partly put on the node. An apply that was interrupted
// or failed leaves the disk a mix of the last applied revision and these; when the node is then
// asked for something else (another revision, or a rollback), the plan must not trust last-applied
// for anything they touched (recovery-base.ts). Cleared once any revision is applied completely.

import type { RevisionSpec } from '../../api/types.ts';
import { isObject, JsonRecordFile } from './json-record-file.ts';
import type { RevisionRef } from './revision-ref.ts';

const IN_FLIGHT_FILE = 'in-flight.json';

interface InFlightRecord {
  revisions: { name: string; hash: string; spec: RevisionSpec }[];
}

function isInFlightRecord(value: unknown): value is InFlightRecord {
  return (
    isObject(value) &&
    Array.isArray(value.revisions) &&
    value.revisions.every(
      (r) => isObject(r) && typeof r.name === 'string' && typeof r.hash === 'string' && isObject(r.spec),
    )
  );
}

export class InFlightStore {
  private readonly file: JsonRecordFile<InFlightRecord>;
  private revisions: RevisionRef[] = [];

  constructor(stateDir: string) {
    this.file = new JsonRecordFile(stateDir, IN_FLIGHT_FILE, isInFlightRecord);
  }

  async load(): Promise<RevisionRef[]> {
    this.revisions = (await this.file.read())?.revisions ?? [];
    return this.list();
  }

  list(): RevisionRef[] {
    return [...this.revisions];
  }

  /** Records that `revision` is about to be applied (durable before any of it reaches the node). */
  async add(revision: RevisionRef): Promise<void> {
    if (this.revisions.some((r) => r.hash === revision.hash)) return;
    this.revisions.push(revision);
    await this.file.write({ revisions: this.revisions });
  }

  async clear(): Promise<void> {
    this.revisions = [];
    await this.file.remove();
  }
}
