// Drift: a managed file that no longer is what the last applied revision wrote (edited by hand,
// deleted, or brought back stale by filesystem journal recovery, gardener#10819). The agent reports
// it and re-applying the revision repairs it. Defaults match FileExecutor.write: mode 0644, root.

import { createHash } from 'node:crypto';
import type { FileExecutor, Principal } from '../executors/types.ts';

export interface ExpectedFile {
  path: string;
  /** Hex sha256 of the content; or give `content`. Neither: the content is not checked. */
  sha256?: string;
  content?: Buffer | string;
  /** Default 0o644. */
  mode?: number;
  /** Default root. */
  owner?: Principal;
  /** Default root. */
  group?: Principal;
}

export type DriftReason = 'missing' | 'content' | 'mode' | 'owner';

export interface DriftedFile {
  path: string;
  reason: DriftReason;
  /** Human-readable: what was found against what was expected. */
  detail: string;
}

/**
 * Every way each expected file differs from what is on disk, in input order; a missing file is
 * reported once as 'missing'. Group differences count as 'owner'.
 */
export async function detectDrift(
  expected: readonly ExpectedFile[],
  files: FileExecutor,
): Promise<DriftedFile[]> {
  const drifted: DriftedFile[] = [];
  for (const want of expected) {
    const found = await files.read(want.path);
    if (!found) {
      drifted.push({ path: want.path, reason: 'missing', detail: 'file does not exist' });
      continue;
    }
    if (found.kind !== 'file') {
      drifted.push({ path: want.path, reason: 'content', detail: `a ${found.kind} is where a file belongs` });
      continue;
    }
    const expectedSha = expectedDigest(want);
    if (expectedSha !== undefined) {
      const actualSha = sha256(found.content);
      if (actualSha !== expectedSha) {
        drifted.push({
          path: want.path,
          reason: 'content',
          detail: `sha256 ${actualSha.slice(0, 12)}, expected ${expectedSha.slice(0, 12)}`,
        });
      }
    }
    const wantMode = want.mode ?? 0o644;
    if (found.mode !== wantMode) {
      drifted.push({
        path: want.path,
        reason: 'mode',
        detail: `mode ${octal(found.mode)}, expected ${octal(wantMode)}`,
      });
    }
    const ownerDrift = await ownerDifference(files, want, found);
    if (ownerDrift) drifted.push({ path: want.path, reason: 'owner', detail: ownerDrift });
  }
  return drifted;
}

async function ownerDifference(
  files: FileExecutor,
  want: ExpectedFile,
  found: { uid: number; gid: number },
): Promise<string | undefined> {
  let expected: { uid: number; gid: number };
  try {
    expected = await files.resolveOwnership(want.owner, want.group);
  } catch (error) {
    return (error as Error).message; // e.g. the owning user was deleted from /etc/passwd
  }
  if (expected.uid === found.uid && expected.gid === found.gid) return undefined;
  return `owner ${found.uid}:${found.gid}, expected ${expected.uid}:${expected.gid}`;
}

function expectedDigest(want: ExpectedFile): string | undefined {
  if (want.sha256 !== undefined) return want.sha256.toLowerCase();
  if (want.content !== undefined)
    return sha256(typeof want.content === 'string' ? Buffer.from(want.content) : want.content);
  return undefined;
}

function sha256(content: Buffer): string {
  return createHash('sha256').update(content).digest('hex');
}

function octal(mode: number): string {
  return `0${mode.toString(8).padStart(3, '0')}`;
}
