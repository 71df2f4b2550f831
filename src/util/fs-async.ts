// Promise-returning file operations over node:fs's callback API: the part of node:fs/promises the
// node agent and the shared state helpers use, with the same signatures and errors. Loading
// node:fs/promises loads readline and the REPL's history module too (its FileHandle has
// readLines()): ~0.9 MB of the agent's idle RSS for nothing it uses (issue 17).

import {
  chmod as chmodCallback,
  close,
  fchmod,
  fchown,
  fdatasync,
  fstat,
  fsync,
  ftruncate,
  lstat as lstatCallback,
  type MakeDirectoryOptions,
  mkdir as mkdirCallback,
  type OpenMode,
  open as openCallback,
  type PathLike,
  readdir as readdirCallback,
  readFile as readFileCallback,
  readlink as readlinkCallback,
  rename as renameCallback,
  rmdir as rmdirCallback,
  type Stats,
  unlink as unlinkCallback,
  write,
  writeFile as writeFileCallback,
} from 'node:fs';

type Callback<T> = (error: NodeJS.ErrnoException | null, value: T) => void;

function promised<T>(start: (callback: Callback<T>) => void): Promise<T> {
  return new Promise((resolve, reject) => {
    start((error, value) => (error ? reject(error) : resolve(value)));
  });
}

export function readFile(path: PathLike): Promise<Buffer>;
export function readFile(path: PathLike, encoding: BufferEncoding): Promise<string>;
export function readFile(path: PathLike, encoding?: BufferEncoding): Promise<Buffer | string> {
  return encoding === undefined
    ? promised<Buffer>((callback) => readFileCallback(path, callback))
    : promised<string>((callback) => readFileCallback(path, encoding, callback));
}

export function readdir(path: PathLike): Promise<string[]> {
  return promised((callback) => readdirCallback(path, callback));
}

export function readlink(path: PathLike): Promise<string> {
  return promised((callback) => readlinkCallback(path, callback));
}

export function lstat(path: PathLike): Promise<Stats> {
  return promised((callback) => lstatCallback(path, callback));
}

export function mkdir(path: PathLike, options?: MakeDirectoryOptions): Promise<string | undefined> {
  return promised((callback) => mkdirCallback(path, options, callback));
}

export function chmod(path: PathLike, mode: number): Promise<void> {
  return promised((callback) => chmodCallback(path, mode, (error) => callback(error, undefined)));
}

export function rename(from: PathLike, to: PathLike): Promise<void> {
  return promised((callback) => renameCallback(from, to, (error) => callback(error, undefined)));
}

export function unlink(path: PathLike): Promise<void> {
  return promised((callback) => unlinkCallback(path, (error) => callback(error, undefined)));
}

export function rmdir(path: PathLike): Promise<void> {
  return promised((callback) => rmdirCallback(path, (error) => callback(error, undefined)));
}

/** An open file descriptor with the FileHandle methods the agent uses; close() it when done. */
export class OpenFile {
  readonly fd: number;

  constructor(fd: number) {
    this.fd = fd;
  }

  stat(): Promise<Stats> {
    return promised((callback) => fstat(this.fd, callback));
  }

  readFile(): Promise<Buffer> {
    return promised((callback) => readFileCallback(this.fd, callback));
  }

  /** Writes all of `data` at the file's position (the end, for a file opened to append). */
  writeFile(data: string | Uint8Array): Promise<void> {
    return promised((callback) => writeFileCallback(this.fd, data, (error) => callback(error, undefined)));
  }

  /** One write(2) of `text` at the file's position; resolves with the bytes written. */
  write(text: string): Promise<number> {
    return promised((callback) => write(this.fd, text, (error, written) => callback(error, written)));
  }

  chmod(mode: number): Promise<void> {
    return promised((callback) => fchmod(this.fd, mode, (error) => callback(error, undefined)));
  }

  chown(uid: number, gid: number): Promise<void> {
    return promised((callback) => fchown(this.fd, uid, gid, (error) => callback(error, undefined)));
  }

  truncate(length: number): Promise<void> {
    return promised((callback) => ftruncate(this.fd, length, (error) => callback(error, undefined)));
  }

  sync(): Promise<void> {
    return promised((callback) => fsync(this.fd, (error) => callback(error, undefined)));
  }

  datasync(): Promise<void> {
    return promised((callback) => fdatasync(this.fd, (error) => callback(error, undefined)));
  }

  close(): Promise<void> {
    return promised((callback) => close(this.fd, (error) => callback(error, undefined)));
  }
}

export async function open(path: PathLike, flags: OpenMode, mode?: number): Promise<OpenFile> {
  const fd = await promised<number>((callback) => openCallback(path, flags, mode, callback));
  return new OpenFile(fd);
}
