// The real apt backend's file side on real files in a temporary root; apt-get itself cannot run
// here (see systemctl-executor.test.ts for the same split).

import assert from 'node:assert/strict';
import { mkdtemp, readdir, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, test } from 'node:test';
import { AptPackageExecutor } from '../../../../src/agent/executors/apt/apt-package-executor.ts';
import type { CommandRunner } from '../../../../src/agent/executors/command-runner.ts';
import { LiveSystemRefusedError } from '../../../../src/agent/executors/live-system-guard.ts';
import type { RenderedRepository } from '../../../../src/api/types.ts';

const ARMORED = '-----BEGIN PGP PUBLIC KEY BLOCK-----\n\nmQINBGN\n-----END PGP PUBLIC KEY BLOCK-----';
const BINARY = Buffer.from([0x99, 0x01, 0x0d]).toString('base64');

const repository: RenderedRepository = {
  name: 'docker',
  uri: 'https://download.docker.com/linux/debian',
  suites: ['bookworm'],
  components: ['stable'],
  signingKey: { data: ARMORED, encoding: 'armored' },
};

let root: string;

beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), 'nodeherd-apt-'));
});

afterEach(async () => {
  await rm(root, { recursive: true, force: true });
});

test('addRepository writes the keyring and a .sources file naming it, both world-readable', async () => {
  const apt = new AptPackageExecutor({ rootDir: root });
  await apt.addRepository(repository);
  const sources = join(root, 'etc/apt/sources.list.d/nodeherd-docker.sources');
  const keyring = join(root, 'etc/apt/keyrings/nodeherd-docker.asc');
  assert.match(await readFile(sources, 'utf8'), /^Signed-By: \/etc\/apt\/keyrings\/nodeherd-docker\.asc$/m);
  assert.equal(await readFile(keyring, 'utf8'), `${ARMORED}\n`);
  assert.equal((await stat(sources)).mode & 0o7777, 0o644);
  assert.equal((await stat(keyring)).mode & 0o7777, 0o644); // apt reads it as _apt
});

test('switching the key format leaves exactly one keyring', async () => {
  const apt = new AptPackageExecutor({ rootDir: root });
  await apt.addRepository(repository);
  await apt.addRepository({ ...repository, signingKey: { data: BINARY, encoding: 'base64' } });
  assert.deepEqual(await readdir(join(root, 'etc/apt/keyrings')), ['nodeherd-docker.gpg']);
  assert.match(
    await readFile(join(root, 'etc/apt/sources.list.d/nodeherd-docker.sources'), 'utf8'),
    /Signed-By: \/etc\/apt\/keyrings\/nodeherd-docker\.gpg/,
  );
});

test('an invalid repository writes nothing', async () => {
  const apt = new AptPackageExecutor({ rootDir: root });
  await assert.rejects(
    apt.addRepository({ ...repository, signingKey: { data: 'nonsense!', encoding: 'armored' } }),
    /signing key/,
  );
  await assert.rejects(apt.addRepository({ ...repository, components: [] }), /components are required/);
  assert.deepEqual(await readdir(root), []);
});

test('removeRepository removes the sources and every keyring, and is idempotent', async () => {
  const apt = new AptPackageExecutor({ rootDir: root });
  await apt.addRepository(repository);
  await apt.removeRepository('docker');
  await apt.removeRepository('docker');
  assert.deepEqual(await readdir(join(root, 'etc/apt/sources.list.d')), []);
  assert.deepEqual(await readdir(join(root, 'etc/apt/keyrings')), []);
});

test('with a root other than / apt-get and dpkg-query are refused before running', async () => {
  const ran: string[] = [];
  const runner: CommandRunner = {
    async run(file) {
      ran.push(file);
      return { code: 0, stdout: '', stderr: '' };
    },
  };
  const apt = new AptPackageExecutor({ rootDir: root, runner });
  await assert.rejects(apt.update(), LiveSystemRefusedError);
  await assert.rejects(apt.install('jq', '1.6-2.1'), LiveSystemRefusedError);
  await assert.rejects(apt.remove('jq'), LiveSystemRefusedError);
  await assert.rejects(apt.installedVersion('jq'), LiveSystemRefusedError);
  await assert.rejects(apt.hold('jq'), LiveSystemRefusedError);
  await assert.rejects(apt.release('jq'), LiveSystemRefusedError);
  assert.deepEqual(ran, []);
});

test('allowed, it passes the pure command lines and the non-interactive environment to the runner', async () => {
  const ran: { file: string; args: string[]; env: Record<string, string | undefined> | undefined }[] = [];
  const runner: CommandRunner = {
    async run(file, args, options) {
      ran.push({ file, args: [...args], env: options?.env });
      if (file === 'dpkg-query' && args.at(-1) === 'jq')
        return { code: 0, stdout: 'install ok installed 1.6-2.1', stderr: '' };
      if (file === 'dpkg-query')
        return { code: 1, stdout: '', stderr: 'dpkg-query: no packages found matching absent' };
      return { code: 0, stdout: '', stderr: '' };
    },
  };
  const apt = new AptPackageExecutor({
    rootDir: root,
    runner,
    allowLiveCommands: true,
    env: { PATH: '/usr/bin' },
  });
  await apt.install('jq', '1.6-2.1');
  assert.equal(await apt.installedVersion('jq'), '1.6-2.1');
  assert.equal(await apt.installedVersion('absent'), undefined);
  assert.deepEqual(ran[0]?.args.at(-1), 'jq=1.6-2.1');
  assert.equal(ran[0]?.file, 'apt-get');
  assert.deepEqual(ran[0]?.env, {
    PATH: '/usr/bin',
    DEBIAN_FRONTEND: 'noninteractive',
    NEEDRESTART_MODE: 'l',
  });
});

test('holds: apt-mark hold; release and remove unhold only a held package, removal after the release', async () => {
  const held = new Set(['kubelet']);
  const ran: string[] = [];
  const runner: CommandRunner = {
    async run(file, args) {
      const name = args.at(-1)!;
      ran.push(`${file} ${args.filter((a) => !a.startsWith('-') && !a.includes('=')).join(' ')}`);
      if (file === 'dpkg-query') {
        if (name === 'absent') return { code: 1, stdout: '', stderr: 'no packages found' };
        return { code: 0, stdout: `${held.has(name) ? 'hold' : 'install'} ok installed 1.0`, stderr: '' };
      }
      if (file === 'apt-mark' && args.includes('unhold')) held.delete(name);
      else if (file === 'apt-mark') held.add(name);
      return { code: 0, stdout: '', stderr: '' };
    },
  };
  const apt = new AptPackageExecutor({ rootDir: root, runner, allowLiveCommands: true });
  assert.equal(await apt.isHeld('kubelet'), true);
  assert.equal(await apt.isHeld('jq'), false);
  assert.equal(await apt.isHeld('absent'), false);
  ran.length = 0;
  await apt.release('jq'); // not held: nothing to do
  await apt.release('absent');
  await apt.hold('jq');
  await apt.remove('kubelet');
  assert.deepEqual(ran, [
    'dpkg-query jq',
    'dpkg-query absent',
    'apt-mark hold jq',
    'dpkg-query kubelet',
    'apt-mark unhold kubelet',
    'apt-get remove kubelet',
  ]);
  assert.deepEqual([...held], ['jq']);
});

// apt-get's own words when another apt holds the lists lock (seen on apt 2.6 in the e2e containers).
const LISTS_LOCKED = {
  code: 100,
  stdout: '',
  stderr:
    'E: Could not get lock /var/lib/apt/lists/lock. It is held by process 40 (apt-get)\n' +
    'E: Unable to lock directory /var/lib/apt/lists/\n',
};

test('a lock apt-get does not wait for itself (lists, archives) is waited for by retrying', async () => {
  const answers = [LISTS_LOCKED, LISTS_LOCKED, { code: 0, stdout: '', stderr: '' }];
  let calls = 0;
  const runner: CommandRunner = {
    async run() {
      return answers[calls++]!;
    },
  };
  const apt = new AptPackageExecutor({
    rootDir: root,
    runner,
    allowLiveCommands: true,
    lockRetryIntervalMs: 1,
  });
  await apt.update();
  assert.equal(calls, 3);
});

test('lock retries stop at the lock wait; other failures are not retried', async () => {
  let calls = 0;
  const locked: CommandRunner = {
    async run() {
      calls++;
      return LISTS_LOCKED;
    },
  };
  const apt = new AptPackageExecutor({
    rootDir: root,
    runner: locked,
    allowLiveCommands: true,
    lockWaitMs: 30,
    lockRetryIntervalMs: 5,
  });
  await assert.rejects(apt.update(), /Could not get lock \/var\/lib\/apt\/lists\/lock/);
  assert.ok(calls >= 2, `retried (${calls} calls)`);

  calls = 0;
  const broken: CommandRunner = {
    async run() {
      calls++;
      return { code: 100, stdout: '', stderr: 'E: Unable to locate package nosuch\n' };
    },
  };
  const failing = new AptPackageExecutor({ rootDir: root, runner: broken, allowLiveCommands: true });
  await assert.rejects(failing.install('nosuch'), /Unable to locate package nosuch/);
  assert.equal(calls, 1);
});
