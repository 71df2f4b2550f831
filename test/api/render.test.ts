import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { describe, test } from 'node:test';
import { hashConfig } from '../../src/api/hash.ts';
import { renderConfigs, renderPool, selectConfigs } from '../../src/api/render.ts';
import type { NodeConfigSpec } from '../../src/api/types.ts';
import { nodeConfig, nodeConfigPool } from '../support/nodeherd-objects.ts';

const inline = (data: string) => ({ inline: { data } });

describe('merging in name order', () => {
  test('later configs add drop-ins, filePaths, packages and unset fields to a unit', () => {
    const result = renderConfigs([
      nodeConfig('20-extra', {
        units: [
          {
            name: 'kubelet.service',
            dropIns: [{ name: '20-extra.conf', content: 'b' }],
            filePaths: ['/etc/b', '/etc/a'],
            packages: ['kubelet'],
            state: 'running',
          },
        ],
      }),
      nodeConfig('10-base', {
        files: [
          { path: '/etc/b', content: inline('b') },
          { path: '/etc/a', content: inline('a') },
        ],
        units: [
          {
            name: 'kubelet.service',
            dropIns: [{ name: '10-base.conf', content: 'a' }],
            filePaths: ['/etc/a'],
          },
        ],
        packages: [{ name: 'kubelet' }],
      }),
    ]);
    assert.deepEqual(result.conflicts, []);
    assert.deepEqual(result.errors, []);
    assert.deepEqual(result.warnings, []);
    assert.deepEqual(
      result.sources.map((s) => s.name),
      ['10-base', '20-extra'],
    );
    const kubelet = result.config!.units[0]!;
    assert.deepEqual(kubelet, {
      name: 'kubelet.service',
      state: 'running',
      dropIns: [
        { name: '10-base.conf', content: 'a' },
        { name: '20-extra.conf', content: 'b' },
      ],
      filePaths: ['/etc/a', '/etc/b'],
      packages: ['kubelet'],
    });
    assert.deepEqual(
      result.config!.files.map((f) => f.path),
      ['/etc/a', '/etc/b'],
    );
  });

  test('identical definitions in two configs are not a conflict', () => {
    const shared: NodeConfigSpec = {
      files: [{ path: '/etc/a', mode: 420, content: inline('a') }],
      units: [{ name: 'a.service', content: 'x' }],
      packages: [{ name: 'htop' }],
      disruptionPolicies: { files: [{ path: '/etc/a', action: 'None' }], default: 'None' },
    };
    const result = renderConfigs([
      nodeConfig('a', shared),
      nodeConfig('b', { ...shared, files: [{ path: '/etc/a', content: inline('a') }] }),
    ]);
    assert.deepEqual(result.conflicts, []);
    assert.equal(result.config!.files.length, 1);
    assert.equal(result.config!.disruptionPolicies.files.length, 1);
  });

  test('a package or repository of the default manager, named or not, is one definition (unset stays unset)', () => {
    const repository = { name: 'r', uri: 'http://a', suites: ['./'] };
    const result = renderConfigs([
      nodeConfig('a', { repositories: [repository], packages: [{ name: 'htop' }] }),
      nodeConfig('b', {
        repositories: [{ ...repository, manager: 'apt' }],
        packages: [{ name: 'htop', manager: 'apt' }],
      }),
    ]);
    assert.deepEqual(result.conflicts, []);
    assert.deepEqual(result.config!.packages, [{ name: 'htop', state: 'present' }]);
    assert.equal('manager' in result.config!.repositories[0]!, false);
  });

  test('a version from a later config pins an unversioned package', () => {
    const result = renderConfigs([
      nodeConfig('a', { packages: [{ name: 'htop' }] }),
      nodeConfig('b', { packages: [{ name: 'htop', version: '3.2.2-2' }] }),
    ]);
    assert.deepEqual(result.config!.packages, [{ name: 'htop', version: '3.2.2-2', state: 'present' }]);
  });
});

describe('conflicts are reported with both sources and nothing is rendered', () => {
  const cases: [string, NodeConfigSpec, NodeConfigSpec, { kind: string; key: string; field: string }[]][] = [
    [
      'file content',
      { files: [{ path: '/etc/a', content: inline('1') }] },
      { files: [{ path: '/etc/a', content: inline('2') }] },
      [{ kind: 'file', key: '/etc/a', field: 'content' }],
    ],
    [
      'file mode (explicit vs default)',
      { files: [{ path: '/etc/a', content: inline('1') }] },
      { files: [{ path: '/etc/a', mode: 0o600, content: inline('1') }] },
      [{ kind: 'file', key: '/etc/a', field: 'mode' }],
    ],
    [
      'unit content',
      { units: [{ name: 'a.service', content: 'x' }] },
      { units: [{ name: 'a.service', content: 'y' }] },
      [{ kind: 'unit', key: 'a.service', field: 'content' }],
    ],
    [
      'unit state',
      { units: [{ name: 'a.service', state: 'running' }] },
      { units: [{ name: 'a.service', state: 'stopped' }] },
      [{ kind: 'unit', key: 'a.service', field: 'state' }],
    ],
    [
      'drop-in content',
      { units: [{ name: 'a.service', dropIns: [{ name: 'x.conf', content: '1' }] }] },
      { units: [{ name: 'a.service', dropIns: [{ name: 'x.conf', content: '2' }] }] },
      [{ kind: 'dropIn', key: 'a.service/x.conf', field: 'content' }],
    ],
    [
      'package version',
      { packages: [{ name: 'htop', version: '1' }] },
      { packages: [{ name: 'htop', version: '2' }] },
      [{ kind: 'package', key: 'htop', field: 'version' }],
    ],
    [
      'package state',
      { packages: [{ name: 'htop' }] },
      { packages: [{ name: 'htop', state: 'absent' }] },
      [{ kind: 'package', key: 'htop', field: 'state' }],
    ],
    [
      'repository uri',
      { repositories: [{ name: 'r', uri: 'http://a', suites: ['./'] }] },
      { repositories: [{ name: 'r', uri: 'http://b', suites: ['./'] }] },
      [{ kind: 'repository', key: 'r', field: 'uri' }],
    ],
    [
      'policy action and default',
      { disruptionPolicies: { units: [{ name: 'a.service', action: 'Reload' }], default: 'None' } },
      { disruptionPolicies: { units: [{ name: 'a.service', action: 'Restart' }], default: 'Reboot' } },
      [
        { kind: 'policy', key: 'units:a.service', field: 'action' },
        { kind: 'policy', key: 'default', field: 'action' },
      ],
    ],
  ];
  for (const [name, first, second, expected] of cases) {
    test(name, () => {
      const result = renderConfigs([nodeConfig('z-second', second), nodeConfig('a-first', first)]);
      assert.deepEqual(
        result.conflicts.map(({ kind, key, field }) => ({ kind, key, field })),
        expected,
      );
      for (const conflict of result.conflicts) assert.deepEqual(conflict.sources, ['a-first', 'z-second']);
      assert.equal(result.config, undefined);
      assert.equal(result.hash, undefined);
    });
  }

  test('the message names both NodeConfigs', () => {
    const result = renderConfigs([
      nodeConfig('a', { files: [{ path: '/etc/a', content: inline('1') }] }),
      nodeConfig('b', { files: [{ path: '/etc/a', content: inline('2') }] }),
    ]);
    assert.equal(result.conflicts[0]?.message, 'file /etc/a: content differs between NodeConfigs a and b');
  });
});

describe('defaults, normalisation and errors', () => {
  test('units nodeherd creates run and are enabled by default; templates and foreign units are left alone', () => {
    const result = renderConfigs([
      nodeConfig('a', {
        units: [
          { name: 'a.service', content: 'x' },
          { name: 'b.service', content: 'x', enabled: false, state: 'stopped' },
          { name: 't@.service', content: 'x' },
          { name: 'kubelet.service', dropIns: [{ name: 'x.conf', content: '' }] },
        ],
      }),
    ]);
    const units = Object.fromEntries(result.config!.units.map((u) => [u.name, [u.enabled, u.state]]));
    assert.deepEqual(units, {
      'a.service': [true, 'running'],
      'b.service': [false, 'stopped'],
      'kubelet.service': [undefined, undefined],
      't@.service': [undefined, undefined],
    });
  });

  test('list order in the NodeConfigs does not change the hash', () => {
    const files = [
      { path: '/etc/b', content: inline('b') },
      { path: '/etc/a', content: inline('a') },
    ];
    const one = renderConfigs([
      nodeConfig('a', {
        files,
        units: [{ name: 'x.service', content: 'x', filePaths: ['/etc/b', '/etc/a'] }],
      }),
    ]);
    const two = renderConfigs([
      nodeConfig('a', {
        files: [...files].reverse(),
        units: [{ name: 'x.service', content: 'x', filePaths: ['/etc/a', '/etc/b'] }],
      }),
    ]);
    assert.equal(one.hash, two.hash);
    assert.equal(one.hash, hashConfig(one.config!));
  });

  test('renaming a NodeConfig or changing its metadata does not change the hash', () => {
    const spec: NodeConfigSpec = { packages: [{ name: 'htop' }] };
    const a = renderConfigs([nodeConfig('a', spec)]);
    const b = renderConfigs([
      { ...nodeConfig('b', spec), metadata: { name: 'b', resourceVersion: '42', generation: 7 } },
    ]);
    assert.equal(a.hash, b.hash);
    assert.deepEqual(b.sources, [{ name: 'b', generation: 7, resourceVersion: '42' }]);
  });

  test('unknown fields are pruned, not hashed', () => {
    const a = renderConfigs([nodeConfig('a', { packages: [{ name: 'htop' }] })]);
    const b = renderConfigs([nodeConfig('a', { packages: [{ name: 'htop', extra: 1 } as any] })]);
    assert.equal(a.hash, b.hash);
  });

  test('invalid NodeConfigs are reported with their name and field, and nothing is rendered', () => {
    const result = renderConfigs([nodeConfig('bad', { files: [{ path: 'etc/x', content: inline('') }] })]);
    assert.deepEqual(result.errors, [
      {
        source: 'bad',
        field: 'spec.files[0].path',
        message: 'Invalid value: "etc/x": must be an absolute path',
      },
    ]);
    assert.equal(result.config, undefined);
  });

  test('a merged config above the per-object content limit is refused', () => {
    const half = 'x'.repeat(600 * 1024);
    const result = renderConfigs([
      nodeConfig('a', { files: [{ path: '/etc/a', content: inline(half) }] }),
      nodeConfig('b', { files: [{ path: '/etc/b', content: inline(half) }] }),
    ]);
    assert.equal(result.config, undefined);
    assert.match(result.errors[0]!.message, /more than 1048576 fit in one NodeConfigRevision/);
  });

  test('warns about filePaths and packages no config manages', () => {
    const result = renderConfigs([
      nodeConfig('a', {
        units: [
          { name: 'kubelet.service', filePaths: ['/etc/kubernetes/kubelet.conf'], packages: ['kubelet'] },
        ],
      }),
    ]);
    assert.ok(result.config);
    assert.equal(result.warnings.length, 2);
    assert.match(result.warnings[0]!, /kubelet\.service lists \/etc\/kubernetes\/kubelet\.conf/);
  });
});

describe('secretRef files', () => {
  const spec: NodeConfigSpec = {
    files: [
      {
        path: '/etc/token',
        mode: 0o600,
        content: { secretRef: { namespace: 'nodeherd', name: 'node', key: 'token' } },
      },
    ],
  };
  const value = new TextEncoder().encode('token-v1');

  const snapshot = (bytes: Uint8Array, resourceVersion = '7') => ({
    value: bytes,
    uid: 'uid-s',
    resourceVersion,
  });

  test('the revision keeps the reference and the Secret version, never the value nor its digest', () => {
    const seen: unknown[] = [];
    const result = renderConfigs([nodeConfig('a', spec)], {
      secrets: (ref) => {
        seen.push(ref);
        return snapshot(value);
      },
    });
    assert.deepEqual(seen, [{ namespace: 'nodeherd', name: 'node', key: 'token' }]);
    assert.deepEqual(result.config!.files[0]!.content, {
      secretRef: { namespace: 'nodeherd', name: 'node', key: 'token', uid: 'uid-s', resourceVersion: '7' },
    });
    assert.doesNotMatch(JSON.stringify(result), /token-v1/);
    assert.doesNotMatch(JSON.stringify(result), new RegExp(createHash('sha256').update(value).digest('hex')));
    assert.deepEqual(result.secretRefs, [{ namespace: 'nodeherd', name: 'node', key: 'token' }]);
  });

  test('a changed Secret changes the hash', () => {
    const one = renderConfigs([nodeConfig('a', spec)], { secrets: () => snapshot(value) });
    const two = renderConfigs([nodeConfig('a', spec)], {
      secrets: () => snapshot(new TextEncoder().encode('token-v2'), '8'),
    });
    assert.notEqual(one.hash, two.hash);
  });

  test('a stored reference to another namespace is not rendered, and its Secret not read', () => {
    const seen: unknown[] = [];
    const elsewhere = structuredClone(spec) as any;
    elsewhere.files[0].content.secretRef.namespace = 'kube-system';
    const result = renderConfigs([nodeConfig('a', elsewhere)], {
      secrets: (ref) => {
        seen.push(ref);
        return snapshot(value);
      },
    });
    assert.equal(result.config, undefined);
    assert.deepEqual(seen, []);
    assert.equal(result.errors[0]?.source, 'a');
    assert.equal(result.errors[0]?.field, 'spec.files[0].content.secretRef.namespace');
    assert.match(result.errors[0]?.message ?? '', /supported values: "nodeherd"/);
  });

  const failures: [string, Parameters<typeof renderConfigs>[1], RegExp][] = [
    ['no lookup given', {}, /no Secret lookup was given/],
    ['a missing Secret', { secrets: () => undefined }, /Secret nodeherd\/node key token does not exist/],
    [
      'a Secret above 1 MiB',
      { secrets: () => snapshot(new Uint8Array(1024 * 1024 + 1)) },
      /more than 1048576/,
    ],
  ];
  for (const [name, options, message] of failures) {
    test(`${name} is an error at the file's field`, () => {
      const result = renderConfigs([nodeConfig('a', spec)], options);
      assert.equal(result.config, undefined);
      assert.equal(result.errors[0]?.field, 'spec.files[0].content.secretRef');
      assert.equal(result.errors[0]?.source, 'a');
      assert.match(result.errors[0]!.message, message);
    });
  }
});

describe('selecting configs for a pool', () => {
  const configs = [
    nodeConfig('z', { packages: [{ name: 'aa' }] }, { pool: 'workers' }),
    nodeConfig('m', { packages: [{ name: 'bb' }] }, { pool: 'masters' }),
    nodeConfig('a', { packages: [{ name: 'cc' }] }, { pool: 'workers' }),
    {
      ...nodeConfig('gone', { packages: [{ name: 'dd' }] }, { pool: 'workers' }),
      metadata: { name: 'gone', labels: { pool: 'workers' }, deletionTimestamp: '2026-01-01T00:00:00Z' },
    },
  ];
  const pool = nodeConfigPool('workers', { configSelector: { matchLabels: { pool: 'workers' } } });

  test('by configSelector, skipping configs being deleted, in name order', () => {
    assert.deepEqual(
      selectConfigs(pool, configs).map((c) => c.metadata.name),
      ['a', 'z'],
    );
  });

  test('renderPool renders exactly those', () => {
    assert.deepEqual(
      renderPool(pool, configs).config!.packages.map((p) => p.name),
      ['aa', 'cc'],
    );
  });
});
