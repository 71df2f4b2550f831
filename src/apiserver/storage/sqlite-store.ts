// The API server's Store over SQLite, in the spirit of k3s-io/kine: an append-only revision log on disk
// (revision-log.ts) plus the live state of every key in memory, parsed once and frozen, so reads never
// touch SQLite or JSON.parse. Historical reads (list at a revision, watch resume) go to the log.
//
// Objects are handed out as they are kept: deeply frozen, stamped with their resourceVersion, and
// shared by every reader (the write's caller, each subscriber's event, later gets and lists), so a write
// parses its object once and no read copies it. Whoever wants to change one copies it first (cloneJson).
//
// Group commit (option groupCommit): a write joins one SQLite transaction per event-loop turn, committed
// in a setImmediate after the turn, instead of paying its own fsync. Within the process every write is
// applied at once, in order, exactly as without group commit: reads, CAS checks, revisions and subscribers
// all see the serial history, so preconditions behave as if the writes had committed one by one. What is
// deferred is only release to the outside: whenDurable() resolves once the commit is on disk, and the HTTP
// layer holds every response and watch event until then, so no client observes a write that could still
// be lost. A failed commit leaves this process ahead of the disk, so the store then refuses all work
// (StoreFailedError) until it is reopened, which reloads the durable state.
//
// The fsync of a group does not block the event loop: COMMIT only writes the WAL, and the WAL is fsynced
// on libuv's thread pool (revision-log.ts, syncInBackground) while requests go on being parsed and
// applied. Writes made meanwhile gather in the next group, which commits in the turn that fsync returns
// in: one fsync at a time, each covering everything committed before it.
//
// Bounds on disk (issue 32). The history (rows superseded by later ones, and tombstones) is bounded by
// count (retainRevisions) and by bytes (retainHistoryBytes): once it holds more bytes than that,
// compaction runs after the turn and removes the oldest history until it is back under three quarters of
// the budget, whatever the count. The whole database is bounded by quotaBytes, as etcd's
// --quota-backend-bytes: the write that crosses it is kept, then the alarm is raised and creates and
// updates are refused (StoreQuotaExceededError) while deletes, updates of objects being deleted
// (finalizers going) and Lease renewals go through; every compaction then removes all history, and one
// runs after every turn that deleted something, so the alarm clears as soon as the space is back.
import { EventDispatcher, type StoreListener } from './event-dispatcher.ts';
import { HistoryLedger } from './history-ledger.ts';
import { deepFreeze } from './json-clone.ts';
import { isPlainObject, serializeForStorage, stampResourceVersion } from './resource-version.ts';
import { LogConflictError, type LogEventRow, type LogRow, RevisionLog } from './revision-log.ts';
import { SortedKeys } from './sorted-keys.ts';
import { markStored } from './stored-json.ts';
import {
  DEFAULT_QUOTA_BYTES,
  type KubeObject,
  type ListOptions,
  type ListResult,
  MAX_OBJECT_BYTES,
  type StorageUsage,
  type Store,
  StoreConflictError,
  type StoredItem,
  type StoreEvent,
  StoreExistsError,
  StoreExpiredError,
  StoreFailedError,
  StoreNotFoundError,
  StoreQuotaExceededError,
  StoreTooLargeError,
} from './types.ts';

export interface SqliteStoreOptions {
  /** How many revisions of history compaction keeps for watch resume and paging (default 10,000). */
  retainRevisions?: number;
  /** Run compact() this often; unset means only when called. The timer never keeps the process alive. */
  compactIntervalMs?: number;
  /** Failures that cannot be thrown to a caller: a throwing listener, a periodic compaction, a group commit. */
  onBackgroundError?: (error: unknown, context: string) => void;
  /**
   * Commit the writes of one event-loop turn together (see the top of this file). Callers must then hold
   * anything they send out until whenDurable() resolves. Default false: every write commits on its own.
   */
  groupCommit?: boolean;
  /** Largest serialized object a write may store (default MAX_OBJECT_BYTES, etcd's limit). */
  maxObjectBytes?: number;
  /**
   * Most bytes of history (superseded rows and tombstones) kept for watch resume and paging; above it
   * compaction runs at once (default DEFAULT_RETAIN_HISTORY_BYTES).
   */
  retainHistoryBytes?: number;
  /** Bytes of database at which writes are refused (default DEFAULT_QUOTA_BYTES, etcd's 2 GiB). */
  quotaBytes?: number;
  /** Called when the quota alarm is raised and when it clears. */
  onQuotaAlarm?: (usage: StorageUsage) => void;
}

const DURABLE: Promise<void> = Promise.resolve();

export const DEFAULT_RETAIN_REVISIONS = 10_000;
/** 10,000 revisions of 1.5 MiB would be 15 GiB: the history is bounded in bytes too. */
export const DEFAULT_RETAIN_HISTORY_BYTES = 256 * 1024 * 1024;
/** Keys the store lets update at its quota: Leases, whose renewals keep nodes and leaders alive. */
const RENEWABLE_AT_QUOTA = '/coordination.k8s.io/leases/';

/** The live state of one key. object is frozen, stamped with revision, and handed out as it is. */
interface LiveEntry {
  revision: number;
  createRevision: number;
  object: KubeObject;
  /** UTF-8 bytes of its row's value. */
  bytes: number;
}

export class SqliteStore implements Store {
  readonly #log: RevisionLog;
  readonly #live = new Map<string, LiveEntry>();
  /**
   * Keys that are not live but whose history the log still holds, with their newest row (a tombstone):
   * a create chains onto it (prev_revision) without asking SQLite. Compaction removes the tombstones at or
   * below its point, with every older row of their keys, and so the entries here.
   */
  readonly #tombstones = new Map<string, number>();
  readonly #keys = new SortedKeys();
  readonly #dispatcher: EventDispatcher;
  readonly #retainRevisions: number;
  readonly #onBackgroundError: (error: unknown, context: string) => void;
  readonly #groupCommit: boolean;
  readonly #maxObjectBytes: number;
  readonly #retainHistoryBytes: number;
  readonly #quotaBytes: number;
  readonly #onQuotaAlarm: (usage: StorageUsage) => void;
  readonly #history = new HistoryLedger();
  #quotaExceeded = false;
  #compactionScheduled = false;
  #revision: number;
  #durable: number;
  /** Settles when the open group transaction is durable; undefined when none is open. */
  #group: PromiseWithResolvers<void> | undefined;
  /** The group committed and being fsynced, up to which revision; undefined when no fsync runs. */
  #syncing: { group: PromiseWithResolvers<void>; upTo: number } | undefined;
  #failure: StoreFailedError | undefined;
  #compacted: number;
  #compactTimer: NodeJS.Timeout | undefined;
  #closed = false;

  private constructor(log: RevisionLog, options: SqliteStoreOptions) {
    this.#log = log;
    this.#retainRevisions = options.retainRevisions ?? DEFAULT_RETAIN_REVISIONS;
    this.#onBackgroundError = options.onBackgroundError ?? reportAsWarning;
    this.#groupCommit = options.groupCommit ?? false;
    this.#maxObjectBytes = options.maxObjectBytes ?? MAX_OBJECT_BYTES;
    this.#retainHistoryBytes = options.retainHistoryBytes ?? DEFAULT_RETAIN_HISTORY_BYTES;
    this.#quotaBytes = options.quotaBytes ?? DEFAULT_QUOTA_BYTES;
    this.#onQuotaAlarm = options.onQuotaAlarm ?? (() => {});
    this.#dispatcher = new EventDispatcher((error, event) =>
      this.#onBackgroundError(
        error,
        `store listener for ${event.type} ${event.key} at revision ${event.revision}`,
      ),
    );
    this.#revision = log.sequence();
    this.#durable = this.#revision;
    this.#compacted = log.compactedRevision();
    for (const row of log.liveRowsAt('', undefined, this.#revision, -1)) {
      this.#live.set(row.key, {
        revision: row.revision,
        createRevision: row.createRevision,
        object: frozenObject(row.value, row.revision),
        bytes: Buffer.byteLength(row.value),
      });
      this.#keys.insert(row.key);
    }
    for (const row of log.newestRows()) {
      if (!this.#live.has(row.key)) this.#tombstones.set(row.key, row.revision);
    }
    for (const row of log.historyAfter(this.#compacted)) this.#history.add(row.revision, row.bytes);
    this.#checkQuota();
  }

  /** Opens or creates the store at path (':memory:' for a throwaway one). */
  static open(path: string, options: SqliteStoreOptions = {}): SqliteStore {
    validateOptions(options);
    const log = RevisionLog.open(path, { syncInBackground: options.groupCommit === true });
    let store: SqliteStore;
    try {
      store = new SqliteStore(log, options);
    } catch (error) {
      log.close();
      throw error;
    }
    if (options.compactIntervalMs !== undefined) store.#startCompactTimer(options.compactIntervalMs);
    return store;
  }

  currentRevision(): number {
    return this.#revision;
  }

  compactedRevision(): number {
    return this.#compacted;
  }

  durableRevision(): number {
    return this.#durable;
  }

  whenDurable(revision: number = this.#revision): Promise<void> {
    if (this.#failure) return Promise.reject(this.#failure);
    if (revision <= this.#durable) return DURABLE;
    // Every revision above the durable one belongs to the group being synced or to the open group.
    if (this.#syncing !== undefined && revision <= this.#syncing.upTo) return this.#syncing.group.promise;
    if (this.#group === undefined || revision > this.#revision) {
      return Promise.reject(new Error(`revision ${revision} was never written`));
    }
    return this.#group.promise;
  }

  /**
   * Commits the open group and makes every write durable before it returns (no-op when all are).
   * Throws StoreFailedError if that fails.
   */
  flush(): void {
    if (this.#failure) throw this.#failure;
    if (this.#closed || (this.#group === undefined && this.#syncing === undefined)) return;
    const syncing = this.#syncing;
    const group = this.#group;
    try {
      if (group !== undefined) this.#log.commit();
      this.#log.syncWalNow();
    } catch (error) {
      this.#fail(error);
      throw this.#failure;
    }
    // The fsync still running for `syncing`, if any, finds itself overtaken and does nothing.
    this.#syncing = undefined;
    this.#group = undefined;
    this.#durable = this.#revision;
    syncing?.group.resolve();
    group?.resolve();
  }

  get(key: string): StoredItem | undefined {
    this.#assertOpen();
    const entry = this.#live.get(key);
    return entry === undefined ? undefined : item(key, entry);
  }

  list(prefix: string, options: ListOptions = {}): ListResult {
    this.#assertOpen();
    assertPrefix(prefix);
    const { afterKey, atRevision } = options;
    if (afterKey !== undefined && typeof afterKey !== 'string')
      throw new TypeError('afterKey must be a string');
    const limit = normalizeLimit(options.limit);
    if (atRevision === undefined || atRevision === this.#revision)
      return this.#listLive(prefix, afterKey, limit);
    assertRevision('atRevision', atRevision);
    if (atRevision > this.#revision) {
      throw new RangeError(`atRevision ${atRevision} is newer than the current revision ${this.#revision}`);
    }
    this.#assertNotCompacted(atRevision);
    // One extra row tells whether another page follows.
    const rows = this.#log.liveRowsAt(prefix, afterKey, atRevision, limit === undefined ? -1 : limit + 1);
    const more = limit !== undefined && rows.length > limit;
    const page = more ? rows.slice(0, limit) : rows;
    return { items: page.map(itemFromRow), revision: atRevision, more };
  }

  count(prefix: string): number {
    this.#assertOpen();
    assertPrefix(prefix);
    return this.#keys.countPrefix(prefix);
  }

  create(key: string, object: KubeObject): StoredItem {
    this.#assertOpen();
    assertKey(key);
    assertObject(key, object);
    if (this.#live.has(key)) throw new StoreExistsError(key);
    this.#assertWritable(key, undefined);
    const value = this.#serialize(key, object);
    // Chain onto the key's tombstone if its history still holds one, so (name, prev_revision) stays unique.
    const prevRevision = this.#tombstones.get(key) ?? 0;
    const revision = this.#append(key, {
      created: true,
      deleted: false,
      createRevision: 0,
      prevRevision,
      value,
    });
    this.#tombstones.delete(key);
    const entry: LiveEntry = {
      revision,
      createRevision: revision,
      object: frozenObject(value, revision),
      bytes: Buffer.byteLength(value),
    };
    this.#afterWrite(revision, 0);
    this.#live.set(key, entry);
    this.#keys.insert(key);
    if (this.#dispatcher.hasListeners) {
      this.#dispatcher.publish({ type: 'ADDED', key, revision, object: entry.object });
    }
    return item(key, entry);
  }

  update(key: string, expectedRevision: number, object: KubeObject): StoredItem {
    this.#assertOpen();
    assertKey(key);
    assertRevision('expectedRevision', expectedRevision);
    assertObject(key, object);
    const previous = this.#live.get(key);
    if (previous === undefined) throw new StoreNotFoundError(key);
    if (previous.revision !== expectedRevision) throw new StoreConflictError(key, previous.revision);
    this.#assertWritable(key, object);
    const value = this.#serialize(key, object);
    const revision = this.#append(key, {
      created: false,
      deleted: false,
      createRevision: previous.createRevision,
      prevRevision: previous.revision,
      value,
    });
    const entry: LiveEntry = {
      revision,
      createRevision: previous.createRevision,
      object: frozenObject(value, revision),
      bytes: Buffer.byteLength(value),
    };
    this.#live.set(key, entry);
    this.#afterWrite(revision, previous.bytes);
    if (this.#dispatcher.hasListeners) {
      this.#dispatcher.publish({
        type: 'MODIFIED',
        key,
        revision,
        object: entry.object,
        prevObject: previous.object,
      });
    }
    return item(key, entry);
  }

  // Like etcd, refuse an object above the size limit: it would fill memory (every live object is held
  // there) and disk, and slow every list and watch that carries it.
  #serialize(key: string, object: KubeObject): string {
    const value = serializeForStorage(key, object);
    // UTF-8 takes at least one byte per UTF-16 unit and at most three: count bytes only when it matters.
    if (value.length * 3 > this.#maxObjectBytes) {
      const bytes = Buffer.byteLength(value);
      if (bytes > this.#maxObjectBytes) throw new StoreTooLargeError(key, bytes, this.#maxObjectBytes);
    }
    return value;
  }

  delete(key: string, expectedRevision?: number): StoredItem {
    this.#assertOpen();
    assertKey(key);
    if (expectedRevision !== undefined) assertRevision('expectedRevision', expectedRevision);
    const previous = this.#live.get(key);
    if (previous === undefined) throw new StoreNotFoundError(key);
    if (expectedRevision !== undefined && previous.revision !== expectedRevision) {
      throw new StoreConflictError(key, previous.revision);
    }
    // The tombstone carries the last state, so a resumed watch can still deliver the DELETED object.
    const tombstone = serializeForStorage(key, previous.object);
    const revision = this.#append(key, {
      created: false,
      deleted: true,
      createRevision: previous.createRevision,
      prevRevision: previous.revision,
      value: tombstone,
    });
    this.#afterWrite(revision, previous.bytes + Buffer.byteLength(tombstone));
    // At the quota, what a delete frees is freed at once.
    if (this.#quotaExceeded) this.#scheduleCompaction();
    this.#live.delete(key);
    this.#keys.remove(key);
    this.#tombstones.set(key, revision);
    // The last state, stamped with the deletion's revision.
    const gone = restamped(previous.object, revision);
    if (this.#dispatcher.hasListeners) {
      this.#dispatcher.publish({ type: 'DELETED', key, revision, object: gone, prevObject: previous.object });
    }
    return { key, revision, createRevision: previous.createRevision, object: gone };
  }

  eventsSince(prefix: string, afterRevision: number, key?: string): StoreEvent[] {
    this.#assertOpen();
    assertPrefix(prefix);
    if (key !== undefined && !key.startsWith(prefix))
      throw new TypeError(`key ${JSON.stringify(key)} is not under prefix ${JSON.stringify(prefix)}`);
    if (!Number.isSafeInteger(afterRevision) || afterRevision < 0) {
      throw new TypeError(`afterRevision must be a non-negative integer, got ${String(afterRevision)}`);
    }
    this.#assertNotCompacted(afterRevision);
    if (afterRevision >= this.#revision) return [];
    const rows =
      key === undefined
        ? this.#log.rowsAfter(prefix, afterRevision)
        : this.#log.keyRowsAfter(key, afterRevision);
    return rows.map(eventFromRow);
  }

  subscribe(listener: StoreListener): () => void {
    this.#assertOpen();
    return this.#dispatcher.subscribe(listener);
  }

  compact(): number {
    this.#assertOpen();
    this.flush();
    let target = Math.max(this.#revision - this.#retainRevisions, this.#compacted);
    // Over the byte budget, back to three quarters of it, so compaction does not run at every write.
    if (this.#history.bytes > this.#retainHistoryBytes) {
      target = Math.max(
        target,
        this.#history.compactionPointFor(Math.floor((this.#retainHistoryBytes * 3) / 4), this.#compacted),
      );
    }
    // At the quota every byte of history goes, as an operator compacts etcd to its current revision.
    if (this.#quotaExceeded) target = this.#revision;
    if (target > this.#compacted) {
      this.#log.compact(this.#compacted, target);
      this.#compacted = target;
      this.#history.compacted(target);
      for (const [key, tombstone] of this.#tombstones) if (tombstone <= target) this.#tombstones.delete(key);
    }
    this.#checkQuota();
    return this.#compacted;
  }

  usage(): StorageUsage {
    this.#assertOpen();
    return {
      usedBytes: this.#log.usedBytes(),
      historyBytes: this.#history.bytes,
      quotaBytes: this.#quotaBytes,
      quotaExceeded: this.#quotaExceeded,
    };
  }

  /** Refuses a create or update at the quota, unless it renews a Lease or goes on with a deletion. */
  #assertWritable(key: string, next: KubeObject | undefined): void {
    if (!this.#quotaExceeded) return;
    if (next !== undefined && (key.startsWith(RENEWABLE_AT_QUOTA) || next.metadata?.deletionTimestamp))
      return;
    throw new StoreQuotaExceededError(this.#log.usedBytes(), this.#quotaBytes);
  }

  /** Accounts a write at `revision` that made `historyBytes` bytes history; compacts or alarms if due. */
  #afterWrite(revision: number, historyBytes: number): void {
    this.#history.add(revision, historyBytes);
    if (this.#history.bytes > this.#retainHistoryBytes) this.#scheduleCompaction();
    this.#checkQuota();
  }

  #checkQuota(): void {
    const used = this.#log.usedBytes();
    const exceeded = used >= this.#quotaBytes;
    if (exceeded === this.#quotaExceeded) return;
    this.#quotaExceeded = exceeded;
    // Raised: compact what history there is at once. Either way, tell whoever watches the alarm.
    if (exceeded) this.#scheduleCompaction();
    this.#onQuotaAlarm({
      usedBytes: used,
      historyBytes: this.#history.bytes,
      quotaBytes: this.#quotaBytes,
      quotaExceeded: exceeded,
    });
  }

  /** Compacts after this turn (once, however many writes asked): compact() commits what is pending. */
  #scheduleCompaction(): void {
    if (this.#compactionScheduled) return;
    this.#compactionScheduled = true;
    setImmediate(() => {
      this.#compactionScheduled = false;
      if (this.#closed || this.#failure) return;
      try {
        this.compact();
      } catch (error) {
        this.#onBackgroundError(error, 'store compaction');
      }
    });
  }

  /** Commits what is pending (writes acknowledged by whenDurable() were committed already) and closes. */
  close(): void {
    if (this.#closed) return;
    try {
      this.flush();
    } catch {
      // Reported through onBackgroundError; what was acknowledged is on disk already.
    }
    this.#closed = true;
    clearInterval(this.#compactTimer);
    this.#log.close();
  }

  #append(key: string, row: Omit<Parameters<RevisionLog['append']>[0], 'key'>): number {
    if (this.#groupCommit && this.#group === undefined) {
      this.#log.begin();
      this.#group = Promise.withResolvers<void>();
      // The promise may have no waiter (in-process writes); a failure is reported through onBackgroundError.
      this.#group.promise.catch(() => {});
      // While an fsync runs, the group commits once it has returned (#synced).
      if (this.#syncing === undefined) setImmediate(() => this.#commitGroup());
    }
    let revision: number;
    try {
      revision = this.#log.append({ key, ...row });
    } catch (error) {
      // SQLite rolls the whole transaction back on some errors (disk full, I/O): the group is lost.
      if (this.#group !== undefined && !this.#log.inTransaction) this.#fail(error);
      // Only another process could have written the key: report what the log now holds.
      if (error instanceof LogConflictError)
        throw new StoreConflictError(key, this.#log.newestRevisionOf(key));
      throw error;
    }
    if (revision <= this.#revision) {
      throw new Error(`store revision went backwards: ${revision} after ${this.#revision} (file shared?)`);
    }
    this.#revision = revision;
    if (this.#group === undefined) this.#durable = revision;
    return revision;
  }

  /** Commits the open group, then fsyncs it off the event loop; with an fsync running, #synced calls again. */
  #commitGroup(): void {
    const group = this.#group;
    if (group === undefined || this.#syncing !== undefined || this.#failure || this.#closed) return;
    try {
      this.#log.commit();
    } catch (error) {
      this.#fail(error);
      return;
    }
    this.#group = undefined;
    if (!this.#log.syncsInBackground) {
      this.#durable = this.#revision;
      group.resolve();
      return;
    }
    const syncing = { group, upTo: this.#revision };
    this.#syncing = syncing;
    this.#log.syncWal((error) => this.#synced(syncing, error));
  }

  #synced(syncing: { group: PromiseWithResolvers<void>; upTo: number }, error: Error | null): void {
    // flush() made it durable meanwhile, or the store failed or closed.
    if (this.#syncing !== syncing) return;
    if (error) {
      this.#fail(error);
      return;
    }
    this.#syncing = undefined;
    this.#durable = syncing.upTo;
    syncing.group.resolve();
    // The writes made during the fsync commit after this turn, with those of the requests read in it.
    if (this.#group !== undefined) setImmediate(() => this.#commitGroup());
  }

  #fail(cause: unknown): void {
    if (this.#failure) return;
    this.#failure = new StoreFailedError(cause);
    try {
      this.#log.rollback();
    } catch {
      // Already rolled back, or the connection is broken: either way nothing of the group is on disk.
    }
    // A group committed but not yet fsynced was never acknowledged either: after a crash it may or may
    // not be there, like any write whose answer never came.
    this.#syncing?.group.reject(this.#failure);
    this.#syncing = undefined;
    this.#group?.reject(this.#failure);
    this.#group = undefined;
    this.#onBackgroundError(cause, 'committing a group of writes');
  }

  #listLive(prefix: string, afterKey: string | undefined, limit: number | undefined): ListResult {
    const items: StoredItem[] = [];
    let more = false;
    for (const key of this.#keys.range(prefix, afterKey)) {
      if (limit !== undefined && items.length === limit) {
        more = true;
        break;
      }
      items.push(item(key, this.#live.get(key)!));
    }
    return { items, revision: this.#revision, more };
  }

  #assertNotCompacted(revision: number): void {
    // The state at the compaction point itself is still complete, and so is every change after it.
    if (revision < this.#compacted) throw new StoreExpiredError(revision, this.#compacted);
  }

  #assertOpen(): void {
    if (this.#closed) throw new Error('store is closed');
    if (this.#failure) throw this.#failure;
  }

  #startCompactTimer(intervalMs: number): void {
    this.#compactTimer = setInterval(() => {
      try {
        this.compact();
      } catch (error) {
        this.#onBackgroundError(error, 'periodic store compaction');
      }
    }, intervalMs);
    this.#compactTimer.unref();
  }
}

/** A stored value as the store hands it out: parsed, stamped with its revision, deeply frozen. */
function frozenObject(value: string, revision: number): KubeObject {
  return markStored(deepFreeze(stampResourceVersion(JSON.parse(value), revision)));
}

/** A frozen object with another resourceVersion; everything below metadata is shared with it. */
function restamped(object: KubeObject, revision: number): KubeObject {
  const metadata = isPlainObject(object.metadata) ? object.metadata : {};
  return markStored(
    Object.freeze({
      ...object,
      metadata: Object.freeze({ ...metadata, resourceVersion: String(revision) }),
    }),
  );
}

function item(key: string, entry: LiveEntry): StoredItem {
  return { key, revision: entry.revision, createRevision: entry.createRevision, object: entry.object };
}

function itemFromRow(row: LogRow): StoredItem {
  return {
    key: row.key,
    revision: row.revision,
    createRevision: row.createRevision,
    object: frozenObject(row.value, row.revision),
  };
}

function eventFromRow(row: LogEventRow): StoreEvent {
  const object = frozenObject(row.value, row.revision);
  if (row.created) return { type: 'ADDED', key: row.key, revision: row.revision, object };
  const prevObject = row.prevValue === null ? undefined : frozenObject(row.prevValue, row.prevRevision);
  return {
    type: row.deleted ? 'DELETED' : 'MODIFIED',
    key: row.key,
    revision: row.revision,
    object,
    prevObject,
  };
}

function reportAsWarning(error: unknown, context: string): void {
  const detail = error instanceof Error ? (error.stack ?? error.message) : String(error);
  process.emitWarning(`${context} failed: ${detail}`, 'StoreWarning');
}

function validateOptions(options: SqliteStoreOptions): void {
  const { retainRevisions, compactIntervalMs, retainHistoryBytes, quotaBytes } = options;
  if (
    retainHistoryBytes !== undefined &&
    (!Number.isSafeInteger(retainHistoryBytes) || retainHistoryBytes < 0)
  ) {
    throw new TypeError(
      `retainHistoryBytes must be a non-negative integer, got ${String(retainHistoryBytes)}`,
    );
  }
  if (quotaBytes !== undefined && (!Number.isSafeInteger(quotaBytes) || quotaBytes <= 0)) {
    throw new TypeError(`quotaBytes must be a positive integer, got ${String(quotaBytes)}`);
  }
  if (retainRevisions !== undefined && (!Number.isSafeInteger(retainRevisions) || retainRevisions < 0)) {
    throw new TypeError(`retainRevisions must be a non-negative integer, got ${String(retainRevisions)}`);
  }
  if (compactIntervalMs !== undefined && (!Number.isFinite(compactIntervalMs) || compactIntervalMs <= 0)) {
    throw new TypeError(`compactIntervalMs must be a positive number, got ${String(compactIntervalMs)}`);
  }
}

function assertKey(key: string): void {
  if (typeof key !== 'string' || !key.startsWith('/') || !key.isWellFormed() || key.includes('\0')) {
    throw new TypeError(
      `key must be a string starting with "/" (well-formed, no NUL), got ${JSON.stringify(key)}`,
    );
  }
}

function assertPrefix(prefix: string): void {
  if (typeof prefix !== 'string' || !prefix.isWellFormed()) {
    throw new TypeError(`prefix must be a well-formed string, got ${JSON.stringify(prefix)}`);
  }
}

function assertObject(key: string, object: KubeObject): void {
  if (!isPlainObject(object)) throw new TypeError(`object for ${key} must be a JSON object`);
}

function assertRevision(name: string, revision: number): void {
  if (!Number.isSafeInteger(revision) || revision <= 0) {
    throw new TypeError(`${name} must be a positive integer, got ${String(revision)}`);
  }
}

/** Kubernetes treats limit <= 0 as "no limit". */
function normalizeLimit(limit: number | undefined): number | undefined {
  if (limit === undefined) return undefined;
  if (!Number.isSafeInteger(limit)) throw new TypeError(`limit must be an integer, got ${String(limit)}`);
  return limit > 0 ? limit : undefined;
}
