// Units and checks the end-to-end tests share.

import type { Container } from '../../../src/nspawn/container.ts';

/** A long-running service with an [Install] section, starting at once. */
export function serviceUnit(description: string, extra = ''): string {
  return [
    '[Unit]',
    `Description=${description}`,
    '',
    '[Service]',
    // exec: start returns once sleep runs, so a restart right after a start never kills systemd's
    // pre-exec child (which systemd counts as a failure, and made the suite flaky under load).
    'Type=exec',
    'ExecStart=/bin/sleep infinity',
    extra,
    '',
    '[Install]',
    'WantedBy=multi-user.target',
    '',
  ].join('\n');
}

export interface UnitState {
  active: string;
  enabled: string;
  invocationId: string;
  nRestarts: number;
  mainPid: number;
  fragmentPath: string;
}

export async function unitState(container: Container, unit: string): Promise<UnitState> {
  const values = await container.show(unit, [
    'ActiveState',
    'UnitFileState',
    'InvocationID',
    'NRestarts',
    'MainPID',
    'FragmentPath',
  ]);
  return {
    active: values.ActiveState ?? '',
    enabled: values.UnitFileState ?? '',
    invocationId: values.InvocationID ?? '',
    nRestarts: Number(values.NRestarts ?? 0),
    mainPid: Number(values.MainPID ?? 0),
    fragmentPath: values.FragmentPath ?? '',
  };
}

/** A cursor at the end of the container's journal, to read only what comes after it. */
export async function journalCursor(container: Container): Promise<string> {
  const out = await container.execChecked(['journalctl', '--show-cursor', '-n', '0', '--no-pager']);
  const match = /-- cursor: (\S+)/.exec(out);
  if (!match?.[1]) throw new Error(`no journal cursor in ${JSON.stringify(out)}`);
  return match[1];
}

/** Journal messages after the cursor, optionally of one unit (-u) or of PID 1 only. */
export async function journalSince(
  container: Container,
  cursor: string,
  filter: { unit?: string; pid1?: boolean } = {},
): Promise<string[]> {
  const args = ['journalctl', `--after-cursor=${cursor}`, '-o', 'cat', '--no-pager'];
  if (filter.unit) args.push('-u', filter.unit);
  if (filter.pid1) args.push('_PID=1');
  const out = await container.execChecked(args);
  return out.split('\n').filter((line) => line !== '');
}
