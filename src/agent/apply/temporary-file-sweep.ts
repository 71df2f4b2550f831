// A process killed in the middle of an atomic write leaves its temporary file (`.<name>.<pid>.<hex>.tmp`)
// next to the target; the target itself is whole. At start the agent removes such leftovers beside
// every file it manages, so crashes do not litter /etc. Only the real file backend has them.

import { LocalFileExecutor } from '../executors/local-file-executor.ts';
import type { FileExecutor } from '../executors/types.ts';

export async function sweepTemporaryFiles(files: FileExecutor, paths: Iterable<string>): Promise<void> {
  if (!(files instanceof LocalFileExecutor)) return;
  // In the directory the path leads to, walked like a write (never through another user's link).
  for (const path of new Set(paths)) await files.removeStaleTemporaryFiles(path);
}
