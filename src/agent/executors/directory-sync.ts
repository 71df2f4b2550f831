// A rename, unlink or mkdir is only durable once its directory is fsynced: without it a power loss
// can bring back a removed file or lose a new one (gardener#10819 is that bug in the wild).

import { type OpenFile, open } from '../../util/fs-async.ts';

export async function syncDirectory(dir: string): Promise<void> {
  let handle: OpenFile | undefined;
  try {
    handle = await open(dir, 'r');
    await handle.sync();
  } catch (error) {
    // Some filesystems cannot fsync a directory; the change itself has happened.
    const code = (error as NodeJS.ErrnoException).code;
    if (code !== 'EINVAL' && code !== 'EISDIR' && code !== 'EPERM' && code !== 'ENOTSUP') throw error;
  } finally {
    await handle?.close();
  }
}
