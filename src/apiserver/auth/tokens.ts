// Bearer-token authentication for the embedded API server, persisted in <dataDir>/tokens.json.
//
// Only a SHA-256 hash of each token is stored. A plaintext token exists in exactly one place: the
// kubeconfig handed to its holder (see credentials.ts), so the server's own file grants nothing if it
// is copied into a bug report or a backup, and a node's token never has to stay on the host once
// delivered. The price: the store can return a token only when it issues one (creation or rotate);
// a holder that lost its token gets a new one through rotate. Tokens are 32 random bytes, so an
// unsalted fast hash is enough: there is nothing to brute-force.
//
// Lookup is by hash in a Map, then confirmed with timingSafeEqual. Map timing can only reveal how
// the hash of a guess relates to a stored hash, which does not help to find a token (preimage
// resistance), and it keeps authentication O(1) with thousands of nodes.
//
// Another process (the CLI) may change the file while the server runs: the store notices by stat
// at most once a second, and at once when a token is unknown. Writers in different processes are
// not locked against each other; each re-reads the file just before its atomic write.

import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { readFileSync, statSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { writeFileAtomic } from '../../util/atomic-write.ts';
import { type Identity, type IdentityKind, identityFor } from './identities.ts';

export const TOKENS_FILE = 'tokens.json';
const FILE_VERSION = 1;
const TOKEN_BYTES = 32;
// Far above a real token's 43 characters; anything longer is rejected before hashing.
const MAX_TOKEN_LENGTH = 1024;
const RECHECK_INTERVAL_MS = 1000;

interface StoredIdentity {
  kind: IdentityKind;
  name: string;
  nodeName?: string;
  /** Hex SHA-256 of the token. */
  tokenSha256: string;
  createdAt: string;
}

interface TokensFile {
  version: number;
  identities: StoredIdentity[];
}

interface Entry {
  identity: Identity;
  stored: StoredIdentity;
  hash: Buffer;
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
  return createHash('sha256').update(token, 'utf8').digest();
}

function newToken(): string {
  return randomBytes(TOKEN_BYTES).toString('base64url');
}

function keyOf(kind: IdentityKind, nodeName?: string): string {
  return kind === 'node' ? `node:${nodeName}` : kind;
}

/** Extracts the token from an `Authorization: Bearer <token>` header value. */
export function bearerToken(authorization: string | undefined): string | undefined {
  if (!authorization) return undefined;
  const match = /^bearer +(\S+) *$/i.exec(authorization);
  const token = match?.[1];
  if (!token || token.length > MAX_TOKEN_LENGTH) return undefined;
  return token;
}

interface FileStamp {
  ino: number;
  size: number;
  mtimeMs: number;
}

export class TokenStore {
  readonly path: string;
  #byKey = new Map<string, Entry>();
  #byHash = new Map<string, Entry>();
  #stamp: FileStamp | undefined;
  #lastCheck = 0;
  #writes: Promise<unknown> = Promise.resolve();

  private constructor(path: string) {
    this.path = path;
  }

  /** Opens the store of a data dir; the file is created on the first change. */
  static open(dataDir: string): TokenStore {
    const store = new TokenStore(join(dataDir, TOKENS_FILE));
    store.#reload();
    return store;
  }

  /** All identities, without secrets. */
  list(): Identity[] {
    this.#refresh(false);
    return [...this.#byKey.values()].map((entry) => entry.identity);
  }

  get(kind: IdentityKind, nodeName?: string): Identity | undefined {
    this.#refresh(false);
    return this.#byKey.get(keyOf(kind, nodeName))?.identity;
  }

  /** Who presents this `Authorization` header value, or undefined (→ 401). */
  authenticate(authorization: string | undefined): Identity | undefined {
    const token = bearerToken(authorization);
    return token === undefined ? undefined : this.authenticateToken(token);
  }

  /** Who holds this token, or undefined. */
  authenticateToken(token: string): Identity | undefined {
    if (token.length === 0 || token.length > MAX_TOKEN_LENGTH) return undefined;
    this.#refresh(false);
    const hash = sha256(token);
    let entry = this.#byHash.get(hash.toString('hex'));
    if (!entry) {
      this.#refresh(true);
      entry = this.#byHash.get(hash.toString('hex'));
    }
    if (!entry || !timingSafeEqual(entry.hash, hash)) return undefined;
    return entry.identity;
  }

  /** Creates the identity if it is missing; the token is returned only when it was created. */
  ensureIdentity(kind: IdentityKind, nodeName?: string): Promise<EnsuredIdentity> {
    const identity = identityFor(kind, nodeName);
    return this.#mutate<EnsuredIdentity>((file) => {
      const existing = file.identities.find(
        (stored) => keyOf(stored.kind, stored.nodeName) === keyOf(kind, nodeName),
      );
      if (existing) return { result: { identity, created: false } };
      const token = newToken();
      file.identities.push(toStored(identity, token));
      return { result: { identity, token, created: true }, changed: true };
    });
  }

  /** Issues a new token for the identity (creating it if needed); the old token stops working. */
  rotate(kind: IdentityKind, nodeName?: string): Promise<IssuedToken> {
    const identity = identityFor(kind, nodeName);
    return this.#mutate((file) => {
      const token = newToken();
      file.identities = file.identities.filter(
        (stored) => keyOf(stored.kind, stored.nodeName) !== keyOf(kind, nodeName),
      );
      file.identities.push(toStored(identity, token));
      return { result: { identity, token }, changed: true };
    });
  }

  /** Removes the identity; returns whether it existed. */
  revoke(kind: IdentityKind, nodeName?: string): Promise<boolean> {
    const key = keyOf(kind, nodeName);
    return this.#mutate((file) => {
      const before = file.identities.length;
      file.identities = file.identities.filter((stored) => keyOf(stored.kind, stored.nodeName) !== key);
      const removed = file.identities.length !== before;
      return { result: removed, changed: removed };
    });
  }

  // Serialised read-modify-write: re-read the file, apply, write atomically (0600), index.
  #mutate<T>(change: (file: TokensFile) => { result: T; changed?: boolean }): Promise<T> {
    const run = async (): Promise<T> => {
      const file = this.#readFile();
      const { result, changed } = change(file);
      if (changed) {
        await mkdir(dirname(this.path), { recursive: true, mode: 0o700 });
        await writeFileAtomic(this.path, `${JSON.stringify(file, null, 2)}\n`, { mode: 0o600 });
      }
      this.#reload();
      return result;
    };
    const next = this.#writes.then(run, run);
    this.#writes = next.catch(() => {});
    return next;
  }

  // Reloads when the file changed on disk; `force` skips the once-a-second throttle.
  #refresh(force: boolean): void {
    const now = Date.now();
    if (!force && now - this.#lastCheck < RECHECK_INTERVAL_MS) return;
    this.#lastCheck = now;
    const stamp = this.#statFile();
    const current = this.#stamp;
    if (stamp?.ino === current?.ino && stamp?.size === current?.size && stamp?.mtimeMs === current?.mtimeMs) {
      return;
    }
    this.#reload();
  }

  #statFile(): FileStamp | undefined {
    try {
      const stat = statSync(this.path);
      return { ino: stat.ino, size: stat.size, mtimeMs: stat.mtimeMs };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
      throw error;
    }
  }

  #readFile(): TokensFile {
    let text: string;
    try {
      text = readFileSync(this.path, 'utf8');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT')
        return { version: FILE_VERSION, identities: [] };
      throw error;
    }
    const file = JSON.parse(text) as TokensFile;
    if (file?.version !== FILE_VERSION || !Array.isArray(file.identities)) {
      throw new Error(`${this.path}: unsupported token store format`);
    }
    return file;
  }

  #reload(): void {
    const stamp = this.#statFile();
    const file = this.#readFile();
    const byKey = new Map<string, Entry>();
    const byHash = new Map<string, Entry>();
    for (const stored of file.identities) {
      const entry: Entry = {
        identity: identityFor(stored.kind, stored.nodeName),
        stored,
        hash: Buffer.from(stored.tokenSha256, 'hex'),
      };
      if (entry.hash.length !== 32) throw new Error(`${this.path}: malformed hash for ${stored.name}`);
      byKey.set(keyOf(stored.kind, stored.nodeName), entry);
      byHash.set(stored.tokenSha256, entry);
    }
    this.#byKey = byKey;
    this.#byHash = byHash;
    this.#stamp = stamp;
    this.#lastCheck = Date.now();
  }
}

function toStored(identity: Identity, token: string): StoredIdentity {
  return {
    kind: identity.kind,
    name: identity.name,
    ...(identity.nodeName !== undefined ? { nodeName: identity.nodeName } : {}),
    tokenSha256: sha256(token).toString('hex'),
    createdAt: new Date().toISOString(),
  };
}
