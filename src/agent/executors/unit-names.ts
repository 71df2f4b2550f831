// Unit and drop-in names become file names and systemctl arguments, so they are checked before
// either: no slashes, no leading '-' (it would read as an option), a known unit type suffix.

const SYSTEM_UNIT_DIR = '/etc/systemd/system';

const UNIT_TYPES = [
  'service',
  'socket',
  'timer',
  'mount',
  'automount',
  'path',
  'target',
  'slice',
  'swap',
  'device',
  'scope',
];
const UNIT_NAME = new RegExp(`^[A-Za-z0-9:_.\\\\@-]+\\.(${UNIT_TYPES.join('|')})$`);
const DROP_IN_NAME = /^[A-Za-z0-9:_.@-]+\.conf$/;
const MAX_UNIT_NAME_LENGTH = 255; // systemd's UNIT_NAME_MAX

export function assertUnitName(name: string): void {
  if (name.length > MAX_UNIT_NAME_LENGTH || name.startsWith('-') || !UNIT_NAME.test(name)) {
    throw new Error(`invalid systemd unit name ${JSON.stringify(name)}`);
  }
}

export function assertDropInName(name: string): void {
  if (name.startsWith('-') || name.startsWith('.') || !DROP_IN_NAME.test(name)) {
    throw new Error(`invalid drop-in name ${JSON.stringify(name)} (must end in .conf)`);
  }
}

export function unitFilePath(name: string): string {
  assertUnitName(name);
  return `${SYSTEM_UNIT_DIR}/${name}`;
}

export function dropInDirectory(unit: string): string {
  assertUnitName(unit);
  return `${SYSTEM_UNIT_DIR}/${unit}.d`;
}

export function dropInPath(unit: string, dropIn: string): string {
  assertDropInName(dropIn);
  return `${dropInDirectory(unit)}/${dropIn}`;
}
