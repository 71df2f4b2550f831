// Files generated from the source (CRDs, the API reference, deploy manifests) are committed; each
// generator writes them, or with --check only says which committed ones differ, so a test or CI can
// fail on drift.

import { mkdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { writeFileAtomicSync } from '../util/atomic-write.ts';

export const repositoryRoot = join(dirname(fileURLToPath(import.meta.url)), '..', '..');

function readOrEmpty(path: string): string {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return '';
  }
}

/**
 * Brings the committed copies of `files` (repository-relative path → content) up to date, or with
 * `check` only reports the ones that differ, naming `command` as the fix. Returns how many differ
 * and were not written.
 */
export function updateGeneratedFiles(
  files: Record<string, string>,
  options: { check: boolean; command: string },
): number {
  let stale = 0;
  for (const [path, content] of Object.entries(files)) {
    const target = join(repositoryRoot, path);
    if (readOrEmpty(target) === content) continue;
    if (options.check) {
      stale++;
      console.error(`${path} is out of date: run ${options.command}`);
    } else {
      mkdirSync(dirname(target), { recursive: true }); // a newly generated directory
      writeFileAtomicSync(target, content, { mode: 0o644 });
      console.log(`wrote ${path}`);
    }
  }
  return stale;
}
