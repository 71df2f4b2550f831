// The dnf and rpm command lines the real dnf backend runs, and the parsing of their answers. Pure
// functions, tested without dnf. dnf 4 (RHEL 8-10's dnf, Amazon Linux 2023); dnf5 is detected and
// refused by the node's report (package-managers.ts), see docs/operations.md.

import { RPM_PACKAGE_NAME, RPM_PACKAGE_VERSION, regex } from '../../../api/patterns.ts';

const NAME = regex(RPM_PACKAGE_NAME);
const VERSION = regex(RPM_PACKAGE_VERSION);

export function assertRpmName(name: string): void {
  // The pattern never starts with '-', so a name is never read as an option.
  if (!NAME.test(name)) throw new Error(`invalid package name ${JSON.stringify(name)}`);
}

export function assertRpmVersion(version: string): void {
  if (!VERSION.test(version)) throw new Error(`invalid package version ${JSON.stringify(version)}`);
}

/** Where dnf and rpm act: the node itself, or an installroot (tests, image builds). */
export interface DnfTarget {
  /** Run on this root with --installroot (and its reposdir, plugin configuration and rpm --root). */
  installroot?: string;
  /** --releasever: required with an installroot that has no release package (the tests' empty root). */
  releasever?: string;
}

/** Options every dnf command gets: never ask, and act on the target. */
export function dnfBaseArgs(target: DnfTarget, reposdir?: string): string[] {
  const args = ['-y'];
  if (target.installroot !== undefined) {
    const root = target.installroot;
    args.push(
      `--installroot=${root}`,
      // dnf 4 falls back to the host's reposdir and plugin configuration when the installroot has none;
      // naming the root's keeps a test (or an image build) from touching the host's versionlock.list.
      `--setopt=reposdir=${reposdir ?? `${root}/etc/yum.repos.d`}`,
      `--setopt=pluginconfpath=${root}/etc/dnf/plugins`,
    );
  } else if (reposdir !== undefined) {
    args.push(`--setopt=reposdir=${reposdir}`);
  }
  if (target.releasever !== undefined) {
    if (!/^[A-Za-z0-9._-]+$/.test(target.releasever)) {
      throw new Error(`invalid releasever ${JSON.stringify(target.releasever)}`);
    }
    args.push(`--releasever=${target.releasever}`);
  }
  return args;
}

/** Refreshes every repository's metadata now (apt-get update's counterpart). */
export function makecacheArgs(target: DnfTarget): string[] {
  return [...dnfBaseArgs(target), '--refresh', 'makecache'];
}

// The agent holds the packages a config pins (dnf versionlock); its own install and removal are what
// may move them, so the lock must not hide the version it asks for.
const MOVE_LOCKED = '--disableplugin=versionlock';

/**
 * Installs one package, `name-<version>` when pinned (dnf resolves `name-1.2`, `name-1.2-3.el9` and
 * `name-2:1.2-3.el9`); dnf downgrades when the pinned version is older, which a rollback needs. Weak
 * dependencies are not installed (apt's --no-install-recommends).
 */
export function dnfInstallArgs(target: DnfTarget, name: string, version?: string): string[] {
  assertRpmName(name);
  if (version !== undefined) assertRpmVersion(version);
  return [
    ...dnfBaseArgs(target),
    MOVE_LOCKED,
    '--setopt=install_weak_deps=False',
    'install',
    version === undefined ? name : `${name}-${version}`,
  ];
}

/**
 * Pre-staging: downloads what installing the packages at their versions needs into dnf's cache
 * (`--downloadonly`; the packages stay there until the install takes them), through the repositories
 * of `reposdir` alone, past the locks as the install will be.
 */
export function dnfDownloadArgs(
  target: DnfTarget,
  reposdir: string,
  packages: readonly { name: string; version?: string }[],
): string[] {
  const specs = packages.map(({ name, version }) => {
    assertRpmName(name);
    if (version !== undefined) assertRpmVersion(version);
    return version === undefined ? name : `${name}-${version}`;
  });
  return [
    ...dnfBaseArgs(target, reposdir),
    MOVE_LOCKED,
    '--setopt=install_weak_deps=False',
    '--downloadonly',
    'install',
    ...specs,
  ];
}

/** Removes a package and nothing else (no autoremove of its dependencies: apt-get remove does not either). */
export function dnfRemoveArgs(target: DnfTarget, name: string): string[] {
  assertRpmName(name);
  return [...dnfBaseArgs(target), MOVE_LOCKED, '--noautoremove', 'remove', name];
}

/** `dnf versionlock add|delete name` (dnf-plugins-core; RHEL: python3-dnf-plugin-versionlock). */
export function versionlockArgs(target: DnfTarget, verb: 'add' | 'delete' | 'list', name?: string): string[] {
  if (name !== undefined) assertRpmName(name);
  return [...dnfBaseArgs(target), 'versionlock', verb, ...(name === undefined ? [] : [name])];
}

/** rpm -q with the [epoch:]version-release of each installed instance, one per line. */
export function rpmQueryArgs(target: DnfTarget, name: string): string[] {
  assertRpmName(name);
  const root = target.installroot === undefined ? [] : ['--root', target.installroot];
  return [...root, '-q', '--qf', '%{EPOCH}:%{VERSION}-%{RELEASE}\\n', name];
}

/**
 * The installed version from rpm's answer: `(none):1.2-3` is `1.2-3`, `0:1.2-3` too (epoch 0 is no
 * epoch), `2:1.2-3` stays. Several instances (an install-only package such as the kernel): the last.
 */
export function parseRpmQuery(stdout: string): string | undefined {
  const lines = stdout.split('\n').filter((line) => /^(\(none\)|[0-9]+):/.test(line));
  const last = lines.at(-1);
  if (last === undefined) return undefined;
  const [epoch, rest] = [last.slice(0, last.indexOf(':')), last.slice(last.indexOf(':') + 1)];
  return epoch === '(none)' || epoch === '0' ? rest : `${epoch}:${rest}`;
}

/**
 * The names `dnf versionlock list` locks, from lines such as `nhhello-0:1.0-1.*` (a `!` line is an
 * exclude, not a lock; other lines are comments and messages).
 */
export function parseVersionlockList(stdout: string): Set<string> {
  const names = new Set<string>();
  for (const line of stdout.split('\n')) {
    const match = /^([^\s!#][^\s]*)-[0-9]+:[^\s-]+-[^\s-]+$/.exec(line.trim());
    if (match) names.add(match[1]!);
  }
  return names;
}

/** Whether dnf failed because its versionlock plugin is not installed. */
export function isVersionlockMissing(stderr: string): boolean {
  return /No such command: versionlock/.test(stderr);
}
