// The reboot sentinel on real files under a root, read as the agent reads every node path: what counts
// as the OS asking (a file, also without .pkgs; not a directory), which lines of `.pkgs` are package names, and
// a sentinel reached through a link another user controls is not believed.

import assert from 'node:assert/strict';
import { chownSync, lchownSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { LocalFileExecutor } from '../../../src/agent/executors/local-file-executor.ts';
import {
  checkRebootSentinel,
  DEFAULT_OS_REBOOT_SETTINGS,
} from '../../../src/agent/reboot/reboot-sentinel.ts';

describe('the reboot sentinel', () => {
  let root: string;
  let files: LocalFileExecutor;

  before(() => {
    root = mkdtempSync(join(tmpdir(), 'nodeherd-sentinel-'));
    mkdirSync(join(root, 'run'), { recursive: true });
    mkdirSync(join(root, 'var'), { recursive: true });
    // Debian's layout: /var/run is root's link to /run.
    symlinkSync('/run', join(root, 'var/run'));
    files = new LocalFileExecutor(root);
  });
  after(() => rmSync(root, { recursive: true, force: true }));

  const check = (sentinelFile = DEFAULT_OS_REBOOT_SETTINGS.sentinelFile) =>
    checkRebootSentinel({ ...DEFAULT_OS_REBOOT_SETTINGS, sentinelFile }, { files, commands: undefined });

  it('follows /var/run to /run, and keeps only package names from .pkgs, once each', async () => {
    assert.equal((await check()).required, false);
    writeFileSync(join(root, 'run/reboot-required'), '*** System restart required ***\n');
    writeFileSync(
      join(root, 'run/reboot-required.pkgs'),
      'linux-image-6.1.0-18-amd64\nlibc6\n\nlibc6\n$(reboot)\n  libssl3:amd64  \n../../etc/shadow\n',
    );
    const verdict = await check();
    assert.equal(verdict.required, true);
    assert.deepEqual(verdict.packages, ['linux-image-6.1.0-18-amd64', 'libc6', 'libssl3:amd64']);
  });

  it('a sentinel without .pkgs still asks; a directory of that name does not', async () => {
    mkdirSync(join(root, 'run/custom-dir'));
    assert.equal((await check('/run/custom-dir')).required, false);
    writeFileSync(join(root, 'run/bare'), '');
    const bare = await check('/run/bare');
    assert.equal(bare.required, true);
    assert.equal(bare.message, 'the OS asks for a reboot (/run/bare)');
  });

  it('a sentinel command where none can run is a failed check, not a reboot', async () => {
    const verdict = await checkRebootSentinel(
      {
        ...DEFAULT_OS_REBOOT_SETTINGS,
        sentinelFile: '/run/absent',
        sentinelCommand: ['/usr/bin/needs-restarting', '-r'],
      },
      { files, commands: undefined },
    );
    assert.equal(verdict.required, undefined);
    assert.equal(verdict.reason, 'CheckFailed');
    assert.match(verdict.message, /runs no commands/);
  });

  it("does not believe a sentinel reached through another user's link", {
    skip: process.getuid?.() !== 0 && 'needs root (chown)',
  }, async () => {
    writeFileSync(join(root, 'run/flag'), '');
    mkdirSync(join(root, 'home/alice'), { recursive: true });
    chownSync(join(root, 'home/alice'), 1000, 1000);
    // alice's link, in her directory, to root's /run: the walk is confined to her tree and refuses it.
    symlinkSync('/run', join(root, 'home/alice/run'));
    lchownSync(join(root, 'home/alice/run'), 1000, 1000);
    assert.equal((await check('/run/flag')).required, true);
    assert.equal((await check('/home/alice/run/flag')).required, false);
  });
});
