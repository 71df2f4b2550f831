// A crash between creating an atomic write's temporary file and renaming it leaves the temporary
// file behind (src/util/atomic-write.ts names them `.<name>.<pid>.<random>.tmp`). Other processes'
// leftovers are removed before the next write so crashes do not pile them up; this process's own
// may belong to a write still in flight and are kept.

import { join } from 'node:path';
import { readdir, unlink } from '../../util/fs-async.ts';

export async function removeStaleTemporaryFiles(dir: string, fileName: string): Promise<void> {
  const prefix = `.${fileName}.`;
  let entries: string[];
  try {
    entries = await readdir(dir);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return;
    throw error;
  }
  for (const entry of entries) {
    if (!entry.startsWith(prefix) || !entry.endsWith('.tmp')) continue;
    const pid = Number(entry.slice(prefix.length).split('.')[0]);
    if (pid === process.pid) continue;
    await unlink(join(dir, entry)).catch((error: NodeJS.ErrnoException) => {
      if (error.code !== 'ENOENT') throw error;
    });
  }
}
