// issue 31: a file from a Secret. The revision, which every node may read, names the Secret's version
// (uid, resourceVersion) and carries no digest of its value; the agent keeps that digest only in its
// root-only state directory, and drift detection still repairs a file edited by hand.

import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { readFile, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { SECRETS_NAMESPACE } from '../../src/api/group.ts';
import type { Secret } from '../../src/kube/types.ts';
import { revisionOf, secretSnapshot } from '../support/nodeherd-objects.ts';
import {
  type Cluster,
  REVISIONS,
  setDesired,
  startCluster,
  startNode,
  waitForState,
} from './agent-harness.ts';

const VALUE = 'hunter2\n';
const sha = (text: string) => createHash('sha256').update(text).digest('hex');

describe('node agent: files from Secrets', () => {
  let cluster: Cluster;

  before(async () => {
    cluster = await startCluster();
  });
  after(async () => {
    await cluster?.stop();
  });

  it('keeps the digest out of the revision and in root-only state; drift still repairs the file', async () => {
    const node = await startNode(cluster, 'secret-files');
    const secret = await cluster.admin.create<Secret>(`/api/v1/namespaces/${SECRETS_NAMESPACE}/secrets`, {
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name: 'db-password' },
      data: { password: Buffer.from(VALUE).toString('base64') },
    });
    const revision = revisionOf(
      'secret-files',
      {
        files: [
          {
            path: '/etc/app/password',
            mode: 0o600,
            content: { secretRef: { namespace: SECRETS_NAMESPACE, name: 'db-password', key: 'password' } },
          },
        ],
      },
      1,
      {
        secrets: () =>
          secretSnapshot(VALUE, secret.metadata.uid, secret.metadata.resourceVersion as string | undefined),
      },
    );
    await cluster.admin.create(REVISIONS, revision);
    // What any node reads: no value, no digest of it.
    const stored = JSON.stringify(await cluster.admin.get(`${REVISIONS}/${revision.metadata.name}`));
    assert.doesNotMatch(stored, /hunter2/);
    assert.ok(!stored.includes(sha(VALUE)), 'no digest of the Secret value in the revision');
    assert.match(stored, new RegExp(`"resourceVersion":"${secret.metadata.resourceVersion}"`));

    await setDesired(cluster, node.name, revision.metadata.name);
    await waitForState(cluster, node.name, 'Done');
    const path = join(node.root, 'etc/app/password');
    assert.equal(await readFile(path, 'utf8'), VALUE);
    // The digest lives in the agent's state, readable by root only.
    const digests = join(node.stateDir, 'secret-digests.json');
    assert.equal((await stat(digests)).mode & 0o777, 0o600);
    assert.ok((await readFile(digests, 'utf8')).includes(sha(VALUE)));

    // Drift: edited by hand while the agent was down, and repaired at start (the digest survived restart).
    await node.agent.stop();
    await writeFile(path, 'edited by hand\n');
    await node.restart();
    assert.equal(await readFile(path, 'utf8'), VALUE);
    assert.equal(node.agent.metrics.driftRepaired.get({ kind: 'file' }), 1);
    await node.stop();
  });
});
