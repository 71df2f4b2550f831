import assert from 'node:assert/strict';
import {
  lstat,
  mkdir,
  mkdtemp,
  readdir,
  readFile,
  readlink,
  rm,
  stat,
  symlink,
  writeFile,
} from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, test } from 'node:test';
import { LocalFileExecutor } from '../../../src/agent/executors/local-file-executor.ts';
import { PathOutsideRootError } from '../../../src/agent/executors/root-path.ts';
import { UnknownPrincipalError } from '../../../src/agent/executors/user-database.ts';

let root: string;
let outside: string;
let files: LocalFileExecutor;

beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), 'nodeherd-root-'));
  outside = await mkdtemp(join(tmpdir(), 'nodeherd-outside-'));
  files = new LocalFileExecutor(root);
  await mkdir(join(root, 'etc'), { mode: 0o755 });
  await writeFile(
    join(root, 'etc/passwd'),
    'root:x:0:0:root:/root:/bin/sh\nsvc:x:1234:1234::/nonexistent:/bin/false\n',
  );
  await writeFile(join(root, 'etc/group'), 'root:x:0:\nsvcgrp:x:4321:\n');
});

afterEach(async () => {
  await rm(root, { recursive: true, force: true });
  await rm(outside, { recursive: true, force: true });
});

/** Every entry under `dir`, recursively, as paths relative to it. */
async function listTree(dir: string): Promise<string[]> {
  return (await readdir(dir, { recursive: true })).sort();
}

describe('write', () => {
  test('creates the file with its content, exact mode and owner, and parents 0755', async () => {
    const previousUmask = process.umask(0o077); // the mode must not depend on the agent's umask
    try {
      await files.write('/etc/nodeherd/conf.d/a.conf', Buffer.from('a=1\n'), {
        mode: 0o640,
        owner: 'svc',
        group: 'svcgrp',
      });
    } finally {
      process.umask(previousUmask);
    }
    const hostPath = join(root, 'etc/nodeherd/conf.d/a.conf');
    assert.equal(await readFile(hostPath, 'utf8'), 'a=1\n');
    const stats = await stat(hostPath);
    assert.equal(stats.mode & 0o7777, 0o640);
    assert.equal(stats.uid, 1234);
    assert.equal(stats.gid, 4321);
    assert.equal((await stat(join(root, 'etc/nodeherd'))).mode & 0o7777, 0o755);
    assert.equal((await stat(join(root, 'etc/nodeherd/conf.d'))).mode & 0o7777, 0o755);
  });

  test('defaults to 0644 root:root and accepts numeric ids', async () => {
    await files.write('/etc/default.conf', Buffer.from('x'));
    const defaults = await stat(join(root, 'etc/default.conf'));
    assert.deepEqual([defaults.mode & 0o7777, defaults.uid, defaults.gid], [0o644, 0, 0]);

    await files.write('/etc/numeric.conf', Buffer.from('x'), { owner: '55', group: 66 });
    const numeric = await stat(join(root, 'etc/numeric.conf'));
    assert.deepEqual([numeric.uid, numeric.gid], [55, 66]);
  });

  test('replaces an existing file and leaves no temporary file behind', async () => {
    await files.write('/etc/app.conf', Buffer.from('old'), { mode: 0o600 });
    await files.write('/etc/app.conf', Buffer.from('new content'), { mode: 0o644 });
    assert.equal(await readFile(join(root, 'etc/app.conf'), 'utf8'), 'new content');
    assert.equal((await stat(join(root, 'etc/app.conf'))).mode & 0o7777, 0o644);
    assert.deepEqual(await listTree(join(root, 'etc')), ['app.conf', 'group', 'passwd']);
  });

  test('keeps setuid and setgid bits although chown clears them', async () => {
    await files.write('/usr/local/bin/helper', Buffer.from('#!/bin/sh\n'), { mode: 0o6755, owner: 'svc' });
    const stats = await stat(join(root, 'usr/local/bin/helper'));
    assert.equal(stats.mode & 0o7777, 0o6755);
    assert.equal(stats.uid, 1234);
  });

  test('an unknown owner name fails before anything is written', async () => {
    await assert.rejects(
      files.write('/etc/nobody.conf', Buffer.from('x'), { owner: 'ghost' }),
      UnknownPrincipalError,
    );
    await assert.rejects(
      files.write('/etc/nobody.conf', Buffer.from('x'), { group: 'ghosts' }),
      /unknown group "ghosts"/,
    );
    assert.deepEqual(await listTree(join(root, 'etc')), ['group', 'passwd']);
  });

  test('without /etc/passwd only root and numeric ids resolve', async () => {
    const bare = await mkdtemp(join(tmpdir(), 'nodeherd-bare-'));
    try {
      const bareFiles = new LocalFileExecutor(bare);
      await bareFiles.write('/a', Buffer.from('x'), { owner: 'root', group: '7' });
      assert.equal((await stat(join(bare, 'a'))).gid, 7);
      await assert.rejects(bareFiles.write('/b', Buffer.from('x'), { owner: 'svc' }), UnknownPrincipalError);
    } finally {
      await rm(bare, { recursive: true, force: true });
    }
  });

  test('refuses to replace a directory', async () => {
    await mkdir(join(root, 'etc/dir.conf'));
    await assert.rejects(files.write('/etc/dir.conf', Buffer.from('x')), /a directory is in the way/);
  });

  test('refuses invalid modes', async () => {
    await assert.rejects(files.write('/etc/x', Buffer.from('x'), { mode: 0o10000 }), RangeError);
  });
});

describe('read', () => {
  test('reports content, mode and owner of a file, undefined when missing', async () => {
    await files.write('/etc/r.conf', Buffer.from('hello'), { mode: 0o600, owner: 'svc', group: 'svcgrp' });
    assert.deepEqual(await files.read('/etc/r.conf'), {
      kind: 'file',
      content: Buffer.from('hello'),
      mode: 0o600,
      uid: 1234,
      gid: 4321,
    });
    assert.equal(await files.read('/etc/missing.conf'), undefined);
    assert.equal(await files.read('/no/such/dir/file'), undefined);
  });

  test('reports a symlink or a directory as such instead of following it', async () => {
    await writeFile(join(outside, 'secret'), 'outside secret');
    await symlink(join(outside, 'secret'), join(root, 'etc/link'));
    const link = await files.read('/etc/link');
    assert.equal(link?.kind, 'symlink');
    assert.equal(link?.content.length, 0);
    assert.equal((await files.read('/etc'))?.kind, 'directory');
  });
});

describe('remove', () => {
  test('removes a file; a missing one is fine', async () => {
    await files.write('/etc/gone.conf', Buffer.from('x'));
    await files.remove('/etc/gone.conf');
    assert.equal(await files.read('/etc/gone.conf'), undefined);
    await files.remove('/etc/gone.conf');
    await files.remove('/not/even/a/dir');
  });

  test('removes a symlink itself, never its target', async () => {
    await writeFile(join(outside, 'keep'), 'keep me');
    await symlink(join(outside, 'keep'), join(root, 'etc/link'));
    await files.remove('/etc/link');
    await assert.rejects(lstat(join(root, 'etc/link')), { code: 'ENOENT' });
    assert.equal(await readFile(join(outside, 'keep'), 'utf8'), 'keep me');
  });

  test('refuses to remove a directory', async () => {
    await assert.rejects(files.remove('/etc'), /is a directory/);
  });
});

describe('removeDirectoryIfEmpty', () => {
  test('removes an empty directory, keeps a non-empty one, and a missing one counts as gone', async () => {
    await mkdir(join(root, 'etc/empty.d'));
    await mkdir(join(root, 'etc/full.d'));
    await writeFile(join(root, 'etc/full.d/x.conf'), 'x');
    assert.equal(await files.removeDirectoryIfEmpty('/etc/empty.d'), true);
    await assert.rejects(stat(join(root, 'etc/empty.d')), { code: 'ENOENT' });
    assert.equal(await files.removeDirectoryIfEmpty('/etc/full.d'), false);
    assert.equal(await files.removeDirectoryIfEmpty('/etc/missing.d'), true);
    assert.equal(await files.removeDirectoryIfEmpty('/etc/passwd'), false);
  });
});

describe('staying inside the root', () => {
  test('relative paths and .. are refused', async () => {
    await assert.rejects(files.write('etc/x', Buffer.from('x')), PathOutsideRootError);
    await assert.rejects(files.write('/etc/../../x', Buffer.from('x')), PathOutsideRootError);
    await assert.rejects(files.read('/../etc/passwd'), PathOutsideRootError);
    await assert.rejects(files.remove('/etc/..'), PathOutsideRootError);
  });

  test('an absolute symlinked directory resolves inside the root, not on the host', async () => {
    await symlink(outside, join(root, 'etc/evil')); // host-absolute target
    await files.write('/etc/evil/planted', Buffer.from('x'));
    assert.deepEqual(await readdir(outside), []);
    assert.equal(await readFile(join(root, outside, 'planted'), 'utf8'), 'x');
  });

  test('a relative symlink climbing with .. stops at the root', async () => {
    await symlink('../../../../../../..', join(root, 'etc/up'));
    await files.write('/etc/up/top', Buffer.from('x'));
    assert.equal(await readFile(join(root, 'top'), 'utf8'), 'x');
  });

  test('a symlink at the path itself is replaced, never written through', async () => {
    await writeFile(join(outside, 'target'), 'original');
    await symlink(join(outside, 'target'), join(root, 'etc/resolv.conf'));
    await files.write('/etc/resolv.conf', Buffer.from('nameserver 10.0.0.1\n'));
    assert.equal(await readFile(join(outside, 'target'), 'utf8'), 'original');
    assert.ok((await lstat(join(root, 'etc/resolv.conf'))).isFile());
    assert.equal(await readFile(join(root, 'etc/resolv.conf'), 'utf8'), 'nameserver 10.0.0.1\n');
  });

  test('merged-usr style symlinks inside a rootfs are followed', async () => {
    await mkdir(join(root, 'usr/lib'), { recursive: true });
    await symlink('usr/lib', join(root, 'lib'));
    await files.write('/lib/systemd/system/a.service', Buffer.from('[Unit]\n'));
    assert.equal(await readFile(join(root, 'usr/lib/systemd/system/a.service'), 'utf8'), '[Unit]\n');
    assert.equal(await readlink(join(root, 'lib')), 'usr/lib');
    assert.equal(
      await files.hostPath('/lib/systemd/system/a.service'),
      join(root, 'usr/lib/systemd/system/a.service'),
    );
  });

  test('the root /etc/passwd is used even when /etc is a symlink inside the root', async () => {
    const alt = join(root, 'alt-etc');
    await mkdir(alt);
    await writeFile(join(alt, 'passwd'), 'other:x:777:777::/:/bin/false\n');
    await rm(join(root, 'etc'), { recursive: true });
    await symlink('/alt-etc', join(root, 'etc'));
    assert.deepEqual(await files.resolveOwnership('other', 'root'), { uid: 777, gid: 0 });
  });

  test('a symlink loop is an error, not a hang', async () => {
    await symlink('b', join(root, 'etc/a'));
    await symlink('a', join(root, 'etc/b'));
    await assert.rejects(files.write('/etc/a/x', Buffer.from('x')), /too many levels of symbolic links/);
  });
});
