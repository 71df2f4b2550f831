// The real dnf PackageExecutor: .repo files and keys are written under the root through a FileExecutor
// (atomically, as every write of it is); packages are installed and removed with dnf, held with
// `dnf versionlock` and queried with rpm. On a node these act on the live system (see
// live-system-guard.ts for why they are refused when the root is not '/'); with `installroot` they act
// on the root itself (--installroot, rpm --root), which is how the tests run them on a Debian host.

import { copyFile, mkdir, rm } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { DNF_REPOS_DIR } from '../../../api/packages/dnf/dnf-rules.ts';
import type { RenderedRepository } from '../../../api/types.ts';
import { readdirIfPresent } from '../../../util/read-if-present.ts';
import { CommandError } from '../command-runner.ts';
import { PackageToolExecutor, type PackageToolOptions } from '../host-tool-executor.ts';
import type { PackageExecutor, PackageRequest } from '../types.ts';
import {
  type DnfTarget,
  dnfDownloadArgs,
  dnfInstallArgs,
  dnfRemoveArgs,
  isVersionlockMissing,
  makecacheArgs,
  parseRpmQuery,
  parseVersionlockList,
  rpmQueryArgs,
  versionlockArgs,
} from './dnf-commands.ts';
import { dnfRepository, keyFile, keyPath, renderRepoFile, repoFilePath } from './dnf-repo-file.ts';

const PUBLIC_FILE_MODE = 0o644;
/** Pre-staging's own reposdir and keys: the node's repositories are not changed before its turn. */
export const DNF_PRESTAGE_DIR = '/var/lib/nodeherd/prestage/dnf';
const DEFAULT_TIMEOUT_MS = 30 * 60_000; // a big install on a slow mirror

/** allowLiveCommands: run dnf and rpm on the live system even though rootDir is not '/'. */
export interface DnfPackageExecutorOptions extends PackageToolOptions {
  dnfPath?: string;
  rpmPath?: string;
  /** Run dnf with --installroot=rootDir (and rpm --root): the commands act on the root, not the host. */
  installroot?: boolean;
  /** dnf's --releasever (default: dnf's own, from the node's release package). */
  releasever?: string;
}

/** Its tools run with LC_ALL=C added to the environment, so their answers parse. */
export class DnfPackageExecutor extends PackageToolExecutor implements PackageExecutor {
  readonly manager = 'dnf';
  private readonly dnfPath: string;
  private readonly rpmPath: string;
  private readonly target: DnfTarget;

  constructor(options: DnfPackageExecutorOptions = {}) {
    super(options, DEFAULT_TIMEOUT_MS, (base) => ({ ...base, LC_ALL: 'C' }));
    this.dnfPath = options.dnfPath ?? 'dnf';
    this.rpmPath = options.rpmPath ?? 'rpm';
    this.target = {
      ...(options.installroot ? { installroot: this.rootDir } : {}),
      ...(options.releasever !== undefined ? { releasever: options.releasever } : {}),
    };
  }

  /** Writes the key first, so the .repo file never names a key that is not there yet. */
  async addRepository(rendered: RenderedRepository): Promise<void> {
    const repository = dnfRepository(rendered);
    const key = keyFile(repository);
    const repo = renderRepoFile(repository, this.target.installroot ?? '');
    if (key) await this.files.write(key.path, key.content, { mode: PUBLIC_FILE_MODE });
    await this.files.write(repoFilePath(repository.name), Buffer.from(repo), { mode: PUBLIC_FILE_MODE });
    if (!key) await this.files.remove(keyPath(repository.name)); // the key went: trust it no longer
  }

  /** Removes the .repo file before the key: the reverse of addRepository. */
  async removeRepository(name: string): Promise<void> {
    await this.files.remove(repoFilePath(name));
    await this.files.remove(keyPath(name));
  }

  async update(): Promise<void> {
    await this.dnf(makecacheArgs(this.target));
  }

  async install(name: string, version?: string): Promise<void> {
    await this.dnf(dnfInstallArgs(this.target, name, version));
  }

  /**
   * dnf install --downloadonly through a private reposdir (DNF_PRESTAGE_DIR): the node's own .repo
   * files besides nodeherd's (copied), plus the revision's repositories with their keys. The packages
   * land in dnf's cache under the same repository ids and URLs the revision's install will use, so the
   * install takes them from there.
   */
  async download(
    packages: readonly PackageRequest[],
    repositories: readonly RenderedRepository[],
  ): Promise<string> {
    if (packages.length === 0) return 'nothing to download';
    const reposdir = `${DNF_PRESTAGE_DIR}/yum.repos.d`;
    await rm(join(this.rootDir, DNF_PRESTAGE_DIR), { recursive: true, force: true });
    await mkdir(join(this.rootDir, reposdir), { recursive: true, mode: 0o755 });
    await this.copySystemRepos(reposdir);
    const keyRoot = this.target.installroot ?? '';
    for (const rendered of repositories) {
      const repository = dnfRepository(rendered);
      const key = keyFile(repository);
      const keyAt = key ? `${DNF_PRESTAGE_DIR}/keys/${basename(key.path)}` : undefined;
      if (key && keyAt) await this.files.write(keyAt, key.content, { mode: PUBLIC_FILE_MODE });
      const repo = renderRepoFile(repository, keyRoot, keyAt);
      await this.files.write(`${reposdir}/${basename(repoFilePath(repository.name))}`, Buffer.from(repo), {
        mode: PUBLIC_FILE_MODE,
      });
    }
    const stdout = await this.dnf(dnfDownloadArgs(this.target, join(this.rootDir, reposdir), packages));
    const total = /^Total download size: .*$/m.exec(stdout)?.[0];
    return total ? total.slice(0, 200) : 'already in the cache';
  }

  /** The node's own .repo files, nodeherd's aside (the revision's replace them). */
  private async copySystemRepos(reposdir: string): Promise<void> {
    const own = join(this.rootDir, DNF_REPOS_DIR);
    const names = await readdirIfPresent(own);
    for (const name of names) {
      if (!name.endsWith('.repo') || name.startsWith('nodeherd-')) continue;
      await copyFile(join(own, name), join(this.rootDir, reposdir, name));
    }
  }

  /** Releases a lock first: a removed package left locked would stay locked when installed again. */
  async remove(name: string): Promise<void> {
    await this.release(name);
    await this.dnf(dnfRemoveArgs(this.target, name));
  }

  async installedVersion(name: string): Promise<string | undefined> {
    const args = rpmQueryArgs(this.target, name);
    this.guard('rpm');
    const result = await this.runner.run(this.rpmPath, args, { env: this.env });
    if (result.code === 1 && /is not installed/.test(result.stdout + result.stderr)) return undefined;
    if (result.code !== 0) throw new CommandError(this.rpmPath, args, result);
    return parseRpmQuery(result.stdout);
  }

  /**
   * Locks the package at the version installed now. A lock on an older version (the install before a
   * pin moved) goes first: versionlock add keeps an existing entry as it is.
   */
  async hold(name: string): Promise<void> {
    if (await this.isHeld(name)) await this.dnf(versionlockArgs(this.target, 'delete', name));
    await this.dnf(versionlockArgs(this.target, 'add', name));
  }

  async release(name: string): Promise<void> {
    if (await this.isHeld(name)) await this.dnf(versionlockArgs(this.target, 'delete', name));
  }

  async isHeld(name: string): Promise<boolean> {
    const stdout = await this.dnf(versionlockArgs(this.target, 'list'));
    return parseVersionlockList(stdout).has(name);
  }

  private guard(tool: string): void {
    if (this.target.installroot === undefined) {
      this.assertLiveCommandsAllowed(tool);
    }
  }

  private async dnf(args: string[]): Promise<string> {
    this.guard('dnf');
    const result = await this.runner.run(this.dnfPath, args, { env: this.env, timeoutMs: this.timeoutMs });
    if (result.code === 0) return result.stdout;
    if (isVersionlockMissing(result.stderr)) {
      throw new Error(
        'dnf has no versionlock command: install dnf-plugins-core (RHEL and rebuilds: ' +
          'python3-dnf-plugin-versionlock) so pinned packages can be held',
      );
    }
    throw new CommandError(this.dnfPath, args, result);
  }
}
