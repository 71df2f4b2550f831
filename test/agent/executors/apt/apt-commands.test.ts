import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  aptEnvironment,
  aptInstallArgs,
  aptMarkArgs,
  aptRemoveArgs,
  aptUpdateArgs,
  dpkgQueryArgs,
  isAptLockContention,
  parseDpkgQueryHeld,
  parseDpkgQueryOutput,
} from '../../../../src/agent/executors/apt/apt-commands.ts';

test('install is non-interactive about conffiles, waits for the dpkg lock, pins with name=version, moves a held package', () => {
  assert.deepEqual(aptInstallArgs('containerd', '1.7.24-1'), [
    '-q',
    '-y',
    '--no-install-recommends',
    '--allow-downgrades',
    '--allow-change-held-packages',
    '-o',
    'DPkg::Lock::Timeout=300',
    '-o',
    'Dpkg::Options::=--force-confdef',
    '-o',
    'Dpkg::Options::=--force-confold',
    'install',
    'containerd=1.7.24-1',
  ]);
  assert.equal(aptInstallArgs('jq').at(-1), 'jq');
  assert.equal(aptInstallArgs('libc6:amd64', '1:2.36-9').at(-1), 'libc6:amd64=1:2.36-9');
});

test('update fails on unreachable repositories; remove keeps conffiles and removes a held package', () => {
  assert.deepEqual(aptUpdateArgs(), [
    '-q',
    '-o',
    'DPkg::Lock::Timeout=300',
    '-o',
    'APT::Update::Error-Mode=any',
    'update',
  ]);
  assert.deepEqual(aptRemoveArgs('jq'), [
    '-q',
    '-y',
    '--allow-change-held-packages',
    '-o',
    'DPkg::Lock::Timeout=300',
    'remove',
    'jq',
  ]);
});

test('holds: apt-mark hold and unhold, waiting for the dpkg lock; held is the selection dpkg-query reports', () => {
  assert.deepEqual(aptMarkArgs('hold', 'kubelet'), ['-o', 'DPkg::Lock::Timeout=300', 'hold', 'kubelet']);
  assert.deepEqual(aptMarkArgs('unhold', 'kubelet'), ['-o', 'DPkg::Lock::Timeout=300', 'unhold', 'kubelet']);
  assert.throws(() => aptMarkArgs('hold', '--all'), /invalid package name/);
  assert.equal(parseDpkgQueryHeld('hold ok installed 1.31.2-1.1'), true);
  assert.equal(parseDpkgQueryHeld('install ok installed 1.31.2-1.1'), false);
  assert.equal(parseDpkgQueryHeld('hold ok config-files 1.31.2-1.1'), true);
  assert.equal(parseDpkgQueryHeld('unknown ok not-installed '), false);
});

test('names and versions that could be read as options or shell are refused', () => {
  for (const name of ['-y', '--purge', 'a b', 'Jq', 'x;rm', '']) {
    assert.throws(() => aptInstallArgs(name), /invalid package name/, name);
  }
  for (const version of ['-1', 'latest', '1.0 2', '1.0;x', '']) {
    assert.throws(() => aptInstallArgs('jq', version), /invalid package version/, version);
  }
});

test('the environment never prompts and keeps needrestart from restarting services', () => {
  assert.deepEqual(aptEnvironment({ PATH: '/usr/bin', DEBIAN_FRONTEND: 'dialog' }), {
    PATH: '/usr/bin',
    DEBIAN_FRONTEND: 'noninteractive',
    NEEDRESTART_MODE: 'l',
  });
});

test('dpkg-query reports a version only for an installed package', () => {
  // biome-ignore lint/suspicious/noTemplateCurlyInString: dpkg-query's own ${Field} syntax
  assert.deepEqual(dpkgQueryArgs('jq'), ['-W', '--showformat=${Status} ${Version}', 'jq']);
  assert.equal(parseDpkgQueryOutput('install ok installed 1.6-2.1'), '1.6-2.1');
  assert.equal(parseDpkgQueryOutput('hold ok installed 1:2.36-9+deb12u4'), '1:2.36-9+deb12u4');
  assert.equal(parseDpkgQueryOutput('deinstall ok config-files 1.6-2.1'), undefined);
  assert.equal(parseDpkgQueryOutput('unknown ok not-installed '), undefined);
  assert.equal(parseDpkgQueryOutput(''), undefined);
});

test('lock contention is told apart from other apt-get failures by its messages', () => {
  assert.equal(
    isAptLockContention(
      'E: Could not get lock /var/cache/apt/archives/lock. It is held by process 81 (apt-get)\n' +
        'E: Unable to lock directory /var/cache/apt/archives/\n',
    ),
    true,
  );
  assert.equal(isAptLockContention('E: Unable to lock directory /var/lib/apt/lists/\n'), true);
  assert.equal(isAptLockContention('E: Unable to locate package nosuch\n'), false);
  assert.equal(isAptLockContention('W: Could not get lock mentioned in a warning\n'), false);
});
