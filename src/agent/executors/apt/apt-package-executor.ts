// The real PackageExecutor: repository files are written under the root through a FileExecutor;
// packages are installed with apt-get, held with apt-mark and queried with dpkg-query, which act on
// the live system (see live-system-guard.ts for why they are refused when the root is not '/').

import { copyFile, mkdir, rm } from 'node:fs/promises';
import { basename, join } from 'node:path';
import type { RenderedRepository } from '../../../api/types.ts';
import { readdirIfPresent } from '../../../util/read-if-present.ts';
import { CommandError } from '../command-runner.ts';
import { PackageToolExecutor, type PackageToolOptions } from '../host-tool-executor.ts';
import type { PackageExecutor, PackageRequest } from '../types.ts';
import {
  aptDownloadArgs,
  aptEnvironment,
  aptInstallArgs,
  aptMarkArgs,
  aptPrivateConfigArgs,
  aptPrivateUpdateArgs,
  aptRemoveArgs,
  aptUpdateArgs,
  dpkgQueryArgs,
  isAptLockContention,
  LOCK_WAIT_SECONDS,
  PRESTAGE_DIR,
  parseDpkgQueryHeld,
  parseDpkgQueryOutput,
} from './apt-commands.ts';
import { aptRepository, keyringFile, keyringPaths, renderSources, sourcesPath } from './apt-sources.ts';

const PUBLIC_FILE_MODE = 0o644; // apt drops privileges to _apt, which must read both files
const DEFAULT_TIMEOUT_MS = 30 * 60_000; // a big install on a slow mirror

/** allowLiveCommands: run apt-get, apt-mark and dpkg-query even though rootDir is not '/'. */
export interface AptPackageExecutorOptions extends PackageToolOptions {
  aptGetPath?: string;
  aptMarkPath?: string;
  dpkgQueryPath?: string;
  /** How long to keep retrying while another apt holds a lock apt-get does not wait for (default 300 s). */
  lockWaitMs?: number;
  /** Pause between those retries (default 2 s). */
  lockRetryIntervalMs?: number;
}

/** Its tools run with DEBIAN_FRONTEND and NEEDRESTART_MODE added to the environment (aptEnvironment). */
export class AptPackageExecutor extends PackageToolExecutor implements PackageExecutor {
  readonly manager = 'apt';
  private readonly aptGetPath: string;
  private readonly aptMarkPath: string;
  private readonly dpkgQueryPath: string;
  private readonly lockWaitMs: number;
  private readonly lockRetryIntervalMs: number;

  constructor(options: AptPackageExecutorOptions = {}) {
    super(options, DEFAULT_TIMEOUT_MS, aptEnvironment);
    this.aptGetPath = options.aptGetPath ?? 'apt-get';
    this.aptMarkPath = options.aptMarkPath ?? 'apt-mark';
    this.dpkgQueryPath = options.dpkgQueryPath ?? 'dpkg-query';
    this.lockWaitMs = options.lockWaitMs ?? LOCK_WAIT_SECONDS * 1000;
    this.lockRetryIntervalMs = options.lockRetryIntervalMs ?? 2000;
  }

  /**
   * Writes the keyring first, so the .sources file never names a key that is not there yet. A
   * repository without a key gets a .sources file without Signed-By (apt then verifies it with the
   * system keyrings), and any keyring nodeherd wrote for it before goes once nothing names it.
   */
  async addRepository(rendered: RenderedRepository): Promise<void> {
    const repository = aptRepository(rendered);
    const keyring = keyringFile(repository);
    const sources = renderSources(repository, keyring?.path);
    const paths = keyringPaths(repository.name);
    if (keyring) await this.files.write(keyring.path, keyring.content, { mode: PUBLIC_FILE_MODE });
    await this.files.write(sourcesPath(repository.name), Buffer.from(sources), { mode: PUBLIC_FILE_MODE });
    // The key changed format or went: drop the other files so at most one key is trusted for it.
    for (const path of [paths.armored, paths.binary]) {
      if (path !== keyring?.path) await this.files.remove(path);
    }
  }

  /** Removes the .sources file before the keyring: the reverse of addRepository. */
  async removeRepository(name: string): Promise<void> {
    const paths = keyringPaths(name);
    await this.files.remove(sourcesPath(name));
    await this.files.remove(paths.armored);
    await this.files.remove(paths.binary);
  }

  async update(): Promise<void> {
    await this.aptGet(aptUpdateArgs());
  }

  async install(name: string, version?: string): Promise<void> {
    await this.aptGet(aptInstallArgs(name, version));
  }

  /** Releases a hold first: a removed package left `hold` would stay held when installed again. */
  async remove(name: string): Promise<void> {
    await this.release(name);
    await this.aptGet(aptRemoveArgs(name));
  }

  async installedVersion(name: string): Promise<string | undefined> {
    const stdout = await this.dpkgQuery(name);
    return stdout === undefined ? undefined : parseDpkgQueryOutput(stdout);
  }

  async hold(name: string): Promise<void> {
    await this.apt(this.aptMarkPath, aptMarkArgs('hold', name));
  }

  async release(name: string): Promise<void> {
    if (await this.isHeld(name)) await this.apt(this.aptMarkPath, aptMarkArgs('unhold', name));
  }

  async isHeld(name: string): Promise<boolean> {
    const stdout = await this.dpkgQuery(name);
    return stdout !== undefined && parseDpkgQueryHeld(stdout);
  }

  /**
   * apt-get --download-only through a private configuration (PRESTAGE_DIR): the node's own sources
   * besides nodeherd's (sources.list and sources.list.d, copied), plus the revision's repositories
   * with their keyrings; its own lists, refreshed first. The .debs land in the node's
   * /var/cache/apt/archives, where the revision's install takes them without a download.
   */
  async download(
    packages: readonly PackageRequest[],
    repositories: readonly RenderedRepository[],
  ): Promise<string> {
    if (packages.length === 0) return 'nothing to download';
    const dir = join(this.rootDir, PRESTAGE_DIR);
    const parts = join(dir, 'sources.list.d');
    // Sources and keyrings are written afresh for every pre-stage; the lists are kept (apt then asks
    // the mirror only for what changed).
    await rm(parts, { recursive: true, force: true });
    await rm(join(dir, 'keyrings'), { recursive: true, force: true });
    await rm(join(dir, 'sources.list'), { force: true });
    await mkdir(join(dir, 'lists', 'partial'), { recursive: true, mode: 0o755 });
    await mkdir(parts, { recursive: true, mode: 0o755 });
    await this.copySystemSources(dir);
    for (const rendered of repositories) {
      const repository = aptRepository(rendered);
      const keyring = keyringFile(repository);
      const keyringPath = keyring ? `${PRESTAGE_DIR}/keyrings/${basename(keyring.path)}` : undefined;
      if (keyring && keyringPath)
        await this.files.write(keyringPath, keyring.content, { mode: PUBLIC_FILE_MODE });
      const sources = renderSources(repository, keyringPath ? join(this.rootDir, keyringPath) : undefined);
      await this.files.write(
        `${PRESTAGE_DIR}/sources.list.d/${basename(sourcesPath(repository.name))}`,
        Buffer.from(sources),
        {
          mode: PUBLIC_FILE_MODE,
        },
      );
    }
    const config = aptPrivateConfigArgs(dir, `${join(this.rootDir, '/var/cache/apt/archives')}/`);
    await this.aptGet(aptPrivateUpdateArgs(config));
    const stdout = await this.aptGet(aptDownloadArgs(config, packages));
    const need = /^Need to get .*$/m.exec(stdout)?.[0];
    return need ? need.slice(0, 200) : 'already in the cache';
  }

  /** The node's own sources, nodeherd's files aside (the revision's replace them). */
  private async copySystemSources(dir: string): Promise<void> {
    const etc = join(this.rootDir, '/etc/apt');
    await copyFile(join(etc, 'sources.list'), join(dir, 'sources.list')).catch((error) => {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    });
    const names = await readdirIfPresent(join(etc, 'sources.list.d'));
    for (const name of names) {
      if (name.startsWith('nodeherd-') || !/\.(list|sources)$/.test(name)) continue;
      await copyFile(join(etc, 'sources.list.d', name), join(dir, 'sources.list.d', name));
    }
  }

  /** dpkg-query's `${Status} ${Version}` for the package, or undefined when dpkg knows no such package. */
  private async dpkgQuery(name: string): Promise<string | undefined> {
    const args = dpkgQueryArgs(name);
    this.assertLiveCommandsAllowed('dpkg-query');
    const result = await this.runner.run(this.dpkgQueryPath, args, { env: this.env });
    if (result.code === 1) return undefined; // dpkg knows no such package
    if (result.code !== 0) throw new CommandError(this.dpkgQueryPath, args, result);
    return result.stdout;
  }

  private async aptGet(args: string[]): Promise<string> {
    return this.apt(this.aptGetPath, args);
  }

  /** Runs apt-get or apt-mark; while another apt holds a lock it does not wait for, tries again. */
  private async apt(file: string, args: string[]): Promise<string> {
    this.assertLiveCommandsAllowed(file === this.aptMarkPath ? 'apt-mark' : 'apt-get');
    const deadline = Date.now() + this.lockWaitMs;
    for (;;) {
      const result = await this.runner.run(file, args, {
        env: this.env,
        timeoutMs: this.timeoutMs,
      });
      if (result.code === 0) return result.stdout;
      if (!isAptLockContention(result.stderr) || Date.now() >= deadline) {
        throw new CommandError(file, args, result);
      }
      await new Promise((resolve) => setTimeout(resolve, this.lockRetryIntervalMs));
    }
  }
}
