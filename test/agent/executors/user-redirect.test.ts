// A user on the node must not redirect the root agent out of their own tree (issue 31): the file
// executor against real files, with a second uid acting through child processes. alice owns
// /home/alice; root owns the rest, as on a node.

import assert from 'node:assert/strict';
import {
  chmod,
  chown,
  lstat,
  mkdir,
  mkdtemp,
  readdir,
  readFile,
  rm,
  stat,
  symlink,
  writeFile,
} from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, test } from 'node:test';
import { sweepTemporaryFiles } from '../../../src/agent/apply/temporary-file-sweep.ts';
import { LocalFileExecutor } from '../../../src/agent/executors/local-file-executor.ts';
import {
  ALICE,
  aliceLoop,
  asAlice,
  asUser,
  BOB,
  canSwitchUser,
  GROUP,
  openWayTo,
  PASSWD,
} from '../../support/other-user.ts';

let root: string;
let files: LocalFileExecutor;
const skip = canSwitchUser ? false : 'needs root, to act as a second uid';

beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), 'nodeherd-user-paths-'));
  files = new LocalFileExecutor(root);
  await mkdir(join(root, 'etc/sudoers.d'), { recursive: true, mode: 0o755 });
  await chmod(join(root, 'etc/sudoers.d'), 0o750);
  await writeFile(join(root, 'etc/passwd'), PASSWD);
  await writeFile(join(root, 'etc/group'), GROUP);
  await mkdir(join(root, 'home/alice'), { recursive: true });
  await chown(join(root, 'home/alice'), ALICE.uid, ALICE.gid);
  await chmod(join(root, 'home/alice'), 0o755);
  openWayTo(tmpdir(), join(root, 'home/alice'));
});

afterEach(async () => {
  await rm(root, { recursive: true, force: true });
});

const home = () => join(root, 'home/alice');

describe('a user redirecting the agent', { skip }, () => {
  test('~/.ssh as a symlink to /etc/sudoers.d: the write is refused, naming the path and alice', async () => {
    asAlice('ln', ['-s', '/etc/sudoers.d', join(home(), '.ssh')]);
    await assert.rejects(
      files.write('/home/alice/.ssh/authorized_keys', Buffer.from('ssh-ed25519 AAAA alice\n'), {
        owner: 'alice',
        mode: 0o600,
      }),
      (error: Error) => {
        assert.match(error.message, /^refusing path "\/home\/alice\/\.ssh\/authorized_keys": /);
        assert.match(error.message, /\/home\/alice\/\.ssh is a symbolic link of alice \(uid 1000\)/);
        assert.match(error.message, /"\/etc\/sudoers\.d", outside their tree/);
        return true;
      },
    );
    assert.deepEqual(await readdir(join(root, 'etc/sudoers.d')), [], 'nothing lands in /etc/sudoers.d');
  });

  test("relative links out of the tree are refused too: ../../etc, and one in root's sticky /tmp", async () => {
    asAlice('ln', ['-s', '../../etc/sudoers.d', join(home(), '.ssh')]);
    await assert.rejects(
      files.write('/home/alice/.ssh/keys', Buffer.from('x')),
      /out of the tree of alice \(uid 1000\)/,
    );
    await mkdir(join(root, 'tmp'));
    await chmod(join(root, 'tmp'), 0o1777);
    asAlice('ln', ['-s', '../etc/sudoers.d', join(root, 'tmp/cache')]);
    await assert.rejects(
      files.write('/tmp/cache/app', Buffer.from('x')),
      /\/tmp\/\.\. leads out of the tree of alice/,
    );
    asAlice('ln', ['-s', '.', join(root, 'tmp/here')]);
    await assert.rejects(files.write('/tmp/here/app', Buffer.from('x')), /outside their tree/);
    // Nor does the agent create a directory where her link points, outside her tree.
    asAlice('ln', ['-s', 'made-by-root', join(root, 'tmp/make')]);
    await assert.rejects(
      files.write('/tmp/make/app', Buffer.from('x')),
      /would be created outside the tree of alice/,
    );
    // Another user's link inside alice's tree does not lead into the rest of alice's tree either.
    asAlice('mkdir', ['-m', '0777', join(home(), 'shared')]);
    asUser(BOB, 'ln', ['-s', '../.ssh-real', join(home(), 'shared/sub')]);
    asAlice('mkdir', [join(home(), '.ssh-real')]);
    await assert.rejects(
      files.write('/home/alice/shared/sub/keys', Buffer.from('x')),
      /tree of bob \(uid 1001\)/,
    );
    assert.deepEqual(await readdir(join(home(), '.ssh-real')), []);
    assert.deepEqual(await readdir(join(root, 'etc/sudoers.d')), []);
    assert.deepEqual((await readdir(join(root, 'tmp'))).sort(), ['cache', 'here', 'make']);
  });

  test('removing the file from the config does not unlink through the link', async () => {
    await writeFile(join(root, 'etc/sudoers.d/authorized_keys'), 'root ALL=(ALL) ALL\n', { mode: 0o440 });
    asAlice('ln', ['-s', '/etc/sudoers.d', join(home(), '.ssh')]);
    await assert.rejects(files.remove('/home/alice/.ssh/authorized_keys'), /symbolic link of alice/);
    assert.equal(await readFile(join(root, 'etc/sudoers.d/authorized_keys'), 'utf8'), 'root ALL=(ALL) ALL\n');
    // Where the link leads holds nothing of that name: nothing to remove (a rollback goes on).
    await files.remove('/home/alice/.ssh/other');
    // Nor does the sweep of leftover temporary files reach through it.
    await writeFile(join(root, 'etc/sudoers.d/.authorized_keys.1.abcdef.tmp'), 'x');
    await sweepTemporaryFiles(files, ['/home/alice/.ssh/authorized_keys']);
    assert.ok((await lstat(join(root, 'etc/sudoers.d/.authorized_keys.1.abcdef.tmp'))).isFile());
    // A drift check sees no file of the node's there.
    assert.equal(await files.read('/home/alice/.ssh/authorized_keys'), undefined);
  });

  test('a link swapped in after the rename is never chmodded or chowned', async () => {
    await writeFile(join(root, 'etc/shadow'), 'root:*:1::::::\n', { mode: 0o640 });
    await mkdir(join(home(), '.ssh'));
    await chown(join(home(), '.ssh'), ALICE.uid, ALICE.gid);
    // alice keeps putting a link to /etc/shadow where the agent writes, as fast as she can. The link
    // is relative, so that whatever follows it by path stays in this test's root, not the host's /etc.
    const loop = aliceLoop(
      `cd ${join(home(), '.ssh')} && while :; do ln -sfn ../../../etc/shadow l.$$ 2>/dev/null; mv -f l.$$ tool 2>/dev/null; done`,
    );
    try {
      for (let i = 0; i < 200; i++) {
        // setuid: the old executor set these bits again by path after the rename.
        await files.write('/home/alice/.ssh/tool', Buffer.from('#!/bin/sh\n'), {
          mode: 0o4755,
          owner: 'alice',
        });
        const shadow = await stat(join(root, 'etc/shadow'));
        assert.equal(shadow.mode & 0o7777, 0o640, `write ${i}: /etc/shadow chmodded through alice's link`);
        assert.equal(shadow.uid, 0);
      }
    } finally {
      loop.kill('SIGKILL');
    }
  });

  test("what stays in alice's tree is written: her relative link to her own directory", async () => {
    asAlice('mkdir', ['-p', join(home(), 'dotfiles/ssh')]);
    asAlice('ln', ['-s', 'dotfiles/ssh', join(home(), '.ssh')]);
    await files.write('/home/alice/.ssh/authorized_keys', Buffer.from('key\n'), {
      owner: 'alice',
      mode: 0o600,
    });
    const written = await stat(join(home(), 'dotfiles/ssh/authorized_keys'));
    assert.deepEqual([written.uid, written.mode & 0o7777], [ALICE.uid, 0o600]);
    // The agent's own new directories in her tree, and the file read back for drift checks.
    await files.write('/home/alice/.config/app/settings', Buffer.from('a=1\n'), { owner: 'alice' });
    assert.equal((await files.read('/home/alice/.config/app/settings'))?.content.toString(), 'a=1\n');
    await files.remove('/home/alice/.ssh/authorized_keys');
    await assert.rejects(stat(join(home(), 'dotfiles/ssh/authorized_keys')), { code: 'ENOENT' });
  });

  test('root-owned links the OS ships keep working: /var/run -> /run', async () => {
    await mkdir(join(root, 'run'));
    await mkdir(join(root, 'var'));
    await symlink('/run', join(root, 'var/run'));
    await files.write('/var/run/app/app.pid', Buffer.from('1\n'));
    assert.equal(await readFile(join(root, 'run/app/app.pid'), 'utf8'), '1\n');
  });
});
