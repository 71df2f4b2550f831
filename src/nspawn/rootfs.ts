// The Debian bookworm root filesystem every container boots from: built once with debootstrap
// (minbase plus systemd, dbus, ca-certificates, curl, wget), then adjusted for the tests, and cached
// under CACHE_DIR/rootfs-<hash of the recipe>. It is built into a temporary directory and renamed
// when complete, so an interrupted build is never used; containers only ever read it (overlayfs).

import { createHash } from 'node:crypto';
import { readdir, rename, rm, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { CACHE_DIR, exists, hostDebianMirror, runChecked, withLock } from './host.ts';

export const SUITE = 'bookworm';
export const PACKAGES = ['systemd', 'systemd-sysv', 'dbus', 'ca-certificates', 'curl', 'wget'];
// Bump when the adjustments below change, so cached root filesystems are rebuilt.
const RECIPE_VERSION = 1;

// Timers that would start apt or disk maintenance in the middle of a test.
const MASKED_UNITS = [
  'apt-daily.timer',
  'apt-daily-upgrade.timer',
  'dpkg-db-backup.timer',
  'e2scrub_all.timer',
  'fstrim.timer',
];

export interface Rootfs {
  path: string;
  mirror: string;
  /** Seconds the build took; 0 when the cached one was used. */
  builtSeconds: number;
}

function recipeHash(mirror: string): string {
  return createHash('sha256')
    .update(JSON.stringify({ RECIPE_VERSION, SUITE, PACKAGES, MASKED_UNITS, mirror }))
    .digest('hex')
    .slice(0, 16);
}

/** The cached root filesystem, built first if there is none. */
export async function ensureRootfs(): Promise<Rootfs> {
  const mirror = hostDebianMirror();
  const path = join(CACHE_DIR, `rootfs-${recipeHash(mirror)}`);
  if (await exists(join(path, 'etc/os-release'))) return { path, mirror, builtSeconds: 0 };
  return withLock(`${path}.lock`, async () => {
    if (await exists(join(path, 'etc/os-release'))) return { path, mirror, builtSeconds: 0 };
    const started = performance.now();
    const building = `${path}.building-${process.pid}`;
    await rm(building, { recursive: true, force: true });
    try {
      await runChecked(
        'debootstrap',
        ['--variant=minbase', `--include=${PACKAGES.join(',')}`, SUITE, building, mirror],
        { timeoutMs: 15 * 60_000 },
      );
      await adjust(building);
      await rename(building, path);
    } catch (error) {
      await rm(building, { recursive: true, force: true });
      throw error;
    }
    return { path, mirror, builtSeconds: (performance.now() - started) / 1000 };
  });
}

async function adjust(root: string): Promise<void> {
  // No apt sources: the tests add the mirror as a nodeherd-managed repository (with its keyring), so
  // apt can only work through what the agent wrote.
  await writeFile(join(root, 'etc/apt/sources.list'), '');
  for (const dir of ['var/lib/apt/lists', 'var/cache/apt/archives']) {
    for (const entry of await readdir(join(root, dir))) {
      if (entry === 'partial' || entry === 'lock') continue;
      await rm(join(root, dir, entry), { recursive: true, force: true });
    }
  }
  await rm(join(root, 'var/cache/apt/pkgcache.bin'), { force: true });
  await rm(join(root, 'var/cache/apt/srcpkgcache.bin'), { force: true });
  // debootstrap copies the host's name; without the file the container keeps the machine name
  // systemd-nspawn gives it, which is also its Node name.
  await rm(join(root, 'etc/hostname'), { force: true });
  // What `systemctl mask` does, without needing systemctl on the host.
  for (const unit of MASKED_UNITS) {
    await rm(join(root, 'etc/systemd/system', unit), { force: true });
    await symlink('/dev/null', join(root, 'etc/systemd/system', unit));
  }
}
