// dnf and rpm act on the live system unless told --installroot: with a root other than '/' the dnf
// backend refuses them before running anything, and with `installroot` (the commands then act on the
// root itself) or `allowLiveCommands` it runs them, with its timeout and LC_ALL=C.

import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, test } from 'node:test';
import type { CommandOptions, CommandRunner } from '../../../../src/agent/executors/command-runner.ts';
import { DnfPackageExecutor } from '../../../../src/agent/executors/dnf/dnf-package-executor.ts';
import { LiveSystemRefusedError } from '../../../../src/agent/executors/live-system-guard.ts';

let root: string;

beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), 'nodeherd-dnf-guard-'));
});

afterEach(async () => {
  await rm(root, { recursive: true, force: true });
});

function recordingRunner(): { runner: CommandRunner; ran: { file: string; options: CommandOptions }[] } {
  const ran: { file: string; options: CommandOptions }[] = [];
  return {
    ran,
    runner: {
      async run(file, _args, options = {}) {
        ran.push({ file, options });
        return { code: 0, stdout: '', stderr: '' };
      },
    },
  };
}

test('with a root other than / dnf and rpm are refused before running', async () => {
  const { runner, ran } = recordingRunner();
  const dnf = new DnfPackageExecutor({ rootDir: root, runner });
  await assert.rejects(dnf.update(), /refusing to run dnf: files go to/);
  await assert.rejects(dnf.install('jq', '1.6'), LiveSystemRefusedError);
  await assert.rejects(dnf.remove('jq'), LiveSystemRefusedError);
  await assert.rejects(dnf.installedVersion('jq'), /refusing to run rpm/);
  await assert.rejects(dnf.hold('jq'), LiveSystemRefusedError);
  assert.deepEqual(ran, []);
});

test('with installroot or allowLiveCommands they run, with the timeout given and LC_ALL=C', async () => {
  for (const options of [{ installroot: true }, { allowLiveCommands: true }]) {
    const { runner, ran } = recordingRunner();
    const dnf = new DnfPackageExecutor({ rootDir: root, runner, timeoutMs: 1234, env: {}, ...options });
    await dnf.update();
    assert.deepEqual(
      ran.map(({ file, options }) => [file, options.timeoutMs, options.env?.LC_ALL]),
      [['dnf', 1234, 'C']],
    );
  }
});
