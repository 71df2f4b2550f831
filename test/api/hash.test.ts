import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { describe, test } from 'node:test';
import {
  CURRENT_HASH_ALGORITHM,
  hashConfig,
  isKnownHashAlgorithm,
  revisionMatchesConfig,
  revisionName,
  sameConfig,
} from '../../src/api/hash.ts';
import { canonicalJson } from '../../src/util/canonical-json.ts';
import { rendered } from '../support/nodeherd-objects.ts';

describe('canonicalJson', () => {
  const cases: [string, unknown, string][] = [
    [
      'sorts keys at every depth',
      { b: 1, a: { d: [1, { z: 0, y: 1 }], c: null } },
      '{"a":{"c":null,"d":[1,{"y":1,"z":0}]},"b":1}',
    ],
    ['drops undefined properties', { a: undefined, b: 'x' }, '{"b":"x"}'],
    ['keeps array order', [3, 1, 2], '[3,1,2]'],
    ['escapes strings like JSON', { 'k"': 'line\nbreak' }, '{"k\\"":"line\\nbreak"}'],
    ['sorts keys by code unit, not locale', { b: 1, B: 2, á: 3, a: 4 }, '{"B":2,"a":4,"b":1,"á":3}'],
  ];
  for (const [name, value, expected] of cases) test(name, () => assert.equal(canonicalJson(value), expected));

  test('refuses values JSON cannot carry faithfully', () => {
    assert.throws(() => canonicalJson(Number.NaN), TypeError);
    assert.throws(() => canonicalJson(undefined), TypeError);
  });
});

describe('hashConfig', () => {
  const config = rendered({
    files: [{ path: '/etc/a', content: { inline: { data: 'a' } } }],
    units: [{ name: 'a.service', content: '[Service]', filePaths: ['/etc/a'] }],
  });

  test('is a sha256 hex digest, stable across key order', () => {
    const reordered = JSON.parse(canonicalJson(config), (_key, value) =>
      value && typeof value === 'object' && !Array.isArray(value)
        ? Object.fromEntries(Object.entries(value).reverse())
        : value,
    );
    assert.notEqual(JSON.stringify(reordered), JSON.stringify(config));
    assert.match(hashConfig(config), /^[0-9a-f]{64}$/);
    assert.equal(hashConfig(reordered), hashConfig(config));
  });

  test('changes with any content', () => {
    const changed = structuredClone(config);
    changed.files[0]!.mode = 0o600;
    assert.notEqual(hashConfig(changed), hashConfig(config));
  });

  test('pins the v1 algorithm: sha256 over canonical JSON', () => {
    // Recomputed independently: if this changes, v1 changed, and every fleet would see a new revision.
    const empty = rendered({});
    const expected =
      '{"disruptionPolicies":{"files":[],"packages":[],"units":[]},"files":[],"packages":[],"repositories":[],"units":[]}';
    assert.equal(canonicalJson(empty), expected);
    assert.equal(hashConfig(empty, 'v1'), createHash('sha256').update(expected).digest('hex'));
    assert.equal(CURRENT_HASH_ALGORITHM, 'v1');
  });

  test('a config with repositories and packages hashes as before package managers were named', () => {
    // Computed at 79b8bb5, before `manager` existed: a config that names none keeps its revision.
    const config = rendered({
      repositories: [
        {
          name: 'k8s',
          uri: 'https://pkgs.k8s.io/core:/stable:/v1.31/deb/',
          suites: ['/'],
          signingKey: { data: '-----BEGIN PGP PUBLIC KEY BLOCK-----\nx\n-----END PGP PUBLIC KEY BLOCK-----' },
        },
        { name: 'debian', uri: 'http://deb.debian.org/debian', suites: ['bookworm'], components: ['main'] },
      ],
      packages: [
        { name: 'kubelet', version: '1.31.2-1.1' },
        { name: 'htop' },
        { name: 'nano', state: 'absent' },
      ],
    });
    assert.equal(
      hashConfig(config, 'v1'),
      '28e91de0a0ca0c7847f3d79ccd71194fd4675c268c6b5fb184625c1064690067',
    );
  });

  test('refuses an unknown algorithm', () => {
    assert.throws(() => hashConfig(config, 'v9'), /unknown hash algorithm "v9"/);
    assert.throws(() => hashConfig(config, 'toString'), /unknown hash algorithm/);
    assert.equal(isKnownHashAlgorithm('v1'), true);
    assert.equal(isKnownHashAlgorithm('constructor'), false);
  });
});

describe('comparing revisions across algorithm versions', () => {
  const a = rendered({ packages: [{ name: 'htop' }] });
  const b = rendered({ packages: [{ name: 'curl' }] });
  const v1 = (config: typeof a) => ({ config, hash: hashConfig(config, 'v1'), hashAlgorithm: 'v1' });
  // A revision from a future build: an algorithm this build does not know, with some other hash.
  const v2 = (config: typeof a) => ({ config, hash: 'e'.repeat(64), hashAlgorithm: 'v2' });

  const cases: [string, ReturnType<typeof v1>, ReturnType<typeof v1>, boolean][] = [
    ['same algorithm, same config', v1(a), v1(structuredClone(a)), true],
    ['same algorithm, other config', v1(a), v1(b), false],
    ['known v1 vs unknown v2, same config', v1(a), v2(a), true],
    ['unknown v2 vs known v1, same config', v2(a), v1(a), true],
    ['known v1 vs unknown v2, other config', v1(a), v2(b), false],
    ['both unknown: configs compared directly', v2(a), { ...v2(a), hashAlgorithm: 'v3' }, true],
    ['both unknown, other config', v2(a), { ...v2(b), hashAlgorithm: 'v3' }, false],
  ];
  for (const [name, x, y, expected] of cases) test(name, () => assert.equal(sameConfig(x, y), expected));

  test('revisionMatchesConfig recomputes with the stored algorithm', () => {
    assert.equal(revisionMatchesConfig(v1(a), a), true);
    assert.equal(revisionMatchesConfig(v1(a), b), false);
    assert.equal(revisionMatchesConfig(v2(a), a), false);
  });
});

test('revisionName takes the first 10 hex digits', () => {
  assert.equal(revisionName('workers', 'abcdef0123456789'), 'workers-abcdef0123');
});
