// The contract between the HTTP layer and storage. Keys are `/<group or "core">/<resource>/<namespace or "">/<name>`;
// values are plain JSON objects. The store owns metadata.resourceVersion: it strips it on write and sets it on
// every object it returns, as the decimal string of the log revision that produced that state.
//
// Every object the store returns or publishes is deeply frozen and shared with every other reader of that
// state: read it, serialise it, keep it, but copy it (cloneJson) before changing anything in it.

export type KubeObject = Record<string, any>;

export interface StoredItem {
  key: string;
  /** Revision that last modified this key (equals metadata.resourceVersion). */
  revision: number;
  /** Revision that created this key (kept for watch semantics and future use). */
  createRevision: number;
  object: KubeObject;
}

export type StoreEventType = 'ADDED' | 'MODIFIED' | 'DELETED';

export interface StoreEvent {
  type: StoreEventType;
  key: string;
  /** Revision of this event; strictly increasing across the whole store. */
  revision: number;
  /** The new state, or for DELETED the last state carrying the deletion revision as resourceVersion. */
  object: KubeObject;
  /** The state before this event (undefined for ADDED); selector-filtered watches need it. */
  prevObject?: KubeObject;
}

export interface ListOptions {
  /** Return only keys strictly greater than this one (for limit/continue paging). */
  afterKey?: string;
  limit?: number;
  /** Read the state as of this revision (consistent paging). Throws StoreExpiredError if compacted. */
  atRevision?: number;
}

export interface ListResult {
  items: StoredItem[];
  /** The revision the list reflects. */
  revision: number;
  /** True when more keys under the prefix follow the last returned item. */
  more: boolean;
}

export class StoreConflictError extends Error {
  readonly key: string;
  readonly currentRevision: number | undefined;
  constructor(key: string, currentRevision: number | undefined) {
    super(`conflict on ${key}`);
    this.key = key;
    this.currentRevision = currentRevision;
  }
}
/** etcd's default --max-request-bytes: a stored object (one write) may be at most this large. */
export const MAX_OBJECT_BYTES = 1.5 * 1024 * 1024;

/** A write whose serialized object is larger than the store accepts (etcd: request is too large). */
export class StoreTooLargeError extends Error {
  readonly key: string;
  readonly bytes: number;
  readonly limit: number;
  constructor(key: string, bytes: number, limit: number) {
    super(`object ${key} is ${bytes} bytes, more than the limit of ${limit}`);
    this.key = key;
    this.bytes = bytes;
    this.limit = limit;
  }
}

/** etcd's default --quota-backend-bytes: the store refuses writes once it holds this much. */
export const DEFAULT_QUOTA_BYTES = 2 * 1024 * 1024 * 1024;

/**
 * A write refused because the store is at its quota (etcd's NOSPACE alarm): deletes, compaction and
 * Lease renewals still go through, and the alarm clears once they have brought it back under.
 */
export class StoreQuotaExceededError extends Error {
  readonly usedBytes: number;
  readonly quotaBytes: number;
  constructor(usedBytes: number, quotaBytes: number) {
    super(
      `etcdserver: mvcc: database space exceeded: the store holds ${usedBytes} bytes, its quota is ${quotaBytes}; delete objects (history is compacted at once) to bring it back under`,
    );
    this.usedBytes = usedBytes;
    this.quotaBytes = quotaBytes;
  }
}

/** How full the store is, for metrics, /readyz and `nodeherd status`. */
export interface StorageUsage {
  /** Bytes of the database in use (live state and history). */
  usedBytes: number;
  /** Of which history compaction may still remove. */
  historyBytes: number;
  quotaBytes: number;
  /** True while writes are refused (used ≥ quota), until deletes and compaction bring it back under. */
  quotaExceeded: boolean;
}

export class StoreNotFoundError extends Error {
  readonly key: string;
  constructor(key: string) {
    super(`not found: ${key}`);
    this.key = key;
  }
}
export class StoreExistsError extends Error {
  readonly key: string;
  constructor(key: string) {
    super(`already exists: ${key}`);
    this.key = key;
  }
}
export class StoreExpiredError extends Error {
  readonly requested: number;
  readonly compacted: number;
  constructor(requested: number, compacted: number) {
    super(`revision ${requested} has been compacted (oldest available: ${compacted})`);
    this.requested = requested;
    this.compacted = compacted;
  }
}

/**
 * Committing a group of writes failed (disk full, I/O error): writes this process has already shown to
 * its own readers are not on disk, so the store refuses all further work; a restart reloads the truth.
 */
export class StoreFailedError extends Error {
  constructor(cause: unknown) {
    super(
      `the store failed to commit writes and must be reopened: ${cause instanceof Error ? cause.message : String(cause)}`,
      {
        cause,
      },
    );
  }
}

/** What output needs to hold itself back until the state it reflects is durable. */
export type DurabilityGate = Pick<Store, 'currentRevision' | 'durableRevision' | 'whenDurable'>;

export interface Store {
  /** The highest revision written so far (0 for an empty store). */
  currentRevision(): number;
  /** Revisions below this number can no longer be watched from or listed at. */
  compactedRevision(): number;
  get(key: string): StoredItem | undefined;
  /** Keys starting with prefix, in key order. */
  list(prefix: string, options?: ListOptions): ListResult;
  count(prefix: string): number;
  /**
   * The highest revision that is durable. Equal to currentRevision() unless the store group-commits, in
   * which case writes are visible (to reads and subscribers) in this process before they are durable, and
   * nothing derived from them may leave the process before whenDurable() resolves.
   */
  durableRevision(): number;
  /**
   * Resolves once every write up to revision (default: every write so far) is durable; rejects with
   * StoreFailedError if committing them failed.
   */
  whenDurable(revision?: number): Promise<void>;
  /** Durable (fsynced) before it returns, or with group commit once whenDurable() resolves. Throws StoreExistsError. */
  create(key: string, object: KubeObject): StoredItem;
  /** Compare-and-swap on the key's current revision. Throws StoreConflictError / StoreNotFoundError. */
  update(key: string, expectedRevision: number, object: KubeObject): StoredItem;
  /** Deletes the key; with expectedRevision, only if it still matches. Returns the last state with the deletion revision. */
  delete(key: string, expectedRevision?: number): StoredItem;
  /**
   * Events for keys under prefix with revision > afterRevision, oldest first; with `key`, for that one
   * key (under prefix) only. Throws StoreExpiredError.
   */
  eventsSince(prefix: string, afterRevision: number, key?: string): StoreEvent[];
  /** Called synchronously after every write, in revision order. Returns an unsubscribe function. */
  subscribe(listener: (event: StoreEvent) => void): () => void;
  /** Drops history older than the retention window; returns the new compacted revision. */
  compact(): number;
  /** How full the store is against its quota. */
  usage(): StorageUsage;
  close(): void;
}
