// The agent's side of pre-staging (issue 35.4), through the real embedded API server with the agent's
// own node credential: told to pre-stage a revision (nodeherd.io/prestage-revision, written here as
// the admin, as the controller would), the agent downloads the packages the revision would install —
// nothing else: no install, no file, no repository — and answers in nodeherd.io/prestaged; a version
// the mirror does not have is answered Failed with apt's words; the answer is cleared when the ask
// goes; a restarted agent does not download again what it answered; and the node's turn then installs
// from the cache.

import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import {
  CURRENT_REVISION_ANNOTATION,
  PRESTAGE_REVISION_ANNOTATION,
  PRESTAGED_ANNOTATION,
  type PrestageReport,
  parsePrestageReport,
} from '../../src/api/node-protocol.ts';
import type { NodeConfigSpec } from '../../src/api/types.ts';
import { eventually } from '../support/eventually.ts';
import {
  type Cluster,
  createRevision,
  getNode,
  setDesired,
  startCluster,
  startNode,
  type TestNode,
  waitForState,
} from './agent-harness.ts';

const spec = (version: string, path = '/etc/demo/a.conf'): NodeConfigSpec => ({
  files: [{ path, content: { inline: { data: `htop ${version}\n` } } }],
  packages: [{ name: 'htop', version }],
});

describe('the agent pre-stages what it is told to', () => {
  let cluster: Cluster;
  let node: TestNode;

  const ask = (revision: string | null) =>
    cluster.admin.patch(`/api/v1/nodes/${node.name}`, {
      metadata: { annotations: { [PRESTAGE_REVISION_ANNOTATION]: revision } },
    });
  const answer = (revision: string) =>
    eventually<PrestageReport>(`an answer for ${revision}`, async () => {
      const report = parsePrestageReport(
        (await getNode(cluster, node.name)).metadata?.annotations?.[PRESTAGED_ANNOTATION],
      );
      return report?.revision === revision ? report : undefined;
    });
  const downloads = () => node.packages.calls.filter((c) => c.op === 'download').length;

  before(async () => {
    cluster = await startCluster();
    node = await startNode(cluster, 'prestage-node');
    const first = await createRevision(cluster, 'pool', spec('3.2.1'));
    await setDesired(cluster, node.name, first.metadata.name);
    await waitForState(cluster, node.name, 'Done');
  });
  after(async () => {
    await cluster?.stop();
  });

  test('downloads the revision’s packages, installs and writes nothing, and answers Downloaded', async () => {
    const next = await createRevision(cluster, 'pool', spec('3.2.2', '/etc/demo/b.conf'));
    await ask(next.metadata.name);
    const report = await answer(next.metadata.name);
    assert.equal(report.outcome, 'Downloaded');
    assert.match(report.message ?? '', /^htop=3\.2\.2: 1 downloaded/);
    assert.ok(node.packages.isCached('htop', '3.2.2'));
    assert.equal(node.packages.installed().htop, '3.2.1', 'nothing installed');
    assert.equal(existsSync(join(node.root, 'etc/demo/b.conf')), false, 'no file of the revision written');
    const annotations = (await getNode(cluster, node.name)).metadata?.annotations ?? {};
    assert.notEqual(annotations[CURRENT_REVISION_ANNOTATION], next.metadata.name);

    // Restarted: the answer stands (the cache outlives the process), nothing is downloaded again.
    const before = downloads();
    await node.restart();
    await node.agent.whenIdle();
    assert.equal((await answer(next.metadata.name)).outcome, 'Downloaded');
    assert.equal(downloads(), before);

    // The node's turn: the ask goes (the answer with it), the revision comes, and installs from the cache.
    await ask(null);
    await eventually('the answer cleared', async () =>
      (await getNode(cluster, node.name)).metadata?.annotations?.[PRESTAGED_ANNOTATION] ? undefined : true,
    );
    await setDesired(cluster, node.name, next.metadata.name);
    await eventually('applied', async () =>
      (await getNode(cluster, node.name)).metadata?.annotations?.[CURRENT_REVISION_ANNOTATION] ===
      next.metadata.name
        ? true
        : undefined,
    );
    assert.equal(node.packages.installed().htop, '3.2.2');
    assert.equal(node.packages.isCached('htop', '3.2.2'), false, 'installed from the cache');
  });

  test('a version the mirror does not have is answered Failed, with apt’s words', async () => {
    const bad = await createRevision(cluster, 'pool', spec('9.9'));
    await ask(bad.metadata.name);
    const report = await answer(bad.metadata.name);
    assert.equal(report.outcome, 'Failed');
    assert.match(report.message ?? '', /Version '9\.9' for 'htop' was not found/);
    assert.equal(node.packages.installed().htop, '3.2.2', 'nothing moved');
    await ask(null);
  });

  test('a revision that does not exist is answered Failed, naming it', async () => {
    await ask('pool-nonexistent');
    const report = await answer('pool-nonexistent');
    assert.equal(report.outcome, 'Failed');
    assert.match(report.message ?? '', /cannot read revision pool-nonexistent: no such revision/);
    await ask(null);
  });
});
