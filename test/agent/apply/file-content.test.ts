// File contents: inline text and base64 decode to bytes; a Secret's value is used only if the Secret
// is still the version the revision was rendered with, and its digest is remembered only by the agent. And revisions whose config is not what their hash
// says are refused.

import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { describe, it } from 'node:test';
import { expectedDigest, fileContent, type SecretSource } from '../../../src/agent/apply/file-content.ts';
import { revisionProblem } from '../../../src/agent/apply/reconciler.ts';
import { SecretDigests } from '../../../src/agent/apply/secret-digests.ts';
import type { RevisionObject } from '../../../src/agent/watch/kube-objects.ts';
import { hashConfig } from '../../../src/api/hash.ts';
import type { RenderedFile } from '../../../src/api/types.ts';
import { rendered } from '../../support/nodeherd-objects.ts';

const sha = (text: string) => createHash('sha256').update(text).digest('hex');
const secrets: SecretSource = {
  async read(ref) {
    if (ref.name !== 'creds') throw new Error(`secrets "${ref.name}" not found`);
    return { value: Buffer.from('s3cr3t'), uid: 'u1', resourceVersion: '5' };
  },
};
const file = (content: RenderedFile['content']): RenderedFile => ({
  path: '/etc/f',
  mode: 0o600,
  owner: 'root',
  group: 'root',
  content,
});

describe('file content', () => {
  it('decodes inline content', async () => {
    assert.equal(
      (await fileContent(file({ inline: { data: 'plain', encoding: 'plain' } }), undefined)).toString(),
      'plain',
    );
    assert.equal(
      (await fileContent(file({ inline: { data: 'AAEC', encoding: 'base64' } }), undefined)).toString('hex'),
      '000102',
    );
    assert.equal(expectedDigest(file({ inline: { data: 'plain', encoding: 'plain' } })), sha('plain'));
  });

  it('reads a Secret, checks its version and remembers its digest', async () => {
    const ref = { namespace: 'nodeherd' as const, name: 'creds', key: 'token' };
    const digests = new SecretDigests();
    const current = { ...ref, uid: 'u1', resourceVersion: '5' };
    assert.equal(expectedDigest(file({ secretRef: current }), digests), undefined);
    assert.equal((await fileContent(file({ secretRef: current }), secrets, digests)).toString(), 's3cr3t');
    assert.equal(expectedDigest(file({ secretRef: current }), digests), sha('s3cr3t'));
    assert.equal(
      expectedDigest(file({ secretRef: { ...current, resourceVersion: '6' } }), digests),
      undefined,
    );
    await assert.rejects(
      fileContent(file({ secretRef: { ...current, resourceVersion: '4' } }), secrets),
      /changed since the revision was rendered/,
    );
    await assert.rejects(
      fileContent(file({ secretRef: { ...current, uid: 'u0' } }), secrets),
      /changed since the revision was rendered/,
    );
    await assert.rejects(fileContent(file({ secretRef: { ...ref, name: 'gone' } }), secrets), /not found/);
    await assert.rejects(fileContent(file({ secretRef: ref }), undefined), /no Secret source/);
  });
});

describe('revisionProblem', () => {
  const config = rendered({ files: [{ path: '/etc/x', content: { inline: { data: 'x' } } }] });
  const revision = (spec: object) => ({ metadata: { name: 'p-1' }, spec }) as unknown as RevisionObject;

  it('accepts a revision whose config matches its hash', () => {
    assert.equal(
      revisionProblem(revision({ hash: hashConfig(config), hashAlgorithm: 'v1', config })),
      undefined,
    );
  });

  it('refuses tampered, unknown-algorithm and empty revisions', () => {
    const tampered = {
      ...config,
      files: [{ ...config.files[0]!, content: { inline: { data: 'evil', encoding: 'plain' } } }],
    };
    assert.match(
      revisionProblem(revision({ hash: hashConfig(config), hashAlgorithm: 'v1', config: tampered }))!,
      /does not match/,
    );
    assert.match(
      revisionProblem(revision({ hash: hashConfig(config), hashAlgorithm: 'v9', config }))!,
      /unknown hash algorithm/,
    );
    assert.match(revisionProblem(revision({}))!, /missing/);
  });
});
