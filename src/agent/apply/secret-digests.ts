// The SHA-256 of each Secret value the agent wrote into a file, kept in the agent's root-only state
// directory (0600 in a 0700 directory) and nowhere else. Revisions, which every node can read, carry only
// the Secret's uid and resourceVersion (issue 31: an unkeyed digest there is an offline guessing oracle
// for low-entropy values); drift detection compares a managed file against the digest remembered here
// for exactly that version of the Secret.

import { join } from 'node:path';
import { writeFileAtomic } from '../../util/atomic-write.ts';
import { readTextIfPresent } from '../../util/read-if-present.ts';
import { ensureStateDirectory } from '../state/state-directory.ts';

const SECRET_DIGESTS_FILE = 'secret-digests.json';

/** The Secret key and version a rendered secretRef names. */
export interface VersionedSecretRef {
  namespace: string;
  name: string;
  key: string;
  uid?: string;
  resourceVersion?: string;
}

function keyOf(ref: VersionedSecretRef): string {
  return `${ref.namespace}/${ref.name}/${ref.key}`;
}

function versionOf(ref: VersionedSecretRef): string {
  return `${ref.uid ?? ''}@${ref.resourceVersion ?? ''}`;
}

interface Entry {
  version: string;
  sha256: string;
}

export class SecretDigests {
  readonly path: string | undefined;
  private readonly stateDir: string | undefined;
  private readonly entries = new Map<string, Entry>();
  private writes: Promise<void> = Promise.resolve();

  /** Without a state directory the digests live in memory only (tests, one-shot tools). */
  constructor(stateDir?: string) {
    this.stateDir = stateDir;
    this.path = stateDir === undefined ? undefined : join(stateDir, SECRET_DIGESTS_FILE);
  }

  /** Reads the remembered digests; an unreadable file counts as empty (drift then skips those files). */
  async load(): Promise<void> {
    if (this.path === undefined) return;
    const text = await readTextIfPresent(this.path);
    if (text === undefined) return;
    try {
      const value: unknown = JSON.parse(text);
      if (typeof value !== 'object' || value === null) return;
      for (const [key, entry] of Object.entries(value as Record<string, unknown>)) {
        const e = entry as Partial<Entry> | null;
        if (typeof e?.version === 'string' && typeof e.sha256 === 'string' && /^[0-9a-f]{64}$/.test(e.sha256))
          this.entries.set(key, { version: e.version, sha256: e.sha256 });
      }
    } catch {
      // advisory: a lost digest only means the next drift check does not compare that file's content
    }
  }

  /** The digest of the value this version of the Secret had when the agent read it, if remembered. */
  get(ref: VersionedSecretRef): string | undefined {
    const entry = this.entries.get(keyOf(ref));
    return entry?.version === versionOf(ref) ? entry.sha256 : undefined;
  }

  /** Remembers the digest of the value read for this version (replacing any other version of the key). */
  async record(ref: VersionedSecretRef, sha256: string): Promise<void> {
    const key = keyOf(ref);
    const version = versionOf(ref);
    const old = this.entries.get(key);
    if (old?.version === version && old.sha256 === sha256) return;
    this.entries.set(key, { version, sha256 });
    if (this.stateDir === undefined || this.path === undefined) return;
    const { stateDir, path } = this;
    const write = async () => {
      await ensureStateDirectory(stateDir);
      await writeFileAtomic(path, `${JSON.stringify(Object.fromEntries(this.entries))}\n`, { mode: 0o600 });
    };
    this.writes = this.writes.then(write, write);
    await this.writes;
  }
}
