// A Debian container booted with systemd as PID 1: `systemd-nspawn --boot --register=no` on an
// overlay of the cached root filesystem (every container writes to its own upper directory, the
// cache stays untouched). It shares the host's network, so it reaches a control plane listening on
// 127.0.0.1. Commands run inside with nsenter into all namespaces of the container's PID 1 (there is
// no machined to ask, with --register=no).

import { type ChildProcess, spawn } from 'node:child_process';
import { mkdir, readdir, readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { type RunOptions, type RunResult, run, runChecked, WORK_DIR, waitFor } from './host.ts';

const CONTAINER_PATH = '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin';
const live = new Set<Container>();

// If this process dies, leave no container behind: killing PID 1 of a PID namespace ends it.
process.once('exit', () => {
  for (const container of live) container.killNow();
});

export interface BootOptions {
  /** Machine name: also the container's host name (and, in the tests, its Node name). */
  name: string;
  rootfs: string;
  /** Default 90 s. */
  timeoutMs?: number;
  /**
   * Keep the container's writes here across boots (a node that reboots with its disk). Default: a
   * fresh overlay under WORK_DIR, removed when the container stops.
   */
  directory?: string;
  /**
   * When the container reboots (`systemctl reboot` inside: systemd-nspawn exits 133), boot it again
   * on the same root, as systemd-nspawn@.service does (RestartForceExitStatus=133). Default false:
   * the container stays down, as `systemd-nspawn` run by hand does.
   */
  restartOnReboot?: boolean;
}

/** systemd-nspawn's exit status when the container asked to be rebooted. */
export const NSPAWN_REBOOT_EXIT_CODE = 133;

export class Container {
  readonly name: string;
  /** The container's root as the host sees it (the overlay mount). */
  readonly root: string;
  /** Milliseconds from spawning systemd-nspawn to `systemctl is-system-running` answering. */
  bootMs = 0;
  /** Boots completed: 1 after boot(), one more after every reboot the harness restarted. */
  boots = 0;
  private readonly base: string;
  private readonly persistent: boolean;
  private readonly options: BootOptions;
  private nspawn: ChildProcess;
  private leader = 0;
  private readonly output: string[] = [];
  private exited: Promise<number | null>;
  private stopping = false;
  /** The restart after a reboot, while it runs (and its outcome, once it ran). */
  private rebooting: Promise<void> | undefined;
  private readonly bootWaiters: { resolve(): void; reject(error: Error): void }[] = [];

  private constructor(options: BootOptions, base: string, persistent: boolean) {
    this.name = options.name;
    this.options = options;
    this.base = base;
    this.persistent = persistent;
    this.root = join(base, 'root');
    this.nspawn = this.spawnNspawn();
    this.exited = this.watchExit(this.nspawn);
  }

  private spawnNspawn(): ChildProcess {
    const nspawn = spawn(
      'systemd-nspawn',
      [
        '--boot',
        '--register=no',
        '--keep-unit',
        '--console=passive',
        '--link-journal=no',
        '--timezone=off',
        `--machine=${this.name}`,
        `--directory=${this.root}`,
      ],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    );
    const keep = (chunk: Buffer) => {
      this.output.push(...chunk.toString('utf8').split('\n'));
      if (this.output.length > 200) this.output.splice(0, this.output.length - 200);
    };
    nspawn.stdout?.on('data', keep);
    nspawn.stderr?.on('data', keep);
    return nspawn;
  }

  private watchExit(nspawn: ChildProcess): Promise<number | null> {
    return new Promise((resolve) =>
      nspawn.once('exit', (code) => {
        resolve(code);
        if (code === NSPAWN_REBOOT_EXIT_CODE && this.options.restartOnReboot && !this.stopping) {
          this.rebooting = this.bootAgain();
        }
      }),
    );
  }

  /** systemd-nspawn exited 133: the same root, a new systemd-nspawn, as the service unit does. */
  private async bootAgain(): Promise<void> {
    this.leader = 0;
    this.nspawn = this.spawnNspawn();
    this.exited = this.watchExit(this.nspawn);
    try {
      await this.waitForBoot(this.options.timeoutMs ?? 90_000);
      this.boots++;
      for (const waiter of this.bootWaiters.splice(0)) waiter.resolve();
    } catch (error) {
      for (const waiter of this.bootWaiters.splice(0)) waiter.reject(error as Error);
    }
  }

  /**
   * Resolves once the container has booted `count` times in all (after boot(): 1), i.e. came back
   * from the reboots before; rejects when a restart fails or after `timeoutMs`.
   */
  async waitForBoots(count: number, timeoutMs = 120_000): Promise<void> {
    if (this.boots >= count) return;
    let timer: NodeJS.Timeout | undefined;
    try {
      await Promise.race([
        (async () => {
          while (this.boots < count) {
            await new Promise<void>((resolve, reject) => this.bootWaiters.push({ resolve, reject }));
          }
        })(),
        new Promise<never>((_, reject) => {
          timer = setTimeout(
            () =>
              reject(
                new Error(`${this.name}: not booted ${count} times within ${timeoutMs} ms (${this.boots})`),
              ),
            timeoutMs,
          );
        }),
      ]);
    } finally {
      clearTimeout(timer);
    }
  }

  /** PID of the container's systemd, as the host sees it. */
  get leaderPid(): number {
    return this.leader;
  }

  static async boot(options: BootOptions): Promise<Container> {
    await sweepStaleContainers();
    const persistent = options.directory !== undefined;
    const base = options.directory ?? join(WORK_DIR, `${options.name}.${process.pid}`);
    // A kept directory may still be mounted by a run that was killed; a fresh one starts empty.
    if (persistent) await unmount(join(base, 'root'));
    else await rm(base, { recursive: true, force: true });
    for (const dir of ['upper', 'work', 'root']) await mkdir(join(base, dir), { recursive: true });
    await runChecked('mount', [
      '-t',
      'overlay',
      'overlay',
      '-o',
      `lowerdir=${options.rootfs},upperdir=${join(base, 'upper')},workdir=${join(base, 'work')}`,
      join(base, 'root'),
    ]);
    const started = performance.now();
    const container = new Container(options, base, persistent);
    live.add(container);
    try {
      await container.waitForBoot(options.timeoutMs ?? 90_000);
    } catch (error) {
      await container.stop();
      throw error;
    }
    container.boots = 1;
    container.bootMs = performance.now() - started;
    return container;
  }

  private async waitForBoot(timeoutMs: number): Promise<void> {
    let exitCode: number | null | undefined;
    void this.exited.then((code) => {
      exitCode = code;
    });
    this.leader = await waitFor(
      `${this.name}: systemd as the container's PID 1`,
      async () => {
        if (exitCode !== undefined)
          throw new Error(`systemd-nspawn exited (${exitCode}): ${this.consoleTail()}`);
        const pid = this.nspawn.pid;
        if (!pid) return undefined;
        const children = (await readFile(`/proc/${pid}/task/${pid}/children`, 'utf8')).trim().split(/\s+/);
        for (const child of children.filter(Boolean)) {
          const comm = (await readFile(`/proc/${child}/comm`, 'utf8').catch(() => '')).trim();
          if (comm === 'systemd') return Number(child);
        }
        return undefined;
      },
      timeoutMs,
      50,
    );
    // Blocks until boot is done; "degraded" (some unit failed) still is a booted system. Right after
    // PID 1 starts, its private socket may not exist yet: ask again until it answers.
    const state = await waitFor(
      `${this.name}: boot to finish`,
      async () => {
        if (exitCode !== undefined)
          throw new Error(`systemd-nspawn exited (${exitCode}): ${this.consoleTail()}`);
        const result = await this.exec(['systemctl', 'is-system-running', '--wait'], { timeoutMs });
        const answer = result.stdout.trim();
        if (answer === '') throw new Error(result.stderr.trim());
        // "offline": PID 1 did not answer yet (seen on a loaded host right after it started): ask again.
        if (answer === 'offline') throw new Error(`${this.name}: systemd not answering yet`);
        return answer;
      },
      timeoutMs,
      100,
    );
    if (state !== 'running' && state !== 'degraded') {
      throw new Error(`${this.name}: system state ${state}: ${this.consoleTail()}`);
    }
  }

  /** Runs a command inside the container (all its namespaces, its root, a plain PATH). */
  exec(args: readonly string[], options: RunOptions = {}): Promise<RunResult> {
    return run(
      'nsenter',
      ['-t', String(this.leader), '-a', '--', 'env', '-i', `PATH=${CONTAINER_PATH}`, ...args],
      {
        timeoutMs: 120_000,
        ...options,
      },
    );
  }

  /** Like exec, but throws unless the command exits 0. */
  async execChecked(args: readonly string[], options: RunOptions = {}): Promise<string> {
    const result = await this.exec(args, options);
    if (result.code !== 0) {
      throw new Error(
        `${this.name}: ${args.join(' ')} exited with ${result.code}: ${(result.stderr || result.stdout).trim()}`,
      );
    }
    return result.stdout;
  }

  /** `systemctl show` properties of a unit. */
  async show(unit: string, properties: string[]): Promise<Record<string, string>> {
    const out = await this.execChecked(['systemctl', 'show', `--property=${properties.join(',')}`, unit]);
    const values: Record<string, string> = {};
    for (const line of out.split('\n')) {
      const eq = line.indexOf('=');
      if (eq > 0) values[line.slice(0, eq)] = line.slice(eq + 1);
    }
    return values;
  }

  /** A path inside the container, as the host sees it. */
  hostPath(path: string): string {
    return join(this.root, path);
  }

  /** The last lines systemd-nspawn printed (the container's console), for failure messages. */
  consoleTail(lines = 30): string {
    return this.output.slice(-lines).join('\n');
  }

  /** Powers the container off (systemd-nspawn forwards SIGTERM as a clean shutdown), then cleans up. */
  async stop(): Promise<void> {
    this.stopping = true;
    // A restart after a reboot in progress finishes first (or fails), so its systemd-nspawn is the one stopped.
    await this.rebooting?.catch(() => {});
    if (this.nspawn.exitCode === null && this.nspawn.signalCode === null) {
      this.nspawn.kill('SIGTERM');
      let timer: NodeJS.Timeout | undefined;
      const timedOut = await Promise.race([
        this.exited.then(() => false),
        new Promise<boolean>((resolve) => {
          timer = setTimeout(() => resolve(true), 30_000);
        }),
      ]);
      clearTimeout(timer);
      if (timedOut) {
        this.killNow();
        await this.exited;
      }
    }
    live.delete(this);
    if (this.persistent) await unmount(this.root);
    else await unmountAndRemove(this.base);
  }

  /** Synchronous last resort (process exit): kills the container's PID 1 and systemd-nspawn. */
  killNow(): void {
    for (const pid of [this.leader, this.nspawn.pid]) {
      if (!pid) continue;
      try {
        process.kill(pid, 'SIGKILL');
      } catch {
        // already gone
      }
    }
  }
}

async function unmount(root: string): Promise<void> {
  for (let attempt = 0; attempt < 20; attempt++) {
    const result = await run('umount', [root]);
    if (result.code === 0 || /not mounted|no mount point|no such file/i.test(result.stderr)) return;
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  await run('umount', ['-l', root]);
}

async function unmountAndRemove(base: string): Promise<void> {
  await unmount(join(base, 'root'));
  await rm(base, { recursive: true, force: true });
}

/** Overlays left by test processes that died (their directory names end in the dead pid). */
async function sweepStaleContainers(): Promise<void> {
  let entries: string[];
  try {
    entries = await readdir(WORK_DIR);
  } catch {
    return;
  }
  for (const entry of entries) {
    const pid = Number(/\.(\d+)$/.exec(entry)?.[1]);
    if (!pid || pid === process.pid) continue;
    try {
      process.kill(pid, 0);
    } catch {
      await unmountAndRemove(join(WORK_DIR, entry));
    }
  }
}
