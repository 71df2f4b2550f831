// Reading a file that may not exist yet (a record, a journal, a key): absent is an answer, not an
// error; any other failure (permissions, I/O) is thrown.

import { readdir, readFile } from './fs-async.ts';

/** The file's bytes, or undefined when there is no file at `path`. */
export async function readFileIfPresent(path: string): Promise<Buffer | undefined> {
  try {
    return await readFile(path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
}

/** The file's text (UTF-8), or undefined when there is no file at `path`. */
export async function readTextIfPresent(path: string): Promise<string | undefined> {
  return (await readFileIfPresent(path))?.toString('utf8');
}

/** The names in the directory, or none when there is no directory at `path`. */
export async function readdirIfPresent(path: string): Promise<string[]> {
  try {
    return await readdir(path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw error;
  }
}
