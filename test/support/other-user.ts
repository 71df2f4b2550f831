// A second user on the test machine without a user database: commands run as a child process with
// {uid, gid} (the tests run as root), and the node under test gets a passwd of its own naming that
// uid, under its temporary root.

import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { chmodSync } from 'node:fs';
import { dirname } from 'node:path';

export interface TestUser {
  name: string;
  uid: number;
  gid: number;
}

export const ALICE: TestUser = { name: 'alice', uid: 1000, gid: 1000 };
export const BOB: TestUser = { name: 'bob', uid: 1001, gid: 1001 };

export const PASSWD =
  'root:x:0:0:root:/root:/bin/sh\nalice:x:1000:1000:Alice:/home/alice:/bin/sh\nbob:x:1001:1001:Bob:/home/bob:/bin/sh\n';
export const GROUP = 'root:x:0:\nalice:x:1000:\nbob:x:1001:\n';

/** Whether this process can act as another user (it runs as root). */
export const canSwitchUser = process.getuid?.() === 0;

/** Runs `command` as `user` and fails the test on a non-zero exit. */
export function asUser(user: TestUser, command: string, args: string[]): void {
  const result = spawnSync(command, args, { uid: user.uid, gid: user.gid, encoding: 'utf8' });
  if (result.status !== 0) {
    throw new Error(
      `${command} ${args.join(' ')} as ${user.name}: ${result.error?.message ?? result.stderr}`,
    );
  }
}

export function asAlice(command: string, args: string[]): void {
  asUser(ALICE, command, args);
}

/** A shell loop as alice, running until stopped (kill it by its pid: it is this test's own child). */
export function aliceLoop(script: string): ChildProcess {
  return spawn('sh', ['-c', script], { uid: ALICE.uid, gid: ALICE.gid, stdio: 'ignore' });
}

/** Lets alice reach `path`: every directory from `top` down to it becomes 0755 (mkdtemp makes 0700). */
export function openWayTo(top: string, path: string): void {
  for (let dir = path; dir.length >= top.length; dir = dirname(dir)) {
    chmodSync(dir, 0o755);
    if (dir === top) break;
  }
}
