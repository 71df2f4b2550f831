// Bearer-token authentication for the embedded API server, persisted in <dataDir>/tokens.db (SQLite).
//
// Only a SHA-256 hash of each token is stored. A plaintext token exists in exactly one place: the
// kubeconfig handed to its holder (see credentials.ts), so the server's own file grants nothing if it
// is copied into a bug report or a backup, and a node's token never has to stay on the host once
// delivered. The price: the store can return a token only when it issues one (creation or rotate);
// a holder that lost its token gets a new one through rotate. Tokens are 32 random bytes, so an
// unsalted fast hash is enough: there is nothing to brute-force.
//
// Why SQLite and not a JSON file: issuing a token used to rewrite the whole file, so issuing one per
// node for N nodes cost O(N²) (5,000 nodes ≈ 55 s). Now an issuance is one fsynced row: durable when
// the call resolves, atomic, O(1) amortised. It is a file of its own, not the API server's state.db,
// because the CLI (`nodeherd token`) issues tokens while the server runs and state.db is locked
// exclusively by the server; SQLite's WAL locking serialises the two processes' writers safely, which
// the JSON file never did.
//
// Authentication looks the hash up by primary key, then confirms it with timingSafeEqual: index timing
// can only reveal how the hash of a guess relates to a stored hash, which does not help to find a token
// (preimage resistance). The identities found are kept by hash, as kube-apiserver's token cache keeps
// them (never the plaintext), because the lookup was 4 % of the server's CPU under a fleet's heartbeats
// (bench/apiserver-mix.bench.ts): a read transaction per request. They are forgotten when this store
// writes, and when another connection (the CLI's `nodeherd token`) has written the file, which
// `PRAGMA data_version` tells and which is asked at most every KNOWN_CHECK_MS: a token the CLI rotates
// stops working within that, one it issues works at once (an unknown hash is always looked up).
//
// A tokens.json left by an older build is imported on open, in one transaction, and then removed.

import { hash, randomBytes, timingSafeEqual } from 'node:crypto';
import { closeSync, mkdirSync, openSync, readFileSync, unlinkSync } from 'node:fs';
import { join } from 'node:path';
import { monotonicMs } from '../../util/monotonic.ts';
import {
  openSqliteDatabase,
  PreparedStatements,
  type SqliteDatabase,
  sqliteErrorCode,
} from '../storage/sqlite-driver.ts';
import type { Identities, Identity, IdentityKind } from './identities.ts';

export const TOKENS_DB = 'tokens.db';
/** The JSON file earlier builds kept; migrated into TOKENS_DB on open. */
export const LEGACY_TOKENS_FILE = 'tokens.json';
const LEGACY_FILE_VERSION = 1;
const SCHEMA_VERSION = 1;
const TOKEN_BYTES = 32;
// Far above a static token's 43 characters and a ServiceAccount JWT's ~1 KB (service-account-
// tokens.ts); anything longer is rejected before hashing or verifying.
const MAX_TOKEN_LENGTH = 8192;
// How long a writer waits for the other process's write transaction (they are one fsync long).
const BUSY_TIMEOUT_MS = 10_000;
// How often the identities kept by hash are checked against other processes' writes to the file.
const KNOWN_CHECK_MS = 50;
// Bound on the identities kept (only tokens that authenticated are kept: at most one per identity
// between writes); past it they are all forgotten and found again.
const KNOWN_LIMIT = 100_000;

const SCHEMA = `
CREATE TABLE IF NOT EXISTS identities (
  key TEXT PRIMARY KEY,
  kind TEXT NOT NULL,
  node_name TEXT,
  token_sha256 BLOB NOT NULL UNIQUE,
  created_at TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS meta (name TEXT PRIMARY KEY, value TEXT NOT NULL) WITHOUT ROWID;
`;

interface IdentityRow {
  kind: IdentityKind;
  node_name: string | null;
  token_sha256: Buffer;
}

interface LegacyIdentity {
  kind: IdentityKind;
  name: string;
  nodeName?: string;
  tokenSha256: string;
  createdAt: string;
}

export interface IssuedToken {
  identity: Identity;
  /** The plaintext token; shown only now, never stored. */
  token: string;
}

export interface EnsuredIdentity {
  identity: Identity;
  /** Present only when this call created the identity. */
  token?: string;
  created: boolean;
}

function sha256(token: string): Buffer {
  // The one-shot digest: no Hash object per request (authentication hashes every request's token).
  return hash('sha256', token, 'buffer');
}

function newToken(): string {
  return randomBytes(TOKEN_BYTES).toString('base64url');
}

function keyOf(kind: IdentityKind, nodeName?: string): string {
  return kind === 'node' || kind === 'kubelet' ? `${kind}:${nodeName}` : kind;
}

/** Extracts the token from an `Authorization: Bearer <token>` header value. */
export function bearerToken(authorization: string | undefined): string | undefined {
  if (!authorization) return undefined;
  const match = /^bearer +(\S+) *$/i.exec(authorization);
  const token = match?.[1];
  if (!token || token.length > MAX_TOKEN_LENGTH) return undefined;
  return token;
}

export class TokenStore {
  readonly path: string;
  readonly #db: SqliteDatabase;
  readonly #statements: PreparedStatements;
  /** Identities of tokens that authenticated, by the token's hash (latin1), since #knownVersion. */
  readonly #known = new Map<string, Identity>();
  /** The file's data_version when #known was last checked, and when that was. */
  #knownVersion: unknown;
  #knownCheckedAt = -Infinity;
  /** What a stored kind and node stand for. */
  readonly identities: Identities;

  private constructor(path: string, db: SqliteDatabase, identities: Identities) {
    this.path = path;
    this.#db = db;
    this.#statements = new PreparedStatements(db);
    this.identities = identities;
  }

  /**
   * Opens (creating if needed) the store of a data dir, importing a legacy tokens.json. `identities`
   * names what a stored kind and node stand for (the profile's IdentityNames).
   */
  static open(dataDir: string, identities: Identities): TokenStore {
    mkdirSync(dataDir, { recursive: true, mode: 0o700 });
    const path = join(dataDir, TOKENS_DB);
    // SQLite creates its -wal and -shm files with the database file's mode: make that 0600 first.
    closeSync(openSync(path, 'a', 0o600));
    const db = openSqliteDatabase(path, { timeout: BUSY_TIMEOUT_MS });
    const store = new TokenStore(path, db, identities);
    try {
      const journalMode = db.pragma('journal_mode = WAL', { simple: true });
      if (journalMode !== 'wal') throw new Error(`${path}: SQLite refused WAL journal mode`);
      // FULL: the WAL is fsynced at every commit, so an issued token is durable once the call resolves.
      db.pragma('synchronous = FULL');
      store.#migrate(join(dataDir, LEGACY_TOKENS_FILE));
    } catch (error) {
      db.close();
      throw error;
    }
    return store;
  }

  /** All identities, without secrets, in key order. */
  list(): Identity[] {
    return this.#statements
      .get<IdentityRow>('SELECT kind, node_name FROM identities ORDER BY key')
      .all()
      .map((row) => this.#identityOf(row));
  }

  get(kind: IdentityKind, nodeName?: string): Identity | undefined {
    const row = this.#statements
      .get<IdentityRow>('SELECT kind, node_name FROM identities WHERE key = ?')
      .get(keyOf(kind, nodeName));
    return row === undefined ? undefined : this.#identityOf(row);
  }

  /** Who presents this `Authorization` header value, or undefined (→ 401). */
  authenticate(authorization: string | undefined): Identity | undefined {
    const token = bearerToken(authorization);
    return token === undefined ? undefined : this.authenticateToken(token);
  }

  /** Who holds this token, or undefined. */
  authenticateToken(token: string): Identity | undefined {
    if (token.length === 0 || token.length > MAX_TOKEN_LENGTH) return undefined;
    const hash = sha256(token);
    this.#checkKnown();
    const key = hash.toString('latin1');
    const known = this.#known.get(key);
    if (known !== undefined) return known;
    const row = this.#statements
      .get<IdentityRow>('SELECT kind, node_name, token_sha256 FROM identities WHERE token_sha256 = ?')
      .get(hash);
    if (row === undefined || !timingSafeEqual(row.token_sha256, hash)) return undefined;
    // Frozen: the same object answers every request with this token until the next write.
    const identity = Object.freeze(this.#identityOf(row));
    Object.freeze(identity.groups);
    if (this.#known.size >= KNOWN_LIMIT) this.#known.clear();
    this.#known.set(key, identity);
    return identity;
  }

  // Forgets the kept identities if another connection has committed to the file since the last check.
  #checkKnown(): void {
    const now = monotonicMs();
    if (now - this.#knownCheckedAt < KNOWN_CHECK_MS) return;
    this.#knownCheckedAt = now;
    const version = this.#db.pragma('data_version', { simple: true });
    if (version !== this.#knownVersion) {
      this.#known.clear();
      this.#knownVersion = version;
    }
  }

  /** Creates the identity if it is missing; the token is returned only when it was created. */
  async ensureIdentity(kind: IdentityKind, nodeName?: string): Promise<EnsuredIdentity> {
    const identity = this.identities.identityFor(kind, nodeName);
    const token = newToken();
    const inserted = this.#statements
      .get(
        `INSERT INTO identities (key, kind, node_name, token_sha256, created_at) VALUES (?, ?, ?, ?, ?)
       ON CONFLICT (key) DO NOTHING`,
      )
      .run(keyOf(kind, nodeName), kind, identity.nodeName ?? null, sha256(token), new Date().toISOString());
    if (inserted.changes === 0) return { identity, created: false };
    this.#known.clear();
    return { identity, token, created: true };
  }

  /** Issues a new token for the identity (creating it if needed); the old token stops working. */
  async rotate(kind: IdentityKind, nodeName?: string): Promise<IssuedToken> {
    const identity = this.identities.identityFor(kind, nodeName);
    const token = newToken();
    this.#statements
      .get(
        `INSERT INTO identities (key, kind, node_name, token_sha256, created_at) VALUES (?, ?, ?, ?, ?)
       ON CONFLICT (key) DO UPDATE SET token_sha256 = excluded.token_sha256, created_at = excluded.created_at`,
      )
      .run(keyOf(kind, nodeName), kind, identity.nodeName ?? null, sha256(token), new Date().toISOString());
    this.#known.clear();
    return { identity, token };
  }

  /** Removes the identity; returns whether it existed. */
  async revoke(kind: IdentityKind, nodeName?: string): Promise<boolean> {
    this.identities.identityFor(kind, nodeName);
    const deleted = this.#statements.get('DELETE FROM identities WHERE key = ?').run(keyOf(kind, nodeName));
    this.#known.clear();
    return deleted.changes === 1;
  }

  close(): void {
    if (this.#db.open) this.#db.close();
  }

  // Creates the schema and imports a legacy tokens.json, all in one transaction. The import is recorded
  // in meta, so a file whose removal a crash prevented is not imported again over later changes.
  #migrate(legacyPath: string): void {
    this.#db.exec('BEGIN IMMEDIATE');
    try {
      const version = this.#db.pragma('user_version', { simple: true }) as number;
      if (version > SCHEMA_VERSION) {
        throw new Error(
          `${this.path} has schema version ${version}; this build understands ${SCHEMA_VERSION}`,
        );
      }
      this.#db.exec(SCHEMA);
      this.#db.pragma(`user_version = ${SCHEMA_VERSION}`);
      const imported = this.#db.prepare("SELECT 1 FROM meta WHERE name = 'imported_tokens_json'").get();
      const legacy = imported === undefined ? readLegacyFile(legacyPath) : undefined;
      if (legacy !== undefined) {
        const insert = this.#db.prepare(
          `INSERT INTO identities (key, kind, node_name, token_sha256, created_at) VALUES (?, ?, ?, ?, ?)
           ON CONFLICT DO NOTHING`,
        );
        for (const stored of legacy) {
          const identity = this.identities.identityFor(stored.kind, stored.nodeName);
          const hash = Buffer.from(String(stored.tokenSha256), 'hex');
          if (hash.length !== 32) throw new Error(`${legacyPath}: malformed hash for ${identity.name}`);
          insert.run(
            keyOf(stored.kind, stored.nodeName),
            stored.kind,
            identity.nodeName ?? null,
            hash,
            String(stored.createdAt),
          );
        }
        this.#db
          .prepare("INSERT INTO meta (name, value) VALUES ('imported_tokens_json', ?)")
          .run(new Date().toISOString());
      }
      this.#db.exec('COMMIT');
      if (legacy !== undefined || imported !== undefined) removeIfPresent(legacyPath);
    } catch (error) {
      if (this.#db.inTransaction) this.#db.exec('ROLLBACK');
      if (sqliteErrorCode(error) === 'SQLITE_BUSY') {
        throw new Error(`${this.path} stayed locked by another process for ${BUSY_TIMEOUT_MS} ms`);
      }
      throw error;
    }
  }

  #identityOf(row: IdentityRow): Identity {
    return this.identities.identityFor(row.kind, row.node_name ?? undefined);
  }
}

/** The identities of a legacy tokens.json, or undefined when there is none. */
function readLegacyFile(path: string): LegacyIdentity[] | undefined {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
  const file = JSON.parse(text) as { version?: unknown; identities?: unknown };
  if (file?.version !== LEGACY_FILE_VERSION || !Array.isArray(file.identities)) {
    throw new Error(`${path}: unsupported token store format`);
  }
  return file.identities as LegacyIdentity[];
}

function removeIfPresent(path: string): void {
  try {
    unlinkSync(path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
}
