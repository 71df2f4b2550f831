// The inotify side of drift on a real directory tree: atomic replaces, deletions, directories that do
// not exist yet or go away, other files in the same directory, and bursts debounced into one call.

import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { ManagedPathWatcher } from '../../../src/agent/drift/managed-path-watcher.ts';
import { silentLogger } from '../../../src/agent/logger.ts';
import { eventually } from '../../support/eventually.ts';

describe('managed path watcher', () => {
  const root = mkdtempSync(join(tmpdir(), 'nodeherd-watch-'));
  let calls = 0;
  const watcher = new ManagedPathWatcher({
    root,
    debounceMs: 50,
    logger: silentLogger,
    onChange: () => calls++,
  });
  after(() => {
    watcher.close();
    rmSync(root, { recursive: true, force: true });
  });

  async function changes(what: string, act: () => void): Promise<void> {
    const before = calls;
    act();
    await eventually(what, () => calls > before, 5000);
  }

  test('a directory that does not exist yet is watched through its nearest ancestor', async () => {
    mkdirSync(join(root, 'etc'));
    watcher.setPaths(['/etc/app/conf.d/app.conf', '/etc/other.conf']);
    assert.deepEqual(watcher.watchedDirectories(), [join(root, 'etc')]);
    await changes('the directories created', () =>
      mkdirSync(join(root, 'etc/app/conf.d'), { recursive: true }),
    );
    await eventually('the new directory watched', () =>
      watcher.watchedDirectories().includes(join(root, 'etc/app/conf.d')),
    );
    await changes('the file created', () => writeFileSync(join(root, 'etc/app/conf.d/app.conf'), 'a'));
  });

  test('an atomic replace and a deletion are seen; an unrelated file is not', async () => {
    await changes('replaced', () => {
      writeFileSync(join(root, 'etc/app/conf.d/.app.conf.tmp'), 'b');
      renameSync(join(root, 'etc/app/conf.d/.app.conf.tmp'), join(root, 'etc/app/conf.d/app.conf'));
    });
    await changes('deleted', () => rmSync(join(root, 'etc/app/conf.d/app.conf')));
    const before = calls;
    writeFileSync(join(root, 'etc/app/conf.d/unrelated.conf'), 'x');
    await new Promise((resolve) => setTimeout(resolve, 300)); // four debounce periods
    assert.equal(calls, before, 'a file nodeherd does not manage');
    await changes('the managed file again', () => writeFileSync(join(root, 'etc/app/conf.d/app.conf'), 'c'));
  });

  test('a removed directory: seen, and watched again once it is back', async () => {
    await changes('directory removed', () => rmSync(join(root, 'etc/app'), { recursive: true }));
    await eventually('the ancestor watched', () => watcher.watchedDirectories().includes(join(root, 'etc')));
    await changes('directory back', () => mkdirSync(join(root, 'etc/app/conf.d'), { recursive: true }));
    await changes('file in it', () => writeFileSync(join(root, 'etc/app/conf.d/app.conf'), 'd'));
  });

  test('a burst of writes is debounced', async () => {
    const before = calls;
    for (let i = 0; i < 20; i++) writeFileSync(join(root, 'etc/other.conf'), String(i));
    await eventually('a call', () => calls > before, 5000);
    await new Promise((resolve) => setTimeout(resolve, 200));
    assert.ok(calls - before < 20, `${calls - before} calls for 20 writes`);
  });
});
