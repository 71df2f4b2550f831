// The SQLite side of the store: one append-only log whose AUTOINCREMENT id is the revision. Every write is
// one row (created / updated / tombstone); the newest row of a key is its state. AUTOINCREMENT (backed by
// sqlite_sequence) never hands out an id twice, even after compaction deleted the newest rows, so the
// revision counter never goes backwards across compaction and restarts.
import { closeSync, fsync, fsyncSync, mkdirSync, openSync } from 'node:fs';
import { dirname } from 'node:path';
import { compareKeys, prefixUpperBound } from './key-order.ts';
import {
  openSqliteDatabase,
  PreparedStatements,
  type SqliteDatabase,
  sqliteErrorCode,
} from './sqlite-driver.ts';

const SCHEMA_VERSION = 1;

// create_revision is 0 on the row that creates a key (its own id is not known before the insert) and
// reads back as the row's id. prev_revision is the id of the key's previous row (its tombstone when the key
// is re-created, 0 when it never existed): the unique (name, prev_revision) index makes two writers that
// raced from the same state collide instead of both succeeding.
const SCHEMA = `
CREATE TABLE IF NOT EXISTS log (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  name TEXT NOT NULL,
  created INTEGER NOT NULL,
  deleted INTEGER NOT NULL,
  create_revision INTEGER NOT NULL,
  prev_revision INTEGER NOT NULL,
  value TEXT NOT NULL
);
CREATE UNIQUE INDEX IF NOT EXISTS log_name_prev_revision ON log (name, prev_revision);
CREATE INDEX IF NOT EXISTS log_name_id ON log (name, id);
CREATE TABLE IF NOT EXISTS meta (name TEXT PRIMARY KEY, value INTEGER NOT NULL) WITHOUT ROWID;
INSERT OR IGNORE INTO meta (name, value) VALUES ('compacted_revision', 0);
`;

const ROW_COLUMNS = `l.id AS revision, l.name AS key, l.created AS created, l.deleted AS deleted,
  CASE WHEN l.created THEN l.id ELSE l.create_revision END AS createRevision,
  l.prev_revision AS prevRevision, l.value AS value`;

/** One log row. created/deleted are SQLite booleans (0 or 1). */
export interface LogRow {
  revision: number;
  key: string;
  created: number;
  deleted: number;
  createRevision: number;
  prevRevision: number;
  /** JSON without metadata.resourceVersion; a tombstone carries the key's last state. */
  value: string;
}

/** A row with the value of the row it superseded (null for rows that created their key). */
export interface LogEventRow extends LogRow {
  prevValue: string | null;
}

export interface NewLogRow {
  key: string;
  created: boolean;
  deleted: boolean;
  createRevision: number;
  prevRevision: number;
  value: string;
}

/** Thrown when the (name, prev_revision) index rejects a row: someone else wrote the key first. */
export class LogConflictError extends Error {
  readonly key: string;
  constructor(key: string) {
    super(`another write to ${key} was appended from the same previous revision`);
    this.key = key;
  }
}

export interface RevisionLogOptions {
  /**
   * Commit without waiting for the disk: COMMIT writes the transaction into the WAL (synchronous=NORMAL)
   * and returns, and the caller makes it durable with syncWal(), which fsyncs the WAL on libuv's thread
   * pool while the event loop goes on. Without it (default) every COMMIT fsyncs before it returns.
   * Ignored for ':memory:'.
   */
  syncInBackground?: boolean;
}

export class RevisionLog {
  readonly #db: SqliteDatabase;
  readonly #statements: PreparedStatements;
  readonly #compactInTransaction: (from: number, to: number) => void;
  /** Our own descriptor of the WAL file when commits are synced in the background, else undefined. */
  #walFd: number | undefined;
  #syncsInFlight = 0;
  #closeWalWhenIdle = false;

  private constructor(db: SqliteDatabase, walFd: number | undefined) {
    this.#db = db;
    this.#walFd = walFd;
    this.#statements = new PreparedStatements(db);
    this.#compactInTransaction = db.transaction((from: number, to: number) => {
      // A row is superseded once a later row of the same key exists at or below the compaction point; the
      // rows in (from, to] name exactly those it newly supersedes through prev_revision. Tombstones at or
      // below the point go too: the key is absent there, which the missing rows express just as well.
      this.#statements
        .get('DELETE FROM log WHERE id IN (SELECT prev_revision FROM log WHERE id > ? AND id <= ?)')
        .run(from, to);
      this.#statements.get('DELETE FROM log WHERE id > ? AND id <= ? AND deleted = 1').run(from, to);
      this.#statements.get("UPDATE meta SET value = ? WHERE name = 'compacted_revision'").run(to);
    });
  }

  /**
   * Opens (creating if needed) the log at path, or an in-memory one for ':memory:'. The file is locked
   * exclusively for the life of the connection: the store keeps the live state in memory, so a second
   * writer would silently diverge from it.
   */
  static open(path: string, options: RevisionLogOptions = {}): RevisionLog {
    const inMemory = path === ':memory:';
    if (!inMemory) mkdirSync(dirname(path), { recursive: true });
    const db = openSqliteDatabase(path, { timeout: 2000 });
    let walFd: number | undefined;
    try {
      db.pragma('locking_mode = EXCLUSIVE');
      const journalMode = db.pragma('journal_mode = WAL', { simple: true });
      if (!inMemory && journalMode !== 'wal') {
        throw new Error(`store ${path}: SQLite refused WAL journal mode (got ${String(journalMode)})`);
      }
      // FULL: the WAL is fsynced at every commit, so a write is durable once the call returns.
      db.pragma('synchronous = FULL');
      RevisionLog.#migrate(db, path);
      if (options.syncInBackground && !inMemory) {
        // The migration's transaction created the WAL, and (synchronous=FULL) fsynced it and, as SQLite
        // does for a journal it creates, its directory. From now on COMMIT only writes the WAL; syncWal()
        // fsyncs it through a descriptor of our own: fsync flushes the file, whichever descriptor asks.
        // SQLite still fsyncs the WAL's header when it restarts the WAL, and the WAL and the database
        // around every checkpoint (what synchronous=NORMAL keeps), so a crash loses at most the commits
        // not yet synced, and recovery replays exactly the commits whose frames reached the disk, a prefix
        // of them (the frames' checksums chain).
        walFd = openSync(`${path}-wal`, 'r');
        db.pragma('synchronous = NORMAL');
      }
    } catch (error) {
      if (walFd !== undefined) closeSync(walFd);
      db.close();
      if (sqliteErrorCode(error) === 'SQLITE_BUSY') {
        throw new Error(`store ${path} is locked by another process (only one API server may use it)`);
      }
      throw error;
    }
    return new RevisionLog(db, walFd);
  }

  static #migrate(db: SqliteDatabase, path: string): void {
    // BEGIN EXCLUSIVE also takes the file lock now rather than at the first write.
    db.exec('BEGIN EXCLUSIVE');
    try {
      const version = db.pragma('user_version', { simple: true }) as number;
      if (version > SCHEMA_VERSION) {
        throw new Error(
          `store ${path} has schema version ${version}; this build understands up to ${SCHEMA_VERSION}`,
        );
      }
      db.exec(SCHEMA);
      db.pragma(`user_version = ${SCHEMA_VERSION}`);
      db.exec('COMMIT');
    } catch (error) {
      if (db.inTransaction) db.exec('ROLLBACK');
      throw error;
    }
  }

  /** The highest revision ever handed out, including rows compaction has since removed. */
  sequence(): number {
    const row = this.#statements
      .get<{ seq: number }>("SELECT seq FROM sqlite_sequence WHERE name = 'log'")
      .get();
    return row?.seq ?? 0;
  }

  compactedRevision(): number {
    const row = this.#statements
      .get<{ value: number }>("SELECT value FROM meta WHERE name = 'compacted_revision'")
      .get();
    return row?.value ?? 0;
  }

  /** Every key the log holds a row of, with the id of its newest row (tombstones included). */
  newestRows(): { key: string; revision: number }[] {
    return this.#statements
      .get<{ key: string; revision: number }>(
        'SELECT name AS key, max(id) AS revision FROM log GROUP BY name',
      )
      .all();
  }

  /** Id of the key's newest row, tombstones included; 0 when the log holds none. */
  newestRevisionOf(key: string): number {
    const row = this.#statements
      .get<{ id: number | null }>('SELECT max(id) AS id FROM log WHERE name = ?')
      .get(key);
    return row?.id ?? 0;
  }

  /**
   * The history after `afterRevision` that compaction could still remove, oldest first: for each update or
   * delete the bytes of the row it superseded, and each tombstone's own bytes, at the revision they
   * became history (history-ledger.ts).
   */
  historyAfter(afterRevision: number): { revision: number; bytes: number }[] {
    return this.#statements
      .get<{ revision: number; bytes: number }>(
        `SELECT revision, sum(bytes) AS bytes FROM (
           SELECT l.id AS revision, length(CAST(p.value AS BLOB)) AS bytes FROM log l
             JOIN log p ON p.id = l.prev_revision WHERE l.id > ? AND l.created = 0
           UNION ALL
           SELECT id, length(CAST(value AS BLOB)) FROM log WHERE id > ? AND deleted = 1)
         GROUP BY revision ORDER BY revision`,
      )
      .all(afterRevision, afterRevision);
  }

  /**
   * Bytes of the database file in use: its pages less the free ones (which SQLite reuses before it grows
   * the file), this connection's uncommitted changes included. The WAL is not counted.
   */
  usedBytes(): number {
    const row = this.#statements
      .get<{ used: number }>(
        'SELECT (page_count - freelist_count) * page_size AS used FROM pragma_page_count(), pragma_freelist_count(), pragma_page_size()',
      )
      .get();
    return row?.used ?? 0;
  }

  /** True while a transaction begun with begin() is open: appends join it instead of committing alone. */
  get inTransaction(): boolean {
    return this.#db.inTransaction;
  }

  /** Opens a transaction that later appends join (group commit). */
  begin(): void {
    this.#db.exec('BEGIN');
  }

  /**
   * Commits the open transaction. Durable when this returns, unless the log syncs in the background:
   * then once a syncWal() called after it has succeeded.
   */
  commit(): void {
    this.#db.exec('COMMIT');
  }

  /** True when commits become durable only through syncWal() (see RevisionLogOptions). */
  get syncsInBackground(): boolean {
    return this.#walFd !== undefined;
  }

  /**
   * Makes every commit so far durable: fsyncs the WAL on the thread pool and calls back (with the error,
   * if the disk refused) on the event loop. Without background syncing, calls back at once.
   */
  syncWal(callback: (error: Error | null) => void): void {
    const fd = this.#walFd;
    if (fd === undefined) {
      queueMicrotask(() => callback(null));
      return;
    }
    this.#syncsInFlight++;
    fsync(fd, (error) => {
      this.#syncsInFlight--;
      if (this.#closeWalWhenIdle && this.#syncsInFlight === 0) this.#closeWal();
      callback(error);
    });
  }

  /** syncWal() on the calling thread: every commit so far is durable when this returns (throws if not). */
  syncWalNow(): void {
    if (this.#walFd !== undefined) fsyncSync(this.#walFd);
  }

  /** Abandons the open transaction, if SQLite has not already rolled it back itself. */
  rollback(): void {
    if (this.#db.inTransaction) this.#db.exec('ROLLBACK');
  }

  /**
   * Appends one row and returns its revision: committed and fsynced on return, or, inside begin(), part
   * of the open transaction. A failing row (e.g. a conflict) leaves the rest of that transaction intact.
   */
  append(row: NewLogRow): number {
    try {
      const result = this.#statements
        .get(
          'INSERT INTO log (name, created, deleted, create_revision, prev_revision, value) VALUES (?, ?, ?, ?, ?, ?)',
        )
        .run(
          row.key,
          row.created ? 1 : 0,
          row.deleted ? 1 : 0,
          row.createRevision,
          row.prevRevision,
          row.value,
        );
      return Number(result.lastInsertRowid);
    } catch (error) {
      if (sqliteErrorCode(error) === 'SQLITE_CONSTRAINT_UNIQUE') throw new LogConflictError(row.key);
      throw error;
    }
  }

  /**
   * The keys under prefix (strictly after afterKey) that were live at revision, in key order, each with the
   * row that held its state then. limit < 0 means no limit.
   */
  liveRowsAt(prefix: string, afterKey: string | undefined, revision: number, limit: number): LogRow[] {
    const upper = prefixUpperBound(prefix);
    // One lower bound, so the index scan starts where the page does.
    const afterStartsPage = afterKey !== undefined && compareKeys(afterKey, prefix) >= 0;
    const sql = `SELECT ${ROW_COLUMNS} FROM log l
      WHERE ${afterStartsPage ? 'l.name > ?' : 'l.name >= ?'} ${upper === undefined ? '' : 'AND l.name < ?'}
        AND l.id <= ? AND l.deleted = 0
        AND NOT EXISTS (SELECT 1 FROM log n WHERE n.name = l.name AND n.id > l.id AND n.id <= ?)
      ORDER BY l.name LIMIT ?`;
    const bounds = [afterStartsPage ? afterKey : prefix, ...(upper === undefined ? [] : [upper])];
    return this.#statements.get<LogRow>(sql).all(...bounds, revision, revision, limit);
  }

  /**
   * Rows of keys under prefix with revision > afterRevision, oldest first. Scans by revision (the unary +
   * keeps SQLite off the name index): a resuming watch is usually only a few revisions behind.
   */
  rowsAfter(prefix: string, afterRevision: number): LogEventRow[] {
    const upper = prefixUpperBound(prefix);
    const sql = `SELECT ${ROW_COLUMNS}, p.value AS prevValue FROM log l
      LEFT JOIN log p ON p.id = l.prev_revision AND l.created = 0
      WHERE l.id > ? AND +l.name >= ? ${upper === undefined ? '' : 'AND +l.name < ?'}
      ORDER BY l.id`;
    const bounds = upper === undefined ? [prefix] : [prefix, upper];
    return this.#statements.get<LogEventRow>(sql).all(afterRevision, ...bounds);
  }

  /**
   * rowsAfter for one key, through the (name, id) index: a watch of one object resumed from a
   * resourceVersion reads that object's rows, not those of every object under its prefix since then.
   */
  keyRowsAfter(key: string, afterRevision: number): LogEventRow[] {
    const sql = `SELECT ${ROW_COLUMNS}, p.value AS prevValue FROM log l
      LEFT JOIN log p ON p.id = l.prev_revision AND l.created = 0
      WHERE l.name = ? AND l.id > ?
      ORDER BY l.id`;
    return this.#statements.get<LogEventRow>(sql).all(key, afterRevision);
  }

  /** Removes history superseded at or before `to` (the previous compaction point was `from`), durably. */
  compact(from: number, to: number): void {
    this.#compactInTransaction(from, to);
  }

  close(): void {
    if (this.#db.open) this.#db.close();
    // A sync still running on the thread pool keeps the descriptor until it returns: closing it now
    // could let a file opened meanwhile reuse its number.
    if (this.#syncsInFlight === 0) this.#closeWal();
    else this.#closeWalWhenIdle = true;
  }

  #closeWal(): void {
    if (this.#walFd === undefined) return;
    closeSync(this.#walFd);
    this.#walFd = undefined;
  }
}
