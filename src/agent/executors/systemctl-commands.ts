// The systemctl command lines the real systemd backend runs, and the parsing of what it reads
// back: pure functions, so they are tested without a running systemd.

import type { UnitStatus } from './types.ts';
import { assertUnitName } from './unit-names.ts';

export type UnitVerb = 'enable' | 'disable' | 'start' | 'stop' | 'restart' | 'reload';

// Never wait for a password prompt: the agent has no terminal and must fail instead of hanging.
const COMMON = ['--no-ask-password'];

const SHOWN_PROPERTIES = [
  'ActiveState',
  'SubState',
  'NRestarts',
  'InvocationID',
  'UnitFileState',
  'ActiveEnterTimestampMonotonic',
];

export function daemonReloadArgs(): string[] {
  return [...COMMON, 'daemon-reload'];
}

/**
 * enable/disable only change the [Install] symlinks; starting and stopping are separate steps.
 * noBlock: only enqueue the job (for the caller's own unit, whose stop ends the caller).
 */
export function unitVerbArgs(verb: UnitVerb, unit: string, options: { noBlock?: boolean } = {}): string[] {
  assertUnitName(unit);
  // systemctl enable/disable reload the whole manager afterwards unless told not to: with the plan's
  // own daemon-reload that made two or three reloads per apply on real systemd instead of one.
  const noReload = verb === 'enable' || verb === 'disable' ? ['--no-reload'] : [];
  return [...COMMON, ...noReload, ...(options.noBlock ? ['--no-block'] : []), verb, unit];
}

/** `journalctl -u <unit> -n <lines> --no-pager -o cat`: the unit's last lines, message text only. */
export function journalArgs(unit: string, lines: number): string[] {
  assertUnitName(unit);
  if (!Number.isInteger(lines) || lines < 1)
    throw new Error(`journal lines: ${lines} is not a positive integer`);
  return ['-u', unit, '-n', String(lines), '--no-pager', '-o', 'cat'];
}

export function showArgs(unit: string): string[] {
  assertUnitName(unit);
  return [...COMMON, 'show', `--property=${SHOWN_PROPERTIES.join(',')}`, unit];
}

/** Parses `systemctl show` key=value lines. A unit systemd does not know shows as inactive/dead. */
export function parseShowOutput(text: string): UnitStatus {
  const values = new Map<string, string>();
  for (const line of text.split('\n')) {
    const eq = line.indexOf('=');
    if (eq > 0) values.set(line.slice(0, eq), line.slice(eq + 1).trim());
  }
  const status: UnitStatus = {
    activeState: values.get('ActiveState') || 'unknown',
    subState: values.get('SubState') || 'unknown',
  };
  const restarts = values.get('NRestarts');
  if (restarts && /^\d+$/.test(restarts)) status.nRestarts = Number(restarts);
  const invocationId = values.get('InvocationID');
  if (invocationId) status.invocationId = invocationId;
  const unitFileState = values.get('UnitFileState');
  if (unitFileState) status.unitFileState = unitFileState;
  // 0 when the unit has never been active; systemd's CLOCK_MONOTONIC, in microseconds.
  const activeEnter = values.get('ActiveEnterTimestampMonotonic');
  if (activeEnter && /^[1-9]\d*$/.test(activeEnter)) status.activeEnterMonotonicUs = Number(activeEnter);
  return status;
}
