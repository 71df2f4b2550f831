// The few better-sqlite3 calls the store uses, typed here because the package ships no type declarations
// (and adding @types would be a new dependency). Loaded through createRequire since it is a CommonJS module.
import { createRequire } from 'node:module';

export interface SqliteRunResult {
  changes: number;
  lastInsertRowid: number | bigint;
}

export interface SqliteStatement<Row = unknown> {
  run(...params: unknown[]): SqliteRunResult;
  get(...params: unknown[]): Row | undefined;
  all(...params: unknown[]): Row[];
  iterate(...params: unknown[]): IterableIterator<Row>;
}

export interface SqliteDatabase {
  prepare<Row = unknown>(sql: string): SqliteStatement<Row>;
  pragma(source: string, options?: { simple?: boolean }): unknown;
  exec(sql: string): SqliteDatabase;
  transaction<Args extends unknown[], Result>(fn: (...args: Args) => Result): (...args: Args) => Result;
  close(): void;
  readonly open: boolean;
  readonly inTransaction: boolean;
}

export interface SqliteOpenOptions {
  /** How long to wait for a lock held by another connection before failing with SQLITE_BUSY. */
  timeout?: number;
}

/** better-sqlite3 errors carry SQLite's extended result code, e.g. SQLITE_CONSTRAINT_UNIQUE or SQLITE_BUSY. */
export function sqliteErrorCode(error: unknown): string | undefined {
  const code = error instanceof Error ? (error as Error & { code?: unknown }).code : undefined;
  return typeof code === 'string' ? code : undefined;
}

/** Prepares each SQL text once per connection and hands out that statement from then on. */
export class PreparedStatements {
  readonly #db: SqliteDatabase;
  readonly #statements = new Map<string, SqliteStatement<any>>();

  constructor(db: SqliteDatabase) {
    this.#db = db;
  }

  get<Row>(sql: string): SqliteStatement<Row> {
    let statement = this.#statements.get(sql);
    if (statement === undefined) {
      statement = this.#db.prepare<Row>(sql);
      this.#statements.set(sql, statement);
    }
    return statement;
  }
}

type DatabaseConstructor = new (path: string, options?: SqliteOpenOptions) => SqliteDatabase;

const require = createRequire(import.meta.url);
const Database = require('better-sqlite3') as DatabaseConstructor;

export function openSqliteDatabase(path: string, options?: SqliteOpenOptions): SqliteDatabase {
  return new Database(path, options);
}
