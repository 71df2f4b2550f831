// What systemd-nspawn containers need from the machine they run on, and small process helpers. Both
// `nodeherd up --nspawn` and the end-to-end suite boot containers: as root, with systemd-nspawn,
// debootstrap, nsenter and overlayfs (test/e2e/setup-host.sh installs the packages).

import { execFile, execFileSync } from 'node:child_process';
import { constants, readFileSync } from 'node:fs';
import { access, mkdir, open, readFile, rm, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { processAlive } from '../util/process-alive.ts';

/**
 * Everything kept between runs (the root filesystem, built agent artefacts) lives here, outside the
 * repo; the end-to-end suite and `nodeherd up --nspawn` share it, so the rootfs is built once.
 */
export const CACHE_DIR = process.env.NODEHERD_E2E_CACHE ?? '/var/cache/nodeherd-e2e';
/** Containers' overlay directories (upper, work, mount point); removed when a container stops. */
export const WORK_DIR = process.env.NODEHERD_E2E_WORK ?? '/var/tmp/nodeherd-e2e';

const TOOLS = ['systemd-nspawn', 'debootstrap', 'nsenter', 'mount', 'umount'];

/** Whether `tool` is a command on PATH. */
export function onPath(tool: string): boolean {
  try {
    execFileSync('sh', ['-c', `command -v ${tool}`], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

/** Why containers cannot run here (completing "containers need …"), or undefined when they can. */
export function nspawnUnavailableReason(): string | undefined {
  if (process.platform !== 'linux') return 'Linux';
  if (process.getuid?.() !== 0) return 'root (systemd-nspawn, overlay mounts)';
  const missing = TOOLS.filter((tool) => !onPath(tool));
  if (missing.length > 0) return `${missing.join(', ')} (run test/e2e/setup-host.sh to install them)`;
  let filesystems = '';
  try {
    filesystems = readFileSync('/proc/filesystems', 'utf8');
  } catch {
    // unreadable: treated as missing
  }
  if (!/\boverlay\b/.test(filesystems)) return 'overlayfs in the kernel';
  return undefined;
}

export interface RunResult {
  code: number;
  stdout: string;
  stderr: string;
}

export interface RunOptions {
  input?: string | Buffer;
  timeoutMs?: number;
  env?: Record<string, string | undefined>;
}

/** Runs a program without a shell; never rejects for a non-zero exit (see `code`). */
export function run(file: string, args: readonly string[], options: RunOptions = {}): Promise<RunResult> {
  return new Promise((resolve, reject) => {
    const child = execFile(
      file,
      args,
      {
        timeout: options.timeoutMs ?? 120_000,
        maxBuffer: 64 * 1024 * 1024,
        encoding: 'utf8',
        ...(options.env ? { env: options.env } : {}),
      },
      (error, stdout, stderr) => {
        if (error && typeof error.code === 'string') {
          reject(error);
          return;
        }
        const code = error ? (typeof error.code === 'number' ? error.code : -1) : 0;
        resolve({ code, stdout, stderr });
      },
    );
    if (options.input !== undefined) child.stdin?.end(options.input);
    else child.stdin?.end();
  });
}

/** Like run, but throws with the program's output unless it exits 0. */
export async function runChecked(file: string, args: readonly string[], options: RunOptions = {}) {
  const result = await run(file, args, options);
  if (result.code !== 0) {
    throw new Error(
      `${file} ${args.join(' ')} exited with ${result.code}: ${(result.stderr || result.stdout).trim().slice(-2000)}`,
    );
  }
  return result;
}

/**
 * Runs fn while holding a lock file (O_EXCL). Test files run in parallel processes and share the
 * cache: one builds, the others wait. A lock whose holder died is taken over.
 */
export async function withLock<T>(
  lockPath: string,
  fn: () => Promise<T>,
  timeoutMs = 15 * 60_000,
): Promise<T> {
  await mkdir(dirname(lockPath), { recursive: true });
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      const handle = await open(lockPath, constants.O_CREAT | constants.O_EXCL | constants.O_WRONLY, 0o644);
      await handle.writeFile(String(process.pid));
      await handle.close();
      break;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      const holder = Number(await readFile(lockPath, 'utf8').catch(() => ''));
      if (holder > 0 && !processAlive(holder)) {
        await rm(lockPath, { force: true });
        continue;
      }
      if (Date.now() > deadline) throw new Error(`timed out waiting for ${lockPath} (held by ${holder})`);
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
  }
  try {
    return await fn();
  } finally {
    await rm(lockPath, { force: true });
  }
}

export async function exists(path: string): Promise<boolean> {
  try {
    await access(path);
    return true;
  } catch {
    return false;
  }
}

/**
 * The Debian mirror this host's apt uses (the only one the network may allow), so the containers
 * and their apt repositories use the same. Falls back to deb.debian.org.
 */
export function hostDebianMirror(): string {
  const files = ['/etc/apt/sources.list.d/debian.sources', '/etc/apt/sources.list'];
  for (const file of files) {
    let text = '';
    try {
      text = readFileSync(file, 'utf8');
    } catch {
      continue;
    }
    const deb822 = /^URIs:\s*(\S+)/im.exec(text);
    if (deb822?.[1] && !/security/.test(deb822[1])) return deb822[1].replace(/\/$/, '');
    const oneLine = /^deb\s+(?:\[[^\]]*\]\s+)?(\S+)\s+\S+/m.exec(text);
    if (oneLine?.[1] && !/security/.test(oneLine[1])) return oneLine[1].replace(/\/$/, '');
  }
  return 'http://deb.debian.org/debian';
}

/** Thrown by a waitFor check: stop waiting at once and fail with this error. */
export class StopWaiting extends Error {}

/**
 * Polls until check returns something other than undefined; fails after timeoutMs with the last error
 * (errors are retried, except StopWaiting).
 */
export async function waitFor<T>(
  what: string,
  check: () => Promise<T | undefined> | T | undefined,
  timeoutMs = 30_000,
  intervalMs = 100,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  for (;;) {
    try {
      const value = await check();
      if (value !== undefined) return value;
    } catch (error) {
      if (error instanceof StopWaiting) throw error;
      last = error;
    }
    if (Date.now() > deadline) {
      throw new Error(
        `timed out after ${timeoutMs} ms waiting for ${what}${last ? `: ${(last as Error).message}` : ''}`,
      );
    }
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
}

export async function writeText(path: string, text: string, mode = 0o644): Promise<void> {
  await mkdir(dirname(path), { recursive: true });
  await writeFile(path, text, { mode });
}
