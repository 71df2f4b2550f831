// The journal of an apply in progress, so a crash (kill -9, power loss) resumes the remaining work
// instead of redoing everything (a second kubelet restart) or, worse, forgetting half of it.
//
// One JSON Lines file, apply-journal.jsonl:
//   line 1   {"journalVersion":1,"revisionHash":..,"revisionName":..,"startedAt":..,"actionIds":[..]}
//   then     {"done":"<action id>"}   one line per completed action, appended and fdatasynced
//            before markDone() returns.
// The header is written atomically (temporary file + rename), so a journal either exists with a
// whole header or does not exist. A crash mid-append can leave a torn last line: it has no final
// newline, is ignored on load and cut off before the next append, so that action simply counts as
// not done and runs again (actions are idempotent: write a file, restart a unit).
//
// Lifecycle: beginJournal(target) → markDone(id)… → last-applied written → finish() deletes the file.
// A journal for another target hash is discarded by beginJournal: the caller re-plans from
// last-applied. A journal for the same hash but a different action list (a new agent version
// planned differently) is discarded too: redoing idempotent actions is safe, skipping the wrong
// ones is not.

import { type OpenFile, open } from '../../util/fs-async.ts';
import { readFileIfPresent } from '../../util/read-if-present.ts';
import { isoTime } from '../../util/utc-time.ts';
import { DEFAULT_STATE_DIR, ensureStateDirectory, type StoredRevision } from './state-directory.ts';
import { StateFile } from './state-file.ts';

const JOURNAL_FILE = 'apply-journal.jsonl';
const JOURNAL_VERSION = 1;

export interface JournalSnapshot extends StoredRevision {
  /** RFC 3339 time the apply of this revision first started. */
  startedAt: string;
  actionIds: string[];
  /** Completed action ids, in the order they completed. */
  completed: string[];
}

export interface JournalStart {
  /** True when an earlier attempt at the same target left completed actions to skip. */
  resumed: boolean;
  completed: Set<string>;
}

export class ApplyJournal extends StateFile {
  private current: JournalSnapshot | undefined;
  private handle: OpenFile | undefined;

  constructor(stateDir: string = DEFAULT_STATE_DIR) {
    super(stateDir, JOURNAL_FILE);
  }

  /**
   * Reads the journal left on disk, if any. A torn last line is cut off (durably) so appends can
   * continue after it; a journal whose header cannot be read counts as absent.
   */
  async load(): Promise<JournalSnapshot | undefined> {
    const bytes = await readFileIfPresent(this.path);
    if (bytes === undefined) return undefined;
    const { snapshot, validLength } = parseJournal(bytes);
    if (snapshot && validLength < bytes.length) await this.truncateTo(validLength);
    return snapshot;
  }

  /**
   * Starts (or resumes) applying the target revision. Returns the actions an earlier attempt at the
   * same target already completed; any other journal is discarded first.
   */
  async beginJournal(revisionHash: string, revisionName: string, actionIds: string[]): Promise<JournalStart> {
    if (new Set(actionIds).size !== actionIds.length) throw new Error('action ids must be unique');
    await this.closeHandle();
    await ensureStateDirectory(this.stateDir);
    const existing = await this.load();
    if (existing && existing.revisionHash === revisionHash && sameList(existing.actionIds, actionIds)) {
      this.current = existing;
    } else {
      this.current = {
        revisionHash,
        revisionName,
        startedAt: isoTime(),
        actionIds,
        completed: [],
      };
      const { completed: _, ...header } = this.current;
      await this.replace(`${JSON.stringify({ journalVersion: JOURNAL_VERSION, ...header })}\n`);
    }
    this.handle = await open(this.path, 'a');
    const completed = new Set(this.current.completed);
    return { resumed: completed.size > 0, completed };
  }

  /** Records `id` as completed; durable when this resolves. Marking an id twice is harmless. */
  async markDone(id: string): Promise<void> {
    const journal = this.requireOpen();
    if (!journal.actionIds.includes(id))
      throw new Error(`action ${JSON.stringify(id)} is not in this journal`);
    if (journal.completed.includes(id)) return;
    await this.handle!.write(`${JSON.stringify({ done: id })}\n`);
    await this.handle!.datasync();
    journal.completed.push(id);
  }

  /** The completed action ids of the open journal. */
  completed(): Set<string> {
    return new Set(this.current?.completed ?? []);
  }

  /** The open journal, if any. */
  snapshot(): JournalSnapshot | undefined {
    return this.current && structuredClone(this.current);
  }

  /** Deletes the journal: call only after last-applied holds the target revision. */
  async finish(): Promise<void> {
    await this.closeHandle();
    this.current = undefined;
    await this.remove({ syncIfAbsent: true });
  }

  /** Releases the file without deleting it (agent shutdown mid-apply): the next start resumes. */
  async close(): Promise<void> {
    await this.closeHandle();
    this.current = undefined;
  }

  private requireOpen(): JournalSnapshot {
    if (!this.current || !this.handle) throw new Error('no journal is open: call beginJournal first');
    return this.current;
  }

  private async closeHandle(): Promise<void> {
    const handle = this.handle;
    this.handle = undefined;
    await handle?.close();
  }

  private async truncateTo(length: number): Promise<void> {
    const handle = await open(this.path, 'r+');
    try {
      await handle.truncate(length);
      await handle.sync();
    } finally {
      await handle.close();
    }
  }
}

/** The journal in `bytes` and how many leading bytes are whole lines (the rest is a torn tail). */
export function parseJournal(bytes: Buffer): { snapshot: JournalSnapshot | undefined; validLength: number } {
  // Split on the byte, not the decoded text: a torn multi-byte character must not shift lengths.
  const lastNewline = bytes.lastIndexOf(0x0a);
  const lines = lastNewline < 0 ? [] : bytes.subarray(0, lastNewline).toString('utf8').split('\n');
  const header = parseLine(lines[0]);
  if (!isHeader(header)) return { snapshot: undefined, validLength: 0 };
  const snapshot: JournalSnapshot = {
    revisionHash: header.revisionHash,
    revisionName: header.revisionName,
    startedAt: header.startedAt,
    actionIds: header.actionIds,
    completed: [],
  };
  const pending = new Set(header.actionIds);
  for (const line of lines.slice(1)) {
    const entry = parseLine(line);
    const id = typeof entry === 'object' && entry !== null ? (entry as { done?: unknown }).done : undefined;
    // Only whole lines reach here; an unparsable one would be a bug or tampering: skip, don't trust.
    if (typeof id === 'string' && pending.delete(id)) snapshot.completed.push(id);
  }
  return { snapshot, validLength: lastNewline + 1 };
}

function parseLine(line: string | undefined): unknown {
  if (line === undefined) return undefined;
  try {
    return JSON.parse(line);
  } catch {
    return undefined;
  }
}

/** The journal's first line: the snapshot without what completed since. */
interface JournalHeader extends Omit<JournalSnapshot, 'completed'> {
  journalVersion: number;
}

function isHeader(value: unknown): value is JournalHeader {
  if (typeof value !== 'object' || value === null) return false;
  const header = value as Record<string, unknown>;
  return (
    header.journalVersion === JOURNAL_VERSION &&
    typeof header.revisionHash === 'string' &&
    typeof header.revisionName === 'string' &&
    typeof header.startedAt === 'string' &&
    Array.isArray(header.actionIds) &&
    header.actionIds.every((id) => typeof id === 'string')
  );
}

function sameList(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((value, index) => value === b[index]);
}
