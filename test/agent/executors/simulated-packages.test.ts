import assert from 'node:assert/strict';
import { test } from 'node:test';
import { SimulatedPackages } from '../../../src/agent/executors/simulated-packages.ts';
import { InjectedFailureError } from '../../../src/agent/executors/simulation-recorder.ts';
import type { RenderedRepository } from '../../../src/api/types.ts';

const docker: RenderedRepository = {
  name: 'docker',
  uri: 'https://download.docker.com/linux/debian',
  suites: ['bookworm'],
  components: ['stable'],
  signingKey: {
    data: '-----BEGIN PGP PUBLIC KEY BLOCK-----\nmQINBGN\n-----END PGP PUBLIC KEY BLOCK-----',
    encoding: 'armored',
  },
};

test('installs the newest available version, or the pinned one, and removes', async () => {
  const apt = new SimulatedPackages({ available: { jq: ['1.6-2', '1.7.1-3'] }, installed: { curl: '7.88' } });
  await apt.install('jq');
  assert.equal(await apt.installedVersion('jq'), '1.7.1-3');
  await apt.install('jq', '1.6-2'); // a downgrade, as a rollback needs
  assert.deepEqual(apt.installed(), { curl: '7.88', jq: '1.6-2' });
  await apt.remove('jq');
  await apt.remove('jq');
  assert.equal(await apt.installedVersion('jq'), undefined);
});

test('unknown packages and versions fail like apt', async () => {
  const apt = new SimulatedPackages({ available: { jq: ['1.6-2'] } });
  await assert.rejects(apt.install('nope'), /Unable to locate package nope/);
  await assert.rejects(apt.install('jq', '9.9'), /Version '9.9' for 'jq' was not found/);
  await assert.rejects(apt.install('-y'), /invalid package name/);
});

test("a repository's packages are installable only after add and update", async () => {
  const apt = new SimulatedPackages({
    repositoryPackages: { docker: { 'docker-ce': ['5:27.3.1-1', '5:27.4.0-1'] } },
  });
  await apt.addRepository(docker);
  await assert.rejects(apt.install('docker-ce'), /Unable to locate package/);
  await apt.update();
  await apt.install('docker-ce', '5:27.3.1-1');
  assert.equal(await apt.installedVersion('docker-ce'), '5:27.3.1-1');
  await apt.removeRepository('docker');
  await apt.update();
  // Still installed, so apt knows the package (dpkg's status), just not that version.
  await assert.rejects(
    apt.install('docker-ce', '5:27.4.0-1'),
    /Version '5:27.4.0-1' for 'docker-ce' was not found/,
  );
  assert.equal(
    await apt.installedVersion('docker-ce'),
    '5:27.3.1-1',
    'removing a repository uninstalls nothing',
  );
});

test('holds keep unattended upgrades off a package; the agent itself still moves it; removal releases', async () => {
  const apt = new SimulatedPackages({ available: { jq: ['1.6-2', '1.7.1-3'], curl: ['7.88', '8.0'] } });
  await apt.install('jq', '1.6-2');
  await apt.install('curl', '7.88');
  await apt.hold('jq');
  assert.equal(await apt.isHeld('jq'), true);
  assert.deepEqual(apt.upgradeUnheld(), ['curl']);
  assert.deepEqual(apt.installed(), { curl: '8.0', jq: '1.6-2' });
  await apt.install('jq', '1.7.1-3'); // the agent's own install moves a held package
  assert.equal(await apt.installedVersion('jq'), '1.7.1-3');
  await apt.release('jq');
  await apt.release('jq'); // releasing what is not held is no error
  assert.deepEqual(apt.held(), []);
  await apt.hold('jq');
  await apt.remove('jq');
  assert.deepEqual(apt.held(), [], 'a removed package is not held');
  await assert.rejects(apt.hold('nope'), /Unable to locate package nope/);
});

test('repositories are validated like the real backend renders them', async () => {
  const apt = new SimulatedPackages();
  await assert.rejects(
    apt.addRepository({ ...docker, signingKey: { data: 'garbage', encoding: 'armored' } }),
    /signing key/,
  );
  await assert.rejects(apt.addRepository({ ...docker, name: 'Bad Name' }), /invalid repository name/);
  assert.deepEqual(apt.repositories(), []);
  assert.equal(apt.calls.length, 0);
});

test('injected failures, durations and the call log', async () => {
  const apt = new SimulatedPackages({ available: { jq: ['1.6-2'] }, durations: { install: 40 } });
  apt.fail('update', undefined, { times: 1, message: 'E: Failed to fetch mirror' });
  await assert.rejects(apt.update(), InjectedFailureError);
  await apt.update();
  const started = performance.now();
  await apt.install('jq');
  assert.ok(performance.now() - started >= 35);
  apt.fail('install', 'jq');
  await assert.rejects(apt.install('jq'), /injected failure: install jq/);
  assert.deepEqual(
    apt.calls.map(({ op, target, ok }) => [op, target, ok]),
    [
      ['update', undefined, false],
      ['update', undefined, true],
      ['install', 'jq', true],
      ['install', 'jq', false],
    ],
  );
});

test('a simulated dnf: RPM names and versions, a pin without release takes the newest matching release, .repo rules', async () => {
  const dnf = new SimulatedPackages({
    manager: 'dnf',
    available: {
      NetworkManager: ['1:1.46.0-1.el9', '1:1.48.10-2.el9'],
      kubelet: ['1.33.1-150500.1.1', '1.33.2-150500.1.1', '1.33.2-150500.1.2'],
    },
  });
  assert.equal(dnf.manager, 'dnf');
  await dnf.install('kubelet', '1.33.2');
  assert.equal(await dnf.installedVersion('kubelet'), '1.33.2-150500.1.2');
  await dnf.install('kubelet', '1.33.1-150500.1.1');
  assert.equal(await dnf.installedVersion('kubelet'), '1.33.1-150500.1.1');
  await dnf.install('NetworkManager', '1.46.0');
  assert.equal(await dnf.installedVersion('NetworkManager'), '1:1.46.0-1.el9');
  await assert.rejects(dnf.install('kubelet', '1.34.0'), /not found/);
  await assert.rejects(
    new SimulatedPackages().install('NetworkManager'),
    /invalid package name/,
    'apt takes Debian names only',
  );
  await assert.rejects(dnf.install('curl:amd64'), /invalid package name/);
  await assert.rejects(dnf.install('kubelet', '1-2-3'), /invalid package version/);
  await dnf.addRepository({
    name: 'k8s',
    manager: 'dnf',
    uri: 'https://pkgs.k8s.io/core:/stable:/v1.33/rpm/',
    components: [],
  });
  await assert.rejects(dnf.addRepository(docker), /suites are apt's/);
});
