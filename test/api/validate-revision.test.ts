import assert from 'node:assert/strict';
import { test } from 'node:test';
import { hashConfig } from '../../src/api/hash.ts';
import { renderConfigs } from '../../src/api/render.ts';
import { buildRevision } from '../../src/api/revision.ts';
import { validateNodeConfigRevision, validators } from '../../src/api/validation.ts';
import { nodeConfig, nodeConfigPool, secretSnapshot } from '../support/nodeherd-objects.ts';

const secret = new TextEncoder().encode('s3cr3t-token');

function revision() {
  const result = renderConfigs(
    [
      nodeConfig('base', {
        files: [
          { path: '/etc/motd', content: { inline: { data: 'hello' } } },
          {
            path: '/etc/token',
            content: { secretRef: { namespace: 'nodeherd', name: 'tokens', key: 'node' } },
          },
        ],
        units: [
          {
            name: 'motd.service',
            content: '[Service]\nExecStart=/bin/cat /etc/motd',
            filePaths: ['/etc/motd'],
          },
        ],
      }),
    ],
    { secrets: () => secretSnapshot(secret) },
  );
  const { config, hash, hashAlgorithm, sources } = result;
  return buildRevision(
    nodeConfigPool('workers', {}, 'uid-1'),
    { config: config!, hash: hash!, hashAlgorithm, sources },
    4,
  );
}

function fields(obj: unknown, old?: unknown): [string, string][] {
  return validateNodeConfigRevision(obj, old).map((c) => [c.field, c.type]);
}

test('a revision built from a render is valid, and carries labels and its owner', () => {
  const rev = revision();
  assert.deepEqual(fields(rev), []);
  assert.match(rev.metadata.name, /^workers-[0-9a-f]{10}$/);
  assert.deepEqual(rev.metadata.labels, { 'nodeherd.io/pool': 'workers', 'nodeherd.io/revision': '4' });
  assert.equal(rev.metadata.ownerReferences?.[0]?.uid, 'uid-1');
  assert.equal(rev.metadata.ownerReferences?.[0]?.controller, true);
});

test('a revision whose config does not match its hash is refused on create', () => {
  const rev = revision();
  rev.spec.config.files[0]!.mode = 0o600;
  assert.deepEqual(fields(rev), [['spec.hash', 'FieldValueInvalid']]);
});

test('a revision named other than <pool>-<hash10> is refused', () => {
  const rev = revision();
  rev.metadata.name = 'workers-0000000000';
  assert.deepEqual(fields(rev), [['metadata.name', 'FieldValueInvalid']]);
});

test('inside a revision a secretRef must carry the version of its Secret', () => {
  const rev = revision();
  delete rev.spec.config.files[1]!.content.secretRef!.resourceVersion;
  rev.spec.hash = hashConfig(rev.spec.config);
  rev.metadata.name = `workers-${rev.spec.hash.slice(0, 10)}`;
  assert.deepEqual(fields(rev), [
    ['spec.config.files[1].content.secretRef.resourceVersion', 'FieldValueRequired'],
  ]);
});

test('missing and malformed fields are reported', () => {
  const rev = revision() as any;
  rev.spec.pool = 'Workers';
  rev.spec.revision = 0;
  rev.spec.hash = 'abc';
  rev.spec.hashAlgorithm = 'sha256';
  delete rev.spec.sources;
  assert.deepEqual(fields(rev), [
    ['spec.pool', 'FieldValueInvalid'],
    ['spec.revision', 'FieldValueInvalid'],
    ['spec.hashAlgorithm', 'FieldValueInvalid'],
    ['spec.hash', 'FieldValueInvalid'],
    ['spec.sources', 'FieldValueRequired'],
  ]);
});

test('the spec is immutable; metadata may change', () => {
  const old = revision();
  const relabelled = structuredClone(old);
  relabelled.metadata.labels = { ...relabelled.metadata.labels, extra: 'yes' };
  assert.deepEqual(fields(relabelled, old), []);
  const changed = structuredClone(old);
  changed.spec.revision = 5;
  assert.deepEqual(fields(changed, old), [['spec', 'FieldValueForbidden']]);
  assert.deepEqual(
    validators.NodeConfigRevision(changed, old).map((c) => c.field),
    ['spec'],
  );
});

test('an update does not re-check the hash (old revisions stay deletable after a defaulting change)', () => {
  const old = revision();
  const stale = structuredClone(old);
  stale.spec.hash = 'f'.repeat(64);
  stale.metadata.name = `workers-${'f'.repeat(10)}`;
  assert.deepEqual(fields(stale, stale), []);
  assert.deepEqual(fields(stale), [['spec.hash', 'FieldValueInvalid']]);
});
