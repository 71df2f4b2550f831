// fs-async behaves like node:fs/promises on real files: the same results and the same errno codes.

import assert from 'node:assert/strict';
import { symlinkSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import {
  chmod,
  lstat,
  mkdir,
  open,
  readdir,
  readFile,
  readlink,
  rename,
  rmdir,
  unlink,
} from '../../src/util/fs-async.ts';

let dir: string;

before(async () => {
  dir = await mkdtemp(join(tmpdir(), 'nodeherd-fs-async-'));
});

after(async () => {
  await rm(dir, { recursive: true, force: true });
});

test('an OpenFile appends, syncs, truncates, stats and reads back', async () => {
  const path = join(dir, 'journal');
  const appender = await open(path, 'a');
  assert.equal(await appender.write('one\n'), 4);
  await appender.write('two\n');
  await appender.datasync();
  await appender.close();
  assert.equal(await readFile(path, 'utf8'), 'one\ntwo\n');

  const editor = await open(path, 'r+');
  await editor.truncate(4);
  await editor.sync();
  assert.equal((await editor.stat()).size, 4);
  assert.deepEqual(await editor.readFile(), Buffer.from('one\n'));
  await editor.close();
});

test('a file created exclusively gets its mode and content, and a second create fails with EEXIST', async () => {
  const path = join(dir, 'created');
  const file = await open(path, 'wx', 0o600);
  await file.chmod(0o640);
  await file.chown(process.getuid?.() ?? -1, -1);
  await file.writeFile('content');
  await file.close();
  assert.equal(await readFile(path, 'utf8'), 'content');
  assert.equal((await lstat(path)).mode & 0o777, 0o640);
  await assert.rejects(open(path, 'wx'), { code: 'EEXIST' });
});

test('path operations resolve as fs/promises does and reject with the errno code', async () => {
  const sub = join(dir, 'a', 'b');
  await mkdir(sub, { recursive: true, mode: 0o700 });
  await chmod(sub, 0o750);
  assert.equal((await lstat(sub)).mode & 0o777, 0o750);
  await open(join(sub, 'f'), 'w').then((file) => file.close());
  assert.deepEqual(await readdir(sub), ['f']);
  await rename(join(sub, 'f'), join(sub, 'g'));
  symlinkSync('g', join(sub, 'link'));
  assert.equal(await readlink(join(sub, 'link')), 'g');
  assert.ok((await lstat(join(sub, 'link'))).isSymbolicLink());
  await unlink(join(sub, 'link'));
  await unlink(join(sub, 'g'));
  await rmdir(sub);
  await assert.rejects(readFile(join(dir, 'missing')), { code: 'ENOENT' });
  await assert.rejects(unlink(join(dir, 'missing')), { code: 'ENOENT' });
  await assert.rejects(rmdir(join(dir, 'a', 'missing')), { code: 'ENOENT' });
});
