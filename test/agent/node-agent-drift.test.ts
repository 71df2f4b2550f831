// Drift: at start the agent compares the managed files with the last applied revision, reports
// what changed (event Drifted, metric) and writes the files back.

import assert from 'node:assert/strict';
import { chmod, readFile, stat, unlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { eventually } from '../support/eventually.ts';
import {
  type Cluster,
  createRevision,
  nodeEvents,
  setDesired,
  startCluster,
  startNode,
  type TestNode,
  waitForState,
} from './agent-harness.ts';

describe('node agent drift repair', () => {
  let cluster: Cluster;
  let node: TestNode;

  before(async () => {
    cluster = await startCluster();
    node = await startNode(cluster, 'drift-1');
  });
  after(async () => {
    await cluster?.stop();
  });

  it('reports and repairs files changed, re-moded or deleted while the agent was down', async () => {
    const revision = await createRevision(cluster, 'drift', {
      files: [
        { path: '/etc/drift/edited.conf', content: { inline: { data: 'original\n' } } },
        { path: '/etc/drift/chmodded.conf', mode: 0o600, content: { inline: { data: 'secret-ish\n' } } },
        { path: '/etc/drift/deleted.conf', content: { inline: { data: 'gone?\n' } } },
        { path: '/etc/drift/untouched.conf', content: { inline: { data: 'same\n' } } },
      ],
      units: [
        {
          name: 'drift.service',
          content: '[Service]\nExecStart=/bin/drift\n',
          filePaths: ['/etc/drift/edited.conf'],
        },
      ],
    });
    await setDesired(cluster, node.name, revision.metadata.name);
    await waitForState(cluster, node.name, 'Done');
    await node.agent.stop();

    await writeFile(join(node.root, 'etc/drift/edited.conf'), 'edited by hand\n');
    await chmod(join(node.root, 'etc/drift/chmodded.conf'), 0o644);
    await unlink(join(node.root, 'etc/drift/deleted.conf'));
    const untouchedBefore = (await stat(join(node.root, 'etc/drift/untouched.conf'))).mtimeMs;
    const restarts = node.systemd.restarts('drift.service');

    await node.restart();
    assert.equal(await readFile(join(node.root, 'etc/drift/edited.conf'), 'utf8'), 'original\n');
    assert.equal((await stat(join(node.root, 'etc/drift/chmodded.conf'))).mode & 0o7777, 0o600);
    assert.equal(await readFile(join(node.root, 'etc/drift/deleted.conf'), 'utf8'), 'gone?\n');
    assert.equal(
      (await stat(join(node.root, 'etc/drift/untouched.conf'))).mtimeMs,
      untouchedBefore,
      'not rewritten',
    );
    assert.equal(
      node.systemd.restarts('drift.service'),
      restarts,
      'repair restores what the unit started with',
    );

    const metrics = node.agent.metrics.driftedFiles;
    assert.equal(metrics.get({ reason: 'content' }), 1);
    assert.equal(metrics.get({ reason: 'mode' }), 1);
    assert.equal(metrics.get({ reason: 'missing' }), 1);
    const event = await eventually('Drifted event', async () =>
      (await nodeEvents(cluster, node.name)).find((e) => e.reason === 'Drifted'),
    );
    assert.equal(event.type, 'Warning');
    for (const path of ['edited.conf', 'chmodded.conf', 'deleted.conf'])
      assert.match(event.message ?? '', new RegExp(path));
    assert.doesNotMatch(event.message ?? '', /untouched/);
    assert.doesNotMatch(event.message ?? '', /original|secret-ish/, 'no file contents in events');

    // Nothing drifted: a second restart reports nothing new.
    await node.restart();
    assert.equal(node.agent.metrics.driftedFiles.get({ reason: 'content' }), 0);
  });
});
