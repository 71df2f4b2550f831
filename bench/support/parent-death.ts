// A bench that dies (killed, or an uncaught error) must not leave the processes it started running:
// an orphaned controller or server takes a core from the next bench and skews its figures. util-linux's
// setpriv asks the kernel to signal the child when its parent dies (PR_SET_PDEATHSIG) and then execs
// the command, so the child keeps the pid the bench reads its CPU and memory from.

import { existsSync } from 'node:fs';

const SETPRIV = '/usr/bin/setpriv';

/** The command and arguments to spawn so the command gets SIGTERM when this process dies. */
export function diesWithParent(command: string, args: readonly string[]): [string, string[]] {
  if (!existsSync(SETPRIV)) return [command, [...args]];
  return [SETPRIV, ['--pdeathsig', 'SIGTERM', '--', command, ...args]];
}
