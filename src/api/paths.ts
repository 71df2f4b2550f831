// Where nodeherd puts things on a node. Validation, rendering (conflict detection) and the agent's
// executors use these, so a path is computed the same way everywhere.

/** The agent's own state (last applied revision, crash journal): never writable through a config. */
export const STATE_DIR = '/var/lib/nodeherd';

/**
 * Locations a file may not be written to: kernel and device pseudo file systems, the volatile
 * /run (a file there vanishes on reboot while last-applied still lists it, so it would silently
 * drift), and the agent's own state.
 */
export const REFUSED_PATH_PREFIXES: readonly string[] = ['/proc', '/sys', '/dev', '/run', STATE_DIR];

export const SYSTEMD_UNIT_DIR = '/etc/systemd/system';

/** Directories systemd loads units from (besides the refused /run). */
export const SYSTEMD_UNIT_DIRS: readonly string[] = [
  SYSTEMD_UNIT_DIR,
  '/usr/local/lib/systemd/system',
  '/usr/lib/systemd/system',
  '/lib/systemd/system',
];
export const APT_SOURCES_DIR = '/etc/apt/sources.list.d';
export const APT_KEYRING_DIR = '/etc/apt/keyrings';

/** File name prefix of everything the agent writes for repositories (reserved for it). */
export const REPOSITORY_FILE_PREFIX = 'nodeherd-';

export function unitFilePath(unit: string): string {
  return `${SYSTEMD_UNIT_DIR}/${unit}`;
}

export function dropInDirectory(unit: string): string {
  return `${SYSTEMD_UNIT_DIR}/${unit}.d`;
}

export function dropInPath(unit: string, dropIn: string): string {
  return `${dropInDirectory(unit)}/${dropIn}`;
}

/** Whether path is prefix itself or lies below it (segment-wise: /procfs is not under /proc). */
export function isAtOrUnder(path: string, prefix: string): boolean {
  return path === prefix || path.startsWith(prefix.endsWith('/') ? prefix : `${prefix}/`);
}
