// Where the bearer token of each request comes from: a fixed string, or a file that is replaced when
// the token rotates (a kubeconfig's tokenFile, a pod's projected ServiceAccount token, which the
// kubelet renews before it expires by swapping a symlink). The file is checked with one stat per
// request and read again only when it changed (another inode, size or mtime), so a rotated token is
// used from the next request on, without a restart. client-go re-reads at most once a minute; a stat
// per request is cheap for an agent that makes a few requests a minute and picks a rotation up at
// once. After a 401 the caller asks refresh(): the file is read again whatever its stat says (a
// rotation within the same second on a coarse-mtime filesystem) and the request is worth one retry
// when the token changed.

import { readFileSync, statSync } from 'node:fs';

export interface BearerTokenSource {
  /** The token to send now. Throws when it cannot be had (an unreadable or empty token file). */
  current(): string;
  /** Reads the token again at once; true when it differs from the one sent before. */
  refresh(): boolean;
  /** Tokens recently sent (the current one and the one it replaced), to scrub them from error text. */
  recent(): readonly string[];
}

export class StaticTokenSource implements BearerTokenSource {
  readonly #token: string;

  constructor(token: string) {
    if (token === '') throw new Error('a bearer token is required');
    this.#token = token;
  }

  current(): string {
    return this.#token;
  }

  refresh(): boolean {
    return false;
  }

  recent(): readonly string[] {
    return [this.#token];
  }
}

export class TokenFileError extends Error {
  constructor(path: string, why: string) {
    super(`token file ${path}: ${why}`);
    this.name = 'TokenFileError';
  }
}

export class FileTokenSource implements BearerTokenSource {
  readonly path: string;
  #token = '';
  #previous: string | undefined;
  #stamp = '';

  /** Reads the file once now, so a missing or empty file is an error at start, not at the first request. */
  constructor(path: string) {
    this.path = path;
    this.reload(true);
  }

  current(): string {
    this.reload(false);
    return this.#token;
  }

  refresh(): boolean {
    const before = this.#token;
    try {
      this.reload(true);
    } catch {
      return false; // keep the last good token; the 401 stands
    }
    return this.#token !== before;
  }

  recent(): readonly string[] {
    return this.#previous === undefined ? [this.#token] : [this.#token, this.#previous];
  }

  private reload(force: boolean): void {
    let stamp: string;
    try {
      const stats = statSync(this.path);
      stamp = `${stats.dev}:${stats.ino}:${stats.size}:${stats.mtimeMs}`;
    } catch (error) {
      // A token that vanished mid-rotation: keep using the last one read; fail only before the first.
      if (this.#token !== '') return;
      throw new TokenFileError(this.path, `cannot be read (${(error as NodeJS.ErrnoException).code})`);
    }
    if (!force && stamp === this.#stamp) return;
    let token: string;
    try {
      token = readFileSync(this.path, 'utf8').trim();
    } catch (error) {
      if (this.#token !== '') return;
      throw new TokenFileError(this.path, `cannot be read (${(error as NodeJS.ErrnoException).code})`);
    }
    if (token === '' || /\s/.test(token)) {
      // Half-written or not a token: keep the last good one if there is one.
      if (this.#token !== '') return;
      throw new TokenFileError(this.path, token === '' ? 'is empty' : 'holds more than one word');
    }
    this.#stamp = stamp;
    if (token !== this.#token) {
      if (this.#token !== '') this.#previous = this.#token;
      this.#token = token;
    }
  }
}
