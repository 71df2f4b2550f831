// The apt-get, apt-mark and dpkg-query command lines the real package backend runs, their
// environment, and the parsing of dpkg-query's answer. Pure functions, tested without apt.

// Wait up to 5 minutes for another dpkg/apt (unattended-upgrades, cloud-init) instead of failing
// at once on the lock. apt only waits like this for dpkg's locks: see isAptLockContention.
export const LOCK_WAIT_SECONDS = 300;
const LOCK_WAIT = ['-o', `DPkg::Lock::Timeout=${LOCK_WAIT_SECONDS}`];

// Keep a locally modified conffile, take the maintainer's for untouched ones, never ask.
const CONFFILE_POLICY = ['-o', 'Dpkg::Options::=--force-confdef', '-o', 'Dpkg::Options::=--force-confold'];

const PACKAGE_NAME = /^[a-z0-9][a-z0-9+.-]+(:[a-z0-9-]+)?$/; // Debian policy 5.6.1, optional :arch
const VERSION = /^[A-Za-z0-9.+~:-]+$/; // Debian policy 5.6.12 characters
const PACKAGE_VERSION_START = /^[0-9]/; // upstream versions start with a digit (after any epoch)

export function assertPackageName(name: string): void {
  if (!PACKAGE_NAME.test(name)) throw new Error(`invalid package name ${JSON.stringify(name)}`);
}

export function assertPackageVersion(version: string): void {
  const upstream = version.includes(':') ? version.slice(version.indexOf(':') + 1) : version;
  if (!VERSION.test(version) || !PACKAGE_VERSION_START.test(upstream)) {
    throw new Error(`invalid package version ${JSON.stringify(version)}`);
  }
}

/**
 * The environment for apt-get: never prompt (DEBIAN_FRONTEND), and let needrestart only list
 * services instead of restarting them: which services restart is the agent's decision.
 */
export function aptEnvironment(base: Record<string, string | undefined>): Record<string, string | undefined> {
  return { ...base, DEBIAN_FRONTEND: 'noninteractive', NEEDRESTART_MODE: 'l' };
}

/**
 * apt-get update exits 0 even when a repository could not be fetched; Error-Mode=any (recent apt; older
 * apt ignores unknown -o options) makes that an error, so a broken repository fails the apply.
 */
export function aptUpdateArgs(): string[] {
  return ['-q', ...LOCK_WAIT, '-o', 'APT::Update::Error-Mode=any', 'update'];
}

// The agent holds the packages a config pins (apt-mark hold); its own install and removal are what
// may move them, so apt must not refuse them for being held.
const MOVE_HELD = '--allow-change-held-packages';

/**
 * How the agent installs: no recommends; downgrades allowed because rolling back a revision means
 * installing the older pinned version again; held packages may move (see MOVE_HELD).
 */
const INSTALL_OPTIONS = ['-q', '-y', '--no-install-recommends', '--allow-downgrades', MOVE_HELD];

/** A package as apt-get install names it: `name=version` when pinned; both checked first. */
function installSpec(name: string, version: string | undefined): string {
  assertPackageName(name);
  if (version !== undefined) assertPackageVersion(version);
  return version === undefined ? name : `${name}=${version}`;
}

/** Installs one package, `name=version` when pinned (INSTALL_OPTIONS). */
export function aptInstallArgs(name: string, version?: string): string[] {
  const spec = installSpec(name, version);
  return [...INSTALL_OPTIONS, ...LOCK_WAIT, ...CONFFILE_POLICY, 'install', spec];
}

/**
 * Where a pre-stage's private apt configuration lives (under the root): its own source parts, lists
 * and keyrings, so reading the revision's repositories changes neither the node's sources nor the
 * index its apt-get uses. apt drops privileges to _apt for downloads, so it is not in the agent's
 * root-only state directory.
 */
export const PRESTAGE_DIR = '/var/cache/apt/nodeherd-prestage';

/**
 * apt-get options that read sources and lists from `dir` (PRESTAGE_DIR as the live system sees it)
 * and write no package cache file the node's own apt would use; downloads still go to `archives`
 * (the node's /var/cache/apt/archives/), where the later install finds them.
 */
export function aptPrivateConfigArgs(dir: string, archives: string): string[] {
  return [
    '-o',
    `Dir::Etc::sourcelist=${dir}/sources.list`,
    '-o',
    `Dir::Etc::sourceparts=${dir}/sources.list.d`,
    '-o',
    `Dir::State::Lists=${dir}/lists`,
    '-o',
    'Dir::Cache::pkgcache=',
    '-o',
    'Dir::Cache::srcpkgcache=',
    '-o',
    `Dir::Cache::Archives=${archives}`,
  ];
}

/** apt-get update of the private configuration's lists (aptPrivateConfigArgs). */
export function aptPrivateUpdateArgs(config: readonly string[]): string[] {
  return ['-q', ...config, '-o', 'APT::Update::Error-Mode=any', 'update'];
}

/**
 * Downloads what installing the packages (at their pinned versions) needs, installing nothing
 * (--download-only): the same resolution as aptInstallArgs, so a missing package or version fails
 * here, before the node's turn. No DPkg lock wait: a download takes no dpkg lock.
 */
export function aptDownloadArgs(
  config: readonly string[],
  packages: readonly { name: string; version?: string }[],
): string[] {
  if (packages.length === 0) throw new Error('nothing to download');
  const specs = packages.map(({ name, version }) => installSpec(name, version));
  return [...INSTALL_OPTIONS, '--download-only', ...config, 'install', ...specs];
}

/**
 * Removes a package but not its conffiles (remove, not purge): an admin's edits survive, and a
 * rollback that installs it again gets the same configuration back.
 */
export function aptRemoveArgs(name: string): string[] {
  assertPackageName(name);
  return ['-q', '-y', MOVE_HELD, ...LOCK_WAIT, 'remove', name];
}

/** `apt-mark hold name` or `apt-mark unhold name`. */
export function aptMarkArgs(mark: 'hold' | 'unhold', name: string): string[] {
  assertPackageName(name);
  return [...LOCK_WAIT, mark, name];
}

export function dpkgQueryArgs(name: string): string[] {
  assertPackageName(name);
  // biome-ignore lint/suspicious/noTemplateCurlyInString: dpkg-query's own ${Field} syntax
  const format = '${Status} ${Version}';
  return ['-W', `--showformat=${format}`, name];
}

/**
 * The installed version from `${Status} ${Version}` ("install ok installed 1.2-3"); undefined for
 * any other status, e.g. "deinstall ok config-files 1.2-3" after a remove.
 */
export function parseDpkgQueryOutput(stdout: string): string | undefined {
  const [, , status, version] = stdout.trim().split(/\s+/);
  if (status !== 'installed' || !version) return undefined;
  return version;
}

/**
 * Whether dpkg holds the package (its selection is `hold`) from the same `${Status} ${Version}` answer:
 * "hold ok installed 1.2-3".
 */
export function parseDpkgQueryHeld(stdout: string): boolean {
  return stdout.trim().split(/\s+/)[0] === 'hold';
}

/**
 * Whether apt-get failed because another apt held a lock it does not wait for. Seen on real apt
 * (2.6): DPkg::Lock::Timeout covers /var/lib/dpkg/lock*, but `update` fails at once while the lists
 * lock is held (apt-daily.service's own update) and `install` while the archives lock is held (an
 * unattended-upgrades download): "E: Could not get lock /var/lib/apt/lists/lock. It is held by
 * process 40 (apt-get)" then "E: Unable to lock directory /var/lib/apt/lists/".
 */
export function isAptLockContention(stderr: string): boolean {
  return /^E: (Could not get lock |Unable to lock directory )/m.test(stderr);
}
