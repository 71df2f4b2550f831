// A process killed in the middle of an atomic write leaves its temporary file (`.<name>.<pid>.<hex>.tmp`)
// next to the target; the target itself is whole. At start the agent removes such leftovers beside
// every file it manages, so crashes do not litter /etc. Only the real file backend has them.

import { basename, dirname } from 'node:path';
import { LocalFileExecutor } from '../executors/local-file-executor.ts';
import type { FileExecutor } from '../executors/types.ts';
import { removeStaleTemporaryFiles } from '../state/stale-temporary-files.ts';

export async function sweepTemporaryFiles(files: FileExecutor, paths: Iterable<string>): Promise<void> {
  if (!(files instanceof LocalFileExecutor)) return;
  for (const path of new Set(paths)) {
    const hostPath = await files.hostPath(path);
    await removeStaleTemporaryFiles(dirname(hostPath), basename(hostPath));
  }
}
