// Holds with the real apt-mark, dpkg and apt-get of a Debian host, without changing the host: the
// executor's commands are wrappers that point them at a copy of the host's dpkg database (apt-mark and
// apt-get through Dir::State::status and Dir::Bin::dpkg, dpkg and dpkg-query through --admindir), and
// apt-get only simulates (-s). What it shows is what the agent relies on: apt-mark's hold is the
// selection dpkg-query reports, apt refuses to change a held package (so unattended-upgrades and an
// admin's `apt-get -y` leave it alone), and the agent's own removal, which releases the hold and passes
// --allow-change-held-packages, goes through. Skips where there is no dpkg database or no root
// (dpkg --set-selections wants root); the nspawn suite (test/e2e/real-nodes.test.ts) does the same on a
// real node with real installs.

import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { access, chmod, copyFile, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { promisify } from 'node:util';
import { AptPackageExecutor } from '../../../../src/agent/executors/apt/apt-package-executor.ts';

const run = promisify(execFile);

async function skipReason(): Promise<string | undefined> {
  if (process.getuid?.() !== 0) return 'not root (dpkg --set-selections needs it)';
  try {
    await access('/var/lib/dpkg/status');
    for (const tool of ['apt-get', 'apt-cache', 'apt-mark', 'dpkg', 'dpkg-query']) await run('which', [tool]);
  } catch {
    return 'no dpkg database or apt tools on this host';
  }
  return undefined;
}

const skip = await skipReason();
if (skip) process.stderr.write(`real apt holds skipped: ${skip}\n`);

describe('holds with real apt on a copy of the host dpkg database', { skip, timeout: 120_000 }, () => {
  let dir: string;
  let apt: AptPackageExecutor;
  let aptGetWrapper: string;
  /** An installed package apt would remove on its own (nothing installed depends on it). */
  let leaf: string;

  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'nodeherd-apt-holds-'));
    const admin = join(dir, 'admin');
    await mkdir(join(admin, 'updates'), { recursive: true });
    await mkdir(join(admin, 'info'));
    await copyFile('/var/lib/dpkg/status', join(admin, 'status'));
    await writeFile(join(admin, 'available'), '');
    // No cache files either: apt builds its cache in memory and writes nothing of the host's.
    const noCache = ['-o', 'Dir::Cache::pkgcache=', '-o', 'Dir::Cache::srcpkgcache='];
    const state = [
      '-o',
      `Dir::State::status=${admin}/status`,
      '-o',
      `Dir::Bin::dpkg=${dir}/dpkg`,
      ...noCache,
    ];
    const wrapper = async (name: string, command: string) => {
      const path = join(dir, name);
      await writeFile(path, `#!/bin/sh\nexec ${command} "$@"\n`);
      await chmod(path, 0o755);
      return path;
    };
    await wrapper('dpkg', `/usr/bin/dpkg --admindir=${admin}`);
    const dpkgQuery = await wrapper('dpkg-query', `/usr/bin/dpkg-query --admindir=${admin}`);
    const aptMark = await wrapper('apt-mark', `apt-mark ${state.join(' ')}`);
    aptGetWrapper = await wrapper('apt-get', `apt-get -s ${state.join(' ')}`);
    apt = new AptPackageExecutor({
      aptGetPath: aptGetWrapper,
      aptMarkPath: aptMark,
      dpkgQueryPath: dpkgQuery,
      lockWaitMs: 0,
    });
    // biome-ignore lint/suspicious/noTemplateCurlyInString: dpkg-query's own ${Field} syntax
    const format = '${Package} ${Essential} ${Status}\n';
    const { stdout } = await run(dpkgQuery, ['-W', `--showformat=${format}`]);
    const candidates = stdout
      .split('\n')
      .map((line) => line.split(' '))
      .filter(([name, essential, , , status]) => name && essential !== 'yes' && status === 'installed')
      .map(([name]) => name!)
      .filter((name) => /^[a-z0-9][a-z0-9+.-]+$/.test(name));
    // Those no installed package depends on (one apt-cache run), then one apt would remove alone.
    const { stdout: reverse } = await run(
      'apt-cache',
      [
        ...noCache,
        'rdepends',
        '--installed',
        '--no-suggests',
        '--no-recommends',
        '--no-conflicts',
        '--no-breaks',
      ].concat(['--no-replaces', '--no-enhances', ...candidates.slice(0, 400)]),
      { maxBuffer: 16 * 1024 * 1024 },
    );
    const depended = new Set<string>();
    let current = '';
    for (const line of reverse.split('\n')) {
      if (line === 'Reverse Depends:' || line === '') continue;
      if (line.startsWith(' ')) depended.add(current);
      else current = line.trim();
    }
    for (const name of candidates
      .slice(0, 400)
      .filter((n) => !depended.has(n))
      .slice(0, 5)) {
      const removal = await run(aptGetWrapper, ['-y', 'remove', name]).catch(() => undefined);
      if (removal && removal.stdout.match(/^Remv /gm)?.length === 1) {
        leaf = name;
        break;
      }
    }
  });

  after(async () => {
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  test('a hold is what dpkg reports; apt refuses to change the held package; the agent removes it, released', async (t) => {
    if (!leaf) {
      t.skip('no installed package apt would remove on its own');
      return;
    }
    const version = await apt.installedVersion(leaf);
    assert.ok(version, `${leaf} is installed`);
    assert.equal(await apt.isHeld(leaf), false);

    await apt.hold(leaf);
    assert.equal(await apt.isHeld(leaf), true);
    await apt.hold(leaf); // idempotent, as a re-run journal action needs
    // What unattended-upgrades or an admin's `apt-get -y` gets: a refusal.
    await assert.rejects(run(aptGetWrapper, ['-q', '-y', 'remove', leaf]), (error: { stderr?: string }) =>
      /Held packages were changed and -y was used without --allow-change-held-packages/.test(
        error.stderr ?? '',
      ),
    );
    assert.equal(await apt.isHeld(leaf), true);

    // The agent's pinned install of a held package (its own version: nothing to do) is not refused.
    await apt.install(leaf, version);
    // Its removal releases the hold, then removes (simulated) with --allow-change-held-packages.
    await apt.remove(leaf);
    assert.equal(await apt.isHeld(leaf), false);
    await apt.release(leaf); // not held: nothing to do
    assert.equal(await apt.installedVersion(leaf), version, 'apt-get only simulated');
  });
});
