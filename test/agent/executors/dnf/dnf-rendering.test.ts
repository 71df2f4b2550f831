// The dnf backend's pure parts: the .repo file it writes, the command lines it runs, the answers it
// parses, and the contract's version matching (NEVRA: epoch, version, release).

import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  dnfInstallArgs,
  dnfRemoveArgs,
  makecacheArgs,
  parseRpmQuery,
  parseVersionlockList,
  rpmQueryArgs,
  versionlockArgs,
} from '../../../../src/agent/executors/dnf/dnf-commands.ts';
import {
  dnfRepository,
  keyFile,
  renderRepoFile,
  repoFilePath,
} from '../../../../src/agent/executors/dnf/dnf-repo-file.ts';
import { dnfVersionMatches, parseEvr } from '../../../../src/api/packages/dnf/dnf-rules.ts';
import type { RenderedRepository } from '../../../../src/api/types.ts';

const KEY = '-----BEGIN PGP PUBLIC KEY BLOCK-----\n\nmQ==\n-----END PGP PUBLIC KEY BLOCK-----';

const rendered = (extra: Partial<RenderedRepository> = {}): RenderedRepository =>
  ({
    name: 'k8s',
    manager: 'dnf',
    uri: 'https://pkgs.k8s.io/core:/stable:/v1.33/rpm/',
    components: [],
    ...extra,
  }) as RenderedRepository;

test('a repository with a key: one section, gpgcheck on, gpgkey naming its own key file', () => {
  const repository = dnfRepository(rendered({ signingKey: { data: KEY, encoding: 'armored' } }));
  assert.equal(repoFilePath('k8s'), '/etc/yum.repos.d/nodeherd-k8s.repo');
  assert.equal(keyFile(repository)?.path, '/etc/pki/rpm-gpg/nodeherd-k8s.asc');
  assert.equal(
    renderRepoFile(repository),
    [
      '# Managed by nodeherd: changes are overwritten.',
      '[nodeherd-k8s]',
      'name=nodeherd k8s',
      'baseurl=https://pkgs.k8s.io/core:/stable:/v1.33/rpm/',
      'enabled=1',
      'gpgcheck=1',
      'gpgkey=file:///etc/pki/rpm-gpg/nodeherd-k8s.asc',
      'skip_if_unavailable=0',
      '',
    ].join('\n'),
  );
  // Under an installroot, dnf reads gpgkey= from the host's paths: the root is prefixed.
  assert.match(
    renderRepoFile(repository, '/tmp/root'),
    /^gpgkey=file:\/\/\/tmp\/root\/etc\/pki\/rpm-gpg\/nodeherd-k8s\.asc$/m,
  );
});

test('without a key: gpgcheck stays on, checked against the keys the RPM database trusts', () => {
  const text = renderRepoFile(dnfRepository(rendered()));
  assert.match(text, /^gpgcheck=1$/m);
  assert.doesNotMatch(text, /gpgkey/);
  assert.match(renderRepoFile(dnfRepository(rendered({ gpgcheck: false }))), /^gpgcheck=0$/m);
});

test('no value can start a line of the .repo file or a second section', () => {
  for (const uri of ['https://x/\n[evil]', 'https://x/ gpgcheck=0', 'https://x/#', 'ftp://x/']) {
    assert.throws(() => renderRepoFile(dnfRepository(rendered({ uri }))), /invalid uri/, uri);
  }
  assert.throws(() => repoFilePath('../x'), /invalid repository name/);
  assert.throws(() => repoFilePath('a\nb'), /invalid repository name/);
  assert.throws(() => dnfRepository(rendered({ suites: ['stable'] })), /suites are apt's/);
  assert.throws(
    () => dnfRepository(rendered({ signingKey: { data: 'mQ==', encoding: 'base64' } })),
    /armored key only/,
  );
  assert.throws(
    () =>
      renderRepoFile(
        dnfRepository(rendered({ gpgcheck: false, signingKey: { data: KEY, encoding: 'armored' } })),
      ),
    /pointless/,
  );
});

test('command lines: pinned install as name-version past the lock, removal without autoremove', () => {
  const target = { installroot: '/r', releasever: '9' };
  assert.deepEqual(makecacheArgs({}), ['-y', '--refresh', 'makecache']);
  assert.deepEqual(dnfInstallArgs({}, 'kubelet', '1.33.2'), [
    '-y',
    '--disableplugin=versionlock',
    '--setopt=install_weak_deps=False',
    'install',
    'kubelet-1.33.2',
  ]);
  assert.deepEqual(dnfInstallArgs(target, 'kubelet').slice(0, 5), [
    '-y',
    '--installroot=/r',
    '--setopt=reposdir=/r/etc/yum.repos.d',
    '--setopt=pluginconfpath=/r/etc/dnf/plugins',
    '--releasever=9',
  ]);
  assert.deepEqual(dnfRemoveArgs({}, 'htop'), [
    '-y',
    '--disableplugin=versionlock',
    '--noautoremove',
    'remove',
    'htop',
  ]);
  assert.deepEqual(versionlockArgs({}, 'add', 'kubelet'), ['-y', 'versionlock', 'add', 'kubelet']);
  assert.deepEqual(rpmQueryArgs(target, 'kubelet'), [
    '--root',
    '/r',
    '-q',
    '--qf',
    '%{EPOCH}:%{VERSION}-%{RELEASE}\\n',
    'kubelet',
  ]);
  for (const name of ['-y', '--setopt=gpgcheck=0', 'a b', 'curl:amd64', '']) {
    assert.throws(() => dnfInstallArgs({}, name), /invalid package name/, name);
  }
  for (const version of ['1-2-3', '1.0 ', '-1', '1.0\n']) {
    assert.throws(() => dnfInstallArgs({}, 'curl', version), /invalid package version/, version);
  }
  assert.throws(() => makecacheArgs({ releasever: '9 --nogpgcheck' }), /invalid releasever/);
});

test("rpm's and versionlock's answers", () => {
  assert.equal(parseRpmQuery('(none):1.0-1\n'), '1.0-1');
  assert.equal(parseRpmQuery('0:1.0-1\n'), '1.0-1');
  assert.equal(parseRpmQuery('2:1.0-1.el9\n'), '2:1.0-1.el9');
  assert.equal(parseRpmQuery('(none):5.14.0-1.el9\n(none):5.14.0-2.el9\n'), '5.14.0-2.el9');
  assert.equal(parseRpmQuery('package x is not installed\n'), undefined);
  const locks = parseVersionlockList(
    '# Added lock on Sun Nov 29\nnhhello-0:1.0-1.*\nkube-let-2:1.33.2-150500.1.1.*\n!excluded-0:1-1.*\nLast metadata expiration check: 0:00:01 ago\n',
  );
  assert.deepEqual([...locks].sort(), ['kube-let', 'nhhello']);
});

test('version matching: a pin without a release matches any release, an epoch only when named', () => {
  assert.deepEqual(parseEvr('2:1.33.2-150500.1.1'), { epoch: '2', version: '1.33.2', release: '150500.1.1' });
  assert.deepEqual(parseEvr('1.33.2'), { epoch: '0', version: '1.33.2' });
  const cases: [string, string, boolean][] = [
    ['1.33.2', '1.33.2-150500.1.1', true],
    ['1.33.2', '1.33.20-1', false],
    ['1.33.2-150500.1.1', '1.33.2-150500.1.1', true],
    ['1.33.2-150500.1.1', '1.33.2-150500.1.2', false],
    ['1.33.*', '1.33.7-1.el9', true],
    ['1.33*', '1.33.7-1.el9', true],
    ['1.34.*', '1.33.7-1.el9', false],
    ['1.2', '3:1.2-1', true],
    ['3:1.2', '3:1.2-1', true],
    ['0:1.2', '3:1.2-1', false],
    ['0:1.2-1', '1.2-1', true],
  ];
  for (const [pin, installed, expected] of cases) {
    assert.equal(dnfVersionMatches(pin, installed), expected, `${pin} vs ${installed}`);
  }
});
