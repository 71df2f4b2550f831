// The same behaviour from both FileExecutor backends: a simulated node must act like a real one.

import assert from 'node:assert/strict';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { LocalFileExecutor } from '../../../src/agent/executors/local-file-executor.ts';
import { MemoryFileExecutor } from '../../../src/agent/executors/memory-file-executor.ts';
import { PathOutsideRootError } from '../../../src/agent/executors/root-path.ts';
import type { FileExecutor } from '../../../src/agent/executors/types.ts';
import { UnknownPrincipalError } from '../../../src/agent/executors/user-database.ts';

const roots: string[] = [];
after(async () => {
  for (const root of roots) await rm(root, { recursive: true, force: true });
});

async function localBackend(): Promise<FileExecutor> {
  const root = await mkdtemp(join(tmpdir(), 'nodeherd-contract-'));
  roots.push(root);
  await mkdir(join(root, 'etc'));
  await writeFile(join(root, 'etc/passwd'), 'root:x:0:0::/:/bin/sh\nsvc:x:1234:1234::/:/bin/false\n');
  await writeFile(join(root, 'etc/group'), 'root:x:0:\nsvcgrp:x:4321:\n');
  return new LocalFileExecutor(root);
}

async function memoryBackend(): Promise<FileExecutor> {
  return new MemoryFileExecutor({ users: { svc: 1234 }, groups: { svcgrp: 4321 } });
}

for (const [name, create] of [
  ['LocalFileExecutor', localBackend],
  ['MemoryFileExecutor', memoryBackend],
] as const) {
  describe(`${name} contract`, () => {
    test('write then read returns content, mode and owner', async () => {
      const files = await create();
      await files.write('/opt/app/config.yaml', Buffer.from('a: 1\n'), {
        mode: 0o600,
        owner: 'svc',
        group: 'svcgrp',
      });
      assert.deepEqual(await files.read('/opt/app/config.yaml'), {
        kind: 'file',
        content: Buffer.from('a: 1\n'),
        mode: 0o600,
        uid: 1234,
        gid: 4321,
      });
    });

    test('defaults are 0644 owned by root', async () => {
      const files = await create();
      await files.write('/etc/d.conf', Buffer.from(''));
      const state = await files.read('/etc/d.conf');
      assert.deepEqual([state?.mode, state?.uid, state?.gid], [0o644, 0, 0]);
    });

    test('remove makes read return undefined; removing twice is fine', async () => {
      const files = await create();
      await files.write('/etc/r.conf', Buffer.from('x'));
      await files.remove('/etc/r.conf');
      await files.remove('/etc/r.conf');
      assert.equal(await files.read('/etc/r.conf'), undefined);
    });

    test('an empty drop-in directory can be removed, a non-empty one cannot', async () => {
      const files = await create();
      await files.write('/etc/systemd/system/a.service.d/10-x.conf', Buffer.from('x'));
      assert.equal(await files.removeDirectoryIfEmpty('/etc/systemd/system/a.service.d'), false);
      await files.remove('/etc/systemd/system/a.service.d/10-x.conf');
      assert.equal(await files.removeDirectoryIfEmpty('/etc/systemd/system/a.service.d'), true);
    });

    test('unknown owners and paths leaving the root are refused', async () => {
      const files = await create();
      await assert.rejects(
        files.write('/etc/x', Buffer.from('x'), { owner: 'ghost' }),
        UnknownPrincipalError,
      );
      await assert.rejects(files.write('/etc/../x', Buffer.from('x')), PathOutsideRootError);
      await assert.rejects(files.read('relative/x'), PathOutsideRootError);
      assert.deepEqual(await files.resolveOwnership(42, '43'), { uid: 42, gid: 43 });
    });

    test('read returns a copy: changing it does not change the file', async () => {
      const files = await create();
      await files.write('/etc/c.conf', Buffer.from('abc'));
      const first = await files.read('/etc/c.conf');
      first!.content.fill(0);
      assert.equal((await files.read('/etc/c.conf'))?.content.toString(), 'abc');
    });
  });
}
