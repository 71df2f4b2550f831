import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  type AptRepository,
  keyringFile,
  keyringPaths,
  renderSources,
  sourcesPath,
} from '../../../../src/agent/executors/apt/apt-sources.ts';

const ARMORED =
  '-----BEGIN PGP PUBLIC KEY BLOCK-----\n\nmQINBGNbase64body\n=abcd\n-----END PGP PUBLIC KEY BLOCK-----';
// 0x99 is the old-format tag byte of an OpenPGP public-key packet.
const BINARY = Buffer.from([0x99, 0x02, 0x0d, 0x04, 0x63, 0x5b]).toString('base64');

const kubernetes: AptRepository = {
  name: 'kubernetes',
  uri: 'https://pkgs.k8s.io/core:/stable:/v1.31/deb/',
  suites: ['/'],
  components: [],
  signingKey: ARMORED,
};

const docker: AptRepository = {
  name: 'docker',
  uri: 'https://download.docker.com/linux/debian',
  suites: ['bookworm'],
  components: ['stable'],
  architectures: ['amd64', 'arm64'],
  signingKey: BINARY,
};

test('paths are namespaced by nodeherd and the repository name', () => {
  assert.equal(sourcesPath('docker'), '/etc/apt/sources.list.d/nodeherd-docker.sources');
  assert.deepEqual(keyringPaths('docker'), {
    armored: '/etc/apt/keyrings/nodeherd-docker.asc',
    binary: '/etc/apt/keyrings/nodeherd-docker.gpg',
  });
  assert.throws(() => sourcesPath('../evil'), /invalid repository name/);
  assert.throws(() => sourcesPath('Upper'), /invalid repository name/);
});

test('renders a deb822 source with components, architectures and its own Signed-By', () => {
  assert.equal(
    renderSources(docker, '/etc/apt/keyrings/nodeherd-docker.gpg'),
    [
      '# Managed by nodeherd: changes are overwritten.',
      'Types: deb',
      'URIs: https://download.docker.com/linux/debian',
      'Suites: bookworm',
      'Components: stable',
      'Architectures: amd64 arm64',
      'Signed-By: /etc/apt/keyrings/nodeherd-docker.gpg',
      '',
    ].join('\n'),
  );
});

test('a flat repository has no Components line', () => {
  const rendered = renderSources(kubernetes, '/etc/apt/keyrings/nodeherd-kubernetes.asc');
  assert.match(rendered, /^Suites: \/$/m);
  assert.doesNotMatch(rendered, /Components/);
  assert.throws(() => renderSources({ ...kubernetes, components: ['main'] }, '/k'), /takes no components/);
});

test('refuses fields that would break or inject into the deb822 stanza', () => {
  assert.throws(() => renderSources({ ...docker, suites: [] }, '/k'), /no suites/);
  assert.throws(() => renderSources({ ...docker, components: [] }, '/k'), /components are required/);
  assert.throws(
    () => renderSources({ ...docker, suites: ['bookworm\nTrusted: yes'] }, '/k'),
    /invalid suites/,
  );
  assert.throws(() => renderSources({ ...docker, uri: 'not a uri' }, '/k'), /invalid uri/);
  assert.throws(
    () => renderSources({ ...docker, architectures: ['amd64 #'] }, '/k'),
    /invalid architectures/,
  );
});

test('an armored key becomes .asc, a base64 binary keyring becomes .gpg', () => {
  const armored = keyringFile(kubernetes)!;
  assert.equal(armored.path, '/etc/apt/keyrings/nodeherd-kubernetes.asc');
  assert.equal(armored.content.toString(), `${ARMORED}\n`);
  const binary = keyringFile(docker)!;
  assert.equal(binary.path, '/etc/apt/keyrings/nodeherd-docker.gpg');
  assert.deepEqual([...binary.content], [0x99, 0x02, 0x0d, 0x04, 0x63, 0x5b]);
});

test('a repository without a key has no keyring and no Signed-By: apt verifies it with the system keyrings', () => {
  const debian: AptRepository = {
    name: 'debian',
    uri: 'http://deb.debian.org/debian',
    suites: ['bookworm'],
    components: ['main'],
  };
  assert.equal(keyringFile(debian), undefined);
  assert.equal(
    renderSources(debian, undefined),
    [
      '# Managed by nodeherd: changes are overwritten.',
      'Types: deb',
      'URIs: http://deb.debian.org/debian',
      'Suites: bookworm',
      'Components: main',
      '',
    ].join('\n'),
  );
});

test('refuses a key that is neither', () => {
  assert.throws(() => keyringFile({ ...docker, signingKey: 'hello world' }), /neither armored nor/);
  assert.throws(
    () => keyringFile({ ...docker, signingKey: Buffer.from('plain text').toString('base64') }),
    /neither/,
  );
  assert.throws(
    () => keyringFile({ ...docker, signingKey: '-----BEGIN PGP PUBLIC KEY BLOCK-----\nabc' }),
    /not terminated/,
  );
});
