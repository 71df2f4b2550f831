import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { validateNodeConfig, validators } from '../../src/api/validation.ts';

const KEY = '-----BEGIN PGP PUBLIC KEY BLOCK-----\nmQINBF\n-----END PGP PUBLIC KEY BLOCK-----\n';

function nodeConfig(spec: unknown): Record<string, unknown> {
  return { apiVersion: 'nodeherd.io/v1alpha1', kind: 'NodeConfig', metadata: { name: 'c' }, spec };
}

const file = (path: string, extra: Record<string, unknown> = {}) => ({
  path,
  content: { inline: { data: 'x' } },
  ...extra,
});

/** [field, type] pairs, in order, for a compact exact comparison. */
function causesOf(spec: unknown): [string, string][] {
  return validateNodeConfig(nodeConfig(spec)).map((c) => [c.field, c.type]);
}

describe('validateNodeConfig accepts', () => {
  const valid: [string, unknown][] = [
    ['an empty spec', {}],
    [
      'a complete config',
      {
        files: [
          file('/etc/foo.conf', { mode: 0o600, owner: 'root', group: '0' }),
          { path: '/etc/bin.dat', content: { inline: { data: 'AAEC\nAw==', encoding: 'base64' } } },
          {
            path: '/etc/secret',
            content: { secretRef: { namespace: 'nodeherd', name: 'tls', key: 'tls.key' } },
          },
        ],
        units: [
          { name: 'foo.service', content: '[Service]\nExecStart=/bin/true', filePaths: ['/etc/foo.conf'] },
          {
            name: 'kubelet.service',
            dropIns: [{ name: '10-nodeherd.conf', content: '[Service]' }],
            packages: ['kubelet'],
          },
          { name: 'getty@.service', content: '[Unit]', state: 'stopped', enabled: false },
          { name: 'getty@tty1.service', state: 'running' },
          {
            name: 'web.service',
            content: '[Service]',
            disruption: 'Reload',
            healthProbe: {
              http: { url: 'http://127.0.0.1:8080/healthz', expectStatus: 204 },
              timeoutSeconds: 5,
            },
          },
          { name: 'dev-disk-by\\x2duuid-abc.mount', content: '[Mount]' },
        ],
        repositories: [
          {
            name: 'kubernetes',
            uri: 'https://pkgs.k8s.io/core:/stable:/v1.31/deb/',
            suites: ['/'],
            signingKey: { data: KEY },
          },
          {
            name: 'debian',
            uri: 'http://deb.debian.org/debian',
            suites: ['bookworm'],
            components: ['main'],
            architectures: ['amd64'],
          },
        ],
        packages: [
          { name: 'htop' },
          { name: 'kubelet', version: '1.31.2-1.1' },
          { name: 'nano', state: 'absent' },
          { name: 'libc6:amd64', version: '2:2.36-*' },
          { name: 'curl', manager: 'apt' },
        ],
        disruptionPolicies: {
          files: [
            { path: '/etc/containerd/**', action: 'Drain' },
            { path: '/etc/motd', action: 'None' },
          ],
          units: [{ name: 'containerd.service', action: 'Drain' }],
          packages: [{ name: 'linux-image-amd64', action: 'Reboot' }],
          default: 'None',
        },
      },
    ],
  ];
  for (const [name, spec] of valid) {
    test(name, () => assert.deepEqual(causesOf(spec), []));
  }
});

describe('validateNodeConfig refuses, with exact field paths', () => {
  const cases: [string, unknown, [string, string][]][] = [
    ['a missing spec', undefined, [['spec', 'FieldValueRequired']]],
    ['files that is not a list', { files: {} }, [['spec.files', 'FieldValueTypeInvalid']]],
    ['a relative path', { files: [file('etc/foo')] }, [['spec.files[0].path', 'FieldValueInvalid']]],
    ['a path with ..', { files: [file('/etc/../foo')] }, [['spec.files[0].path', 'FieldValueInvalid']]],
    ['a path with .', { files: [file('/etc/./foo')] }, [['spec.files[0].path', 'FieldValueInvalid']]],
    ['a path with //', { files: [file('/etc//foo')] }, [['spec.files[0].path', 'FieldValueInvalid']]],
    [
      'a path with a trailing /',
      { files: [file('/etc/foo/')] },
      [['spec.files[0].path', 'FieldValueInvalid']],
    ],
    ['the root path', { files: [file('/')] }, [['spec.files[0].path', 'FieldValueInvalid']]],
    ['a path with a newline', { files: [file('/etc/fo\no')] }, [['spec.files[0].path', 'FieldValueInvalid']]],
    [
      'a path that is too long',
      { files: [file(`/${'a'.repeat(4095)}`)] },
      [['spec.files[0].path', 'FieldValueInvalid']],
    ],
    [
      'a missing path',
      { files: [{ content: { inline: { data: '' } } }] },
      [['spec.files[0].path', 'FieldValueRequired']],
    ],
    [
      'a path under /proc',
      { files: [file('/proc/sys/vm/swappiness')] },
      [['spec.files[0].path', 'FieldValueForbidden']],
    ],
    [
      'a path under /sys',
      { files: [file('/sys/kernel/mm/x')] },
      [['spec.files[0].path', 'FieldValueForbidden']],
    ],
    ['a path under /dev', { files: [file('/dev/sda')] }, [['spec.files[0].path', 'FieldValueForbidden']]],
    ['a path under /run', { files: [file('/run/foo')] }, [['spec.files[0].path', 'FieldValueForbidden']]],
    [
      'the agent state dir',
      { files: [file('/var/lib/nodeherd/last-applied.json')] },
      [['spec.files[0].path', 'FieldValueForbidden']],
    ],
    [
      'a unit file as a file',
      { files: [file('/etc/systemd/system/foo.service')] },
      [['spec.files[0].path', 'FieldValueForbidden']],
    ],
    [
      'a drop-in as a file',
      { files: [file('/lib/systemd/system/foo.service.d/x.conf')] },
      [['spec.files[0].path', 'FieldValueForbidden']],
    ],
    [
      'a reserved apt file',
      { files: [file('/etc/apt/sources.list.d/nodeherd-x.sources')] },
      [['spec.files[0].path', 'FieldValueForbidden']],
    ],
    [
      'a reserved apt keyring',
      { files: [file('/etc/apt/keyrings/nodeherd-x.asc')] },
      [['spec.files[0].path', 'FieldValueForbidden']],
    ],
    [
      'a duplicate path',
      { files: [file('/etc/a'), file('/etc/b'), file('/etc/a')] },
      [['spec.files[2].path', 'FieldValueDuplicate']],
    ],
    [
      'a mode above 07777',
      { files: [file('/etc/a', { mode: 0o10000 })] },
      [['spec.files[0].mode', 'FieldValueInvalid']],
    ],
    [
      'a negative mode',
      { files: [file('/etc/a', { mode: -1 })] },
      [['spec.files[0].mode', 'FieldValueInvalid']],
    ],
    [
      'a mode that is a string',
      { files: [file('/etc/a', { mode: '0644' })] },
      [['spec.files[0].mode', 'FieldValueTypeInvalid']],
    ],
    [
      'a bad owner',
      { files: [file('/etc/a', { owner: 'Root User' })] },
      [['spec.files[0].owner', 'FieldValueInvalid']],
    ],
    ['a missing content', { files: [{ path: '/etc/a' }] }, [['spec.files[0].content', 'FieldValueRequired']]],
    [
      'an empty content',
      { files: [{ path: '/etc/a', content: {} }] },
      [['spec.files[0].content', 'FieldValueRequired']],
    ],
    [
      'inline and secretRef together',
      {
        files: [
          {
            path: '/etc/a',
            content: { inline: { data: '' }, secretRef: { namespace: 'nodeherd', name: 'b', key: 'c' } },
          },
        ],
      },
      [['spec.files[0].content', 'FieldValueForbidden']],
    ],
    [
      'invalid base64',
      { files: [{ path: '/etc/a', content: { inline: { data: 'abc', encoding: 'base64' } } }] },
      [['spec.files[0].content.inline.data', 'FieldValueInvalid']],
    ],
    [
      'an unknown encoding',
      { files: [{ path: '/etc/a', content: { inline: { data: 'abc', encoding: 'hex' } } }] },
      [['spec.files[0].content.inline.encoding', 'FieldValueNotSupported']],
    ],
    [
      'a file above 1 MiB decoded',
      { files: [{ path: '/etc/a', content: { inline: { data: 'x'.repeat(1024 * 1024 + 1) } } }] },
      [
        ['spec.files[0].content.inline.data', 'FieldValueTooLong'],
        ['spec', 'FieldValueTooLong'],
      ],
    ],
    [
      'more than 1 MiB of content in total',
      { files: [file('/etc/a'), { path: '/etc/b', content: { inline: { data: 'x'.repeat(1024 * 1024) } } }] },
      [['spec', 'FieldValueTooLong']],
    ],
    [
      'a secretRef with a bad namespace and a missing key',
      { files: [{ path: '/etc/a', content: { secretRef: { namespace: 'Kube_System', name: 'tls' } } }] },
      [
        ['spec.files[0].content.secretRef.namespace', 'FieldValueNotSupported'],
        ['spec.files[0].content.secretRef.key', 'FieldValueRequired'],
      ],
    ],
    [
      'a Secret version written by a user',
      {
        files: [
          {
            path: '/etc/a',
            content: { secretRef: { namespace: 'nodeherd', name: 'b', key: 'c', resourceVersion: '5' } },
          },
        ],
      },
      [['spec.files[0].content.secretRef.resourceVersion', 'FieldValueForbidden']],
    ],
    ['a unit without a name', { units: [{ content: '' }] }, [['spec.units[0].name', 'FieldValueRequired']]],
    [
      'a unit name without suffix',
      { units: [{ name: 'kubelet' }] },
      [['spec.units[0].name', 'FieldValueInvalid']],
    ],
    [
      'a unit name with a space',
      { units: [{ name: 'my unit.service' }] },
      [['spec.units[0].name', 'FieldValueInvalid']],
    ],
    ['a scope unit', { units: [{ name: 'session-1.scope' }] }, [['spec.units[0].name', 'FieldValueInvalid']]],
    [
      'a unit name too long',
      { units: [{ name: `${'a'.repeat(250)}.service` }] },
      [['spec.units[0].name', 'FieldValueInvalid']],
    ],
    [
      'a duplicate unit',
      { units: [{ name: 'a.service' }, { name: 'a.service' }] },
      [['spec.units[1].name', 'FieldValueDuplicate']],
    ],
    [
      'an unknown state',
      { units: [{ name: 'a.service', state: 'paused' }] },
      [['spec.units[0].state', 'FieldValueNotSupported']],
    ],
    [
      'enabled as a string',
      { units: [{ name: 'a.service', enabled: 'yes' }] },
      [['spec.units[0].enabled', 'FieldValueTypeInvalid']],
    ],
    [
      'a running template',
      { units: [{ name: 'a@.service', content: '', state: 'running' }] },
      [['spec.units[0].state', 'FieldValueForbidden']],
    ],
    [
      'a drop-in not ending in .conf',
      { units: [{ name: 'a.service', dropIns: [{ name: '10-x', content: '' }] }] },
      [['spec.units[0].dropIns[0].name', 'FieldValueInvalid']],
    ],
    [
      'a drop-in with a slash',
      { units: [{ name: 'a.service', dropIns: [{ name: '../x.conf', content: '' }] }] },
      [['spec.units[0].dropIns[0].name', 'FieldValueInvalid']],
    ],
    [
      'a duplicate drop-in and one without content',
      { units: [{ name: 'a.service', dropIns: [{ name: 'x.conf', content: '' }, { name: 'x.conf' }] }] },
      [
        ['spec.units[0].dropIns[1].name', 'FieldValueDuplicate'],
        ['spec.units[0].dropIns[1].content', 'FieldValueRequired'],
      ],
    ],
    [
      'relative and duplicate filePaths',
      { units: [{ name: 'a.service', filePaths: ['etc/a', '/etc/b', '/etc/b'] }] },
      [
        ['spec.units[0].filePaths[0]', 'FieldValueInvalid'],
        ['spec.units[0].filePaths[2]', 'FieldValueDuplicate'],
      ],
    ],
    [
      'a bad unit package',
      { units: [{ name: 'a.service', packages: ['-kubelet'] }] },
      [['spec.units[0].packages[0]', 'FieldValueInvalid']],
    ],
    [
      'an unknown disruption',
      { units: [{ name: 'a.service', disruption: 'Kill' }] },
      [['spec.units[0].disruption', 'FieldValueNotSupported']],
    ],
    [
      'a probe with neither http nor exec',
      { units: [{ name: 'a.service', healthProbe: { timeoutSeconds: 5 } }] },
      [['spec.units[0].healthProbe', 'FieldValueRequired']],
    ],
    [
      'a probe with both http and exec',
      {
        units: [
          { name: 'a.service', healthProbe: { http: { url: 'http://x/' }, exec: { command: ['true'] } } },
        ],
      },
      [['spec.units[0].healthProbe', 'FieldValueForbidden']],
    ],
    [
      'a probe with a bad URL, status and timeout',
      {
        units: [
          {
            name: 'a.service',
            healthProbe: { http: { url: 'ftp://x/', expectStatus: 99 }, timeoutSeconds: 0 },
          },
        ],
      },
      [
        ['spec.units[0].healthProbe.http.url', 'FieldValueInvalid'],
        ['spec.units[0].healthProbe.http.expectStatus', 'FieldValueInvalid'],
        ['spec.units[0].healthProbe.timeoutSeconds', 'FieldValueInvalid'],
      ],
    ],
    [
      'a probe with an empty command',
      { units: [{ name: 'a.service', healthProbe: { exec: { command: [] } } }] },
      [['spec.units[0].healthProbe.exec.command', 'FieldValueRequired']],
    ],
    [
      'a probe on a stopped unit',
      { units: [{ name: 'a.service', state: 'stopped', healthProbe: { exec: { command: ['true'] } } }] },
      [['spec.units[0].healthProbe', 'FieldValueForbidden']],
    ],
    [
      'a repository with an upper-case name, an ftp URI and no suites',
      { repositories: [{ name: 'Debian', uri: 'ftp://x' }] },
      [
        ['spec.repositories[0].name', 'FieldValueInvalid'],
        ['spec.repositories[0].uri', 'FieldValueInvalid'],
        ['spec.repositories[0].suites', 'FieldValueRequired'],
      ],
    ],
    [
      'a repository without components',
      { repositories: [{ name: 'd', uri: 'http://x', suites: ['bookworm'] }] },
      [['spec.repositories[0].components', 'FieldValueRequired']],
    ],
    [
      'a flat repository with components',
      { repositories: [{ name: 'd', uri: 'http://x', suites: ['./'], components: ['main'] }] },
      [['spec.repositories[0].components', 'FieldValueForbidden']],
    ],
    [
      'a suite with a space and a bad architecture',
      {
        repositories: [
          { name: 'd', uri: 'http://x', suites: ['a b'], components: ['main'], architectures: ['AMD64'] },
        ],
      },
      [
        ['spec.repositories[0].suites[0]', 'FieldValueInvalid'],
        ['spec.repositories[0].architectures[0]', 'FieldValueInvalid'],
      ],
    ],
    [
      'a signing key that is not armored',
      {
        repositories: [
          { name: 'd', uri: 'http://x', suites: ['s'], components: ['c'], signingKey: { data: 'hello' } },
        ],
      },
      [['spec.repositories[0].signingKey.data', 'FieldValueInvalid']],
    ],
    [
      'a binary signing key that is not base64',
      {
        repositories: [
          {
            name: 'd',
            uri: 'http://x',
            suites: ['s'],
            components: ['c'],
            signingKey: { data: '!!', encoding: 'base64' },
          },
        ],
      },
      [['spec.repositories[0].signingKey.data', 'FieldValueInvalid']],
    ],
    [
      'a duplicate repository',
      {
        repositories: [
          { name: 'd', uri: 'http://x', suites: ['./'] },
          { name: 'd', uri: 'http://y', suites: ['./'] },
        ],
      },
      [['spec.repositories[1].name', 'FieldValueDuplicate']],
    ],
    [
      'a repository and a package for a package manager nodeherd does not know',
      {
        repositories: [{ name: 'd', manager: 'pacman', uri: 'http://x', suites: ['./'] }],
        packages: [{ name: 'htop', manager: 'pacman' }],
      },
      [
        ['spec.repositories[0].manager', 'FieldValueNotSupported'],
        ['spec.packages[0].manager', 'FieldValueNotSupported'],
      ],
    ],
    [
      'a package with a bad name',
      { packages: [{ name: 'Htop' }] },
      [['spec.packages[0].name', 'FieldValueInvalid']],
    ],
    [
      'a package with a bad version',
      { packages: [{ name: 'htop', version: '1.0 beta' }] },
      [['spec.packages[0].version', 'FieldValueInvalid']],
    ],
    [
      'an absent package with a version',
      { packages: [{ name: 'htop', version: '1', state: 'absent' }] },
      [['spec.packages[0].version', 'FieldValueForbidden']],
    ],
    [
      'an unknown package state',
      { packages: [{ name: 'htop', state: 'latest' }] },
      [['spec.packages[0].state', 'FieldValueNotSupported']],
    ],
    [
      'a duplicate package',
      { packages: [{ name: 'htop' }, { name: 'htop', version: '1' }] },
      [['spec.packages[1].name', 'FieldValueDuplicate']],
    ],
    [
      'a policy with a mid-path wildcard and an unknown action',
      { disruptionPolicies: { files: [{ path: '/etc/*/x', action: 'Explode' }] } },
      [
        ['spec.disruptionPolicies.files[0].path', 'FieldValueInvalid'],
        ['spec.disruptionPolicies.files[0].action', 'FieldValueNotSupported'],
      ],
    ],
    [
      'a policy without action, and duplicate policy paths',
      { disruptionPolicies: { files: [{ path: '/etc/a' }, { path: '/etc/a', action: 'None' }] } },
      [
        ['spec.disruptionPolicies.files[0].action', 'FieldValueRequired'],
        ['spec.disruptionPolicies.files[1].path', 'FieldValueDuplicate'],
      ],
    ],
    [
      'unit and package policies with bad names',
      {
        disruptionPolicies: {
          units: [{ name: 'kubelet', action: 'None' }],
          packages: [{ name: '-X', action: 'None' }],
        },
      },
      [
        ['spec.disruptionPolicies.units[0].name', 'FieldValueInvalid'],
        ['spec.disruptionPolicies.packages[0].name', 'FieldValueInvalid'],
      ],
    ],
    [
      'policy and drop-in items that are not objects, each at its index, the items after them still checked',
      {
        units: [{ name: 'a.service', dropIns: ['x', { name: 'bad' }] }],
        disruptionPolicies: {
          files: [null, { path: 'etc/a', action: 'None' }],
          units: [7, { name: 7, action: 'None' }],
          packages: [[], { action: 'None' }],
        },
      },
      [
        ['spec.units[0].dropIns[0]', 'FieldValueTypeInvalid'],
        ['spec.units[0].dropIns[1].name', 'FieldValueInvalid'],
        ['spec.units[0].dropIns[1].content', 'FieldValueRequired'],
        ['spec.disruptionPolicies.files[0]', 'FieldValueTypeInvalid'],
        ['spec.disruptionPolicies.files[1].path', 'FieldValueInvalid'],
        ['spec.disruptionPolicies.units[0]', 'FieldValueTypeInvalid'],
        ['spec.disruptionPolicies.units[1].name', 'FieldValueTypeInvalid'],
        ['spec.disruptionPolicies.units[1].name', 'FieldValueRequired'],
        ['spec.disruptionPolicies.packages[0]', 'FieldValueTypeInvalid'],
        ['spec.disruptionPolicies.packages[1].name', 'FieldValueRequired'],
      ],
    ],
    [
      'files, units, repositories and packages that are not objects, each at its index',
      { files: [3], units: [true], repositories: ['r'], packages: [null, []] },
      [
        ['spec.files[0]', 'FieldValueTypeInvalid'],
        ['spec.units[0]', 'FieldValueTypeInvalid'],
        ['spec.repositories[0]', 'FieldValueTypeInvalid'],
        ['spec.packages[0]', 'FieldValueTypeInvalid'],
        ['spec.packages[1]', 'FieldValueTypeInvalid'],
      ],
    ],
    [
      'an empty file path or unit name is missing; one of another type is only that',
      {
        files: [file(''), file(7 as unknown as string)],
        units: [{ name: '' }, { name: 7 }],
      },
      [
        ['spec.files[0].path', 'FieldValueRequired'],
        ['spec.files[1].path', 'FieldValueTypeInvalid'],
        ['spec.units[0].name', 'FieldValueRequired'],
        ['spec.units[1].name', 'FieldValueTypeInvalid'],
      ],
    ],
    [
      'a default policy that needs a unit',
      { disruptionPolicies: { default: 'Restart' } },
      [['spec.disruptionPolicies.default', 'FieldValueNotSupported']],
    ],
  ];
  for (const [name, spec, expected] of cases) {
    test(name, () => assert.deepEqual(causesOf(spec), expected));
  }
});

describe('cause messages', () => {
  test('read like apimachinery field errors and never echo a whole file', () => {
    const [relative] = validateNodeConfig(nodeConfig({ files: [file('etc/foo')] }));
    assert.equal(relative?.message, 'Invalid value: "etc/foo": must be an absolute path');
    const [tooBig] = validateNodeConfig(
      nodeConfig({
        files: [{ path: '/etc/a', content: { inline: { data: '@'.repeat(5000), encoding: 'base64' } } }],
      }),
    );
    assert.equal(tooBig?.field, 'spec.files[0].content.inline.data');
    assert.ok(tooBig!.message.length < 200, tooBig!.message);
    const [proc] = validateNodeConfig(nodeConfig({ files: [file('/proc/x')] }));
    assert.equal(proc?.message, 'Forbidden: nodeherd does not write under /proc');
  });

  test('repositories and packages of apt and dnf: each cause’s field and text', () => {
    const repositories = [
      {
        name: 'a',
        uri: 'ftp://x.example/',
        suites: ['stable'],
        components: ['main'],
        signingKey: { data: 'nope' },
      },
      {
        name: 'b',
        uri: 'https://x.example/a\tb',
        suites: ['./'],
        components: ['main'],
        signingKey: { data: '', encoding: 'base64' },
        gpgcheck: true,
      },
      {
        name: 'c',
        uri: 'https://x.example/',
        suites: ['stable'],
        signingKey: { data: '!!', encoding: 'base64' },
      },
      {
        name: 'd',
        manager: 'dnf',
        suites: [],
        components: ['main'],
        architectures: [],
        signingKey: { data: 'x', encoding: 'base64' },
        gpgcheck: false,
      },
      {
        name: 'e',
        manager: 'dnf',
        uri: 'https://x.example/\ngpgcheck=0',
        suites: ['stable'],
        architectures: ['amd64'],
        signingKey: { data: KEY },
      },
    ];
    const packages = [
      { name: 'Bad Name', version: '1 2' },
      { version: '1.0' },
      { name: 'curl:amd64', manager: 'dnf', version: '7.76.1-26-el9' },
      { name: '-y', manager: 'dnf' },
    ];
    const causes = validateNodeConfig(nodeConfig({ repositories, packages })).map((c) => [
      c.field,
      c.message,
    ]);
    assert.deepEqual(causes, [
      [
        'spec.repositories[0].uri',
        'Invalid value: "ftp://x.example/": must be an http://, https:// or file:// URI',
      ],
      [
        'spec.repositories[0].signingKey.data',
        'Invalid value: "nope": must be an ASCII-armored OpenPGP public key block',
      ],
      [
        'spec.repositories[1].uri',
        'Invalid value: "https://x.example/a\\tb": must not contain whitespace, control characters or #',
      ],
      [
        'spec.repositories[1].components',
        'Forbidden: a flat repository (suite ending in /) has no components',
      ],
      ['spec.repositories[1].gpgcheck', 'Forbidden: dnf only: apt checks every repository’s signature'],
      ['spec.repositories[1].signingKey.data', 'Required value'],
      [
        'spec.repositories[2].components',
        'Required value: at least one component unless the suite ends in / (flat repository)',
      ],
      ['spec.repositories[2].signingKey.data', 'Invalid value: "!!": must be valid base64'],
      ['spec.repositories[3].uri', 'Required value'],
      ['spec.repositories[3].components', 'Forbidden: apt only: a dnf repository has no components'],
      ['spec.repositories[3].architectures', 'Forbidden: apt only: a dnf repository has no architectures'],
      ['spec.repositories[3].signingKey', 'Forbidden: a key is pointless with gpgcheck: false'],
      [
        'spec.repositories[3].signingKey.encoding',
        'Invalid value: "base64": dnf takes an ASCII-armored key only (armored)',
      ],
      [
        'spec.repositories[3].signingKey.data',
        'Invalid value: "x": must be an ASCII-armored OpenPGP public key block',
      ],
      [
        'spec.repositories[4].uri',
        'Invalid value: "https://x.example/\\ngpgcheck=0": must not contain whitespace, control characters or #',
      ],
      ['spec.repositories[4].suites', 'Forbidden: apt only: a dnf repository has no suites'],
      ['spec.repositories[4].architectures', 'Forbidden: apt only: a dnf repository has no architectures'],
      ['spec.packages[0].name', 'Invalid value: "Bad Name": must be a Debian package name'],
      ['spec.packages[0].version', 'Invalid value: "1 2": must be a Debian version'],
      ['spec.packages[1].name', 'Required value'],
      ['spec.packages[2].name', 'Invalid value: "curl:amd64": must be an RPM package name'],
      [
        'spec.packages[2].version',
        'Invalid value: "7.76.1-26-el9": must be an RPM [epoch:]version[-release]',
      ],
      ['spec.packages[3].name', 'Invalid value: "-y": must be an RPM package name'],
    ]);
  });

  test('a path merely starting like a refused one is fine', () => {
    assert.deepEqual(causesOf({ files: [file('/procedures/a'), file('/runner/b'), file('/devices/c')] }), []);
  });
});

test('the validator registry dispatches by kind', () => {
  assert.deepEqual(
    validators.NodeConfig(nodeConfig({ files: [file('x')] })).map((c) => c.field),
    ['spec.files[0].path'],
  );
  assert.deepEqual(
    validators.NodeConfig('not an object').map((c) => c.type),
    ['FieldValueTypeInvalid'],
  );
});
