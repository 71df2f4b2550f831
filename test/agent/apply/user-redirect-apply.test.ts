// A user on the node turns ~/.ssh into a symlink to /etc/sudoers.d; the pool's next revision writes
// /home/alice/.ssh/authorized_keys owned by alice (issue 31). Through the embedded API server over
// HTTPS and the agent on real files: the apply fails with a message naming the path and alice, nothing
// lands in /etc/sudoers.d, and the node rolls back as for any failure.

import assert from 'node:assert/strict';
import { chmod, chown, mkdir, readdir, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import type { NodeConfigSpec } from '../../../src/api/types.ts';
import { ALICE, asAlice, canSwitchUser, GROUP, openWayTo, PASSWD } from '../../support/other-user.ts';
import {
  type Cluster,
  createPool,
  createRevision,
  getNode,
  setDesired,
  startCluster,
  startNode,
  waitForMessage,
  waitForState,
} from '../agent-harness.ts';

let cluster: Cluster | undefined;

before(async () => {
  if (!canSwitchUser) return;
  cluster = await startCluster();
  await createPool(cluster, 'logins', {
    updateStrategy: { type: 'RollingUpdate', rollingUpdate: { failurePolicy: { action: 'Rollback' } } },
  });
});
after(async () => {
  await cluster?.stop();
});

function motd(text: string): NodeConfigSpec['files'] {
  return [{ path: '/etc/motd', content: { inline: { data: text } } }];
}

test("alice's ~/.ssh -> /etc/sudoers.d: the apply is refused and rolled back, sudoers.d untouched", {
  skip: canSwitchUser ? false : 'needs root, to act as a second uid',
}, async () => {
  const node = await startNode(cluster!, 'login-1');
  const root = node.root;
  await mkdir(join(root, 'etc/sudoers.d'), { recursive: true });
  await chmod(join(root, 'etc/sudoers.d'), 0o750);
  await writeFile(join(root, 'etc/passwd'), PASSWD);
  await writeFile(join(root, 'etc/group'), GROUP);
  await mkdir(join(root, 'home/alice'), { recursive: true });
  await chown(join(root, 'home/alice'), ALICE.uid, ALICE.gid);
  openWayTo(tmpdir(), join(root, 'home/alice'));

  const good = await createRevision(cluster!, 'logins', { files: motd('welcome\n') });
  await setDesired(cluster!, node.name, good.metadata.name);
  await waitForState(cluster!, node.name, 'Done');

  asAlice('ln', ['-s', '/etc/sudoers.d', join(root, 'home/alice/.ssh')]);
  const keys = await createRevision(cluster!, 'logins', {
    files: [
      ...motd('welcome, keys managed\n')!,
      {
        path: '/home/alice/.ssh/authorized_keys',
        owner: 'alice',
        mode: 0o600,
        content: { inline: { data: 'ALL ALL=(ALL) NOPASSWD: ALL\n' } },
      },
    ],
  });
  await setDesired(cluster!, node.name, keys.metadata.name);
  const failed = await waitForMessage(cluster!, node.name, /rolled back to/);
  const annotations = failed.metadata?.annotations ?? {};
  assert.equal(annotations['nodeherd.io/state'], 'Failed');
  const message = annotations['nodeherd.io/message'] ?? '';
  assert.match(message, /refusing path "\/home\/alice\/\.ssh\/authorized_keys"/);
  assert.match(message, /\/home\/alice\/\.ssh is a symbolic link of alice \(uid 1000\)/);
  assert.equal(failed.status?.conditions?.find((c) => c.type === 'NodeConfigReady')?.reason, 'RolledBack');
  assert.equal(annotations['nodeherd.io/current-revision'], good.metadata.name);

  assert.deepEqual(await readdir(join(root, 'etc/sudoers.d')), [], 'nothing landed in /etc/sudoers.d');
  assert.equal(
    await readFile(join(root, 'etc/motd'), 'utf8'),
    'welcome\n',
    'the last applied revision restored',
  );
  assert.equal((await getNode(cluster!, node.name)).metadata?.annotations?.['nodeherd.io/state'], 'Failed');
});
