// File contents: inline text and base64 decode to bytes; a Secret's value is used only if it still
// has the digest the revision was rendered with. And revisions whose config is not what their hash
// says are refused.

import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { describe, it } from 'node:test';
import { expectedDigest, fileContent, type SecretSource } from '../../../src/agent/apply/file-content.ts';
import { revisionProblem } from '../../../src/agent/apply/reconciler.ts';
import type { RevisionObject } from '../../../src/agent/watch/kube-objects.ts';
import { hashConfig } from '../../../src/api/hash.ts';
import type { RenderedFile } from '../../../src/api/types.ts';
import { rendered } from '../../support/nodeherd-objects.ts';

const sha = (text: string) => createHash('sha256').update(text).digest('hex');
const secrets: SecretSource = {
  async read(ref) {
    if (ref.name !== 'creds') throw new Error(`secrets "${ref.name}" not found`);
    return Buffer.from('s3cr3t');
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

  it('reads a Secret and checks its digest', async () => {
    const ref = { namespace: 'kube-system', name: 'creds', key: 'token' };
    assert.equal(
      (await fileContent(file({ secretRef: { ...ref, sha256: sha('s3cr3t') } }), secrets)).toString(),
      's3cr3t',
    );
    await assert.rejects(
      fileContent(file({ secretRef: { ...ref, sha256: sha('older') } }), secrets),
      /changed since the revision was rendered/,
    );
    await assert.rejects(fileContent(file({ secretRef: { ...ref, name: 'gone' } }), secrets), /not found/);
    await assert.rejects(fileContent(file({ secretRef: ref }), undefined), /no Secret source/);
    assert.equal(expectedDigest(file({ secretRef: { ...ref, sha256: sha('s3cr3t') } })), sha('s3cr3t'));
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
