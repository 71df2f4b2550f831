// Failures: a unit that does not start, a health probe that does not pass. The Node says Failed
// with the reason, a Failed event is recorded, and when the pool's failure policy is Rollback the
// agent restores the last applied revision on the node itself.

import assert from 'node:assert/strict';
import { readFile, stat } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { NodeConfigSpec } from '../../src/api/types.ts';
import { eventually } from '../support/eventually.ts';
import {
  type Cluster,
  createPool,
  createRevision,
  getNode,
  nodeEvents,
  setDesired,
  startCluster,
  startNode,
  waitForMessage,
  waitForState,
} from './agent-harness.ts';

function goodSpec(): NodeConfigSpec {
  return {
    files: [{ path: '/etc/app/app.conf', content: { inline: { data: 'version=1\n' } } }],
    units: [
      { name: 'app.service', content: '[Service]\nExecStart=/bin/app\n', filePaths: ['/etc/app/app.conf'] },
    ],
  };
}

function badSpec(): NodeConfigSpec {
  return {
    files: [
      { path: '/etc/app/app.conf', content: { inline: { data: 'version=2\n' } } },
      { path: '/etc/app/bad.conf', content: { inline: { data: 'bad\n' } } },
    ],
    units: [
      { name: 'app.service', content: '[Service]\nExecStart=/bin/app\n', filePaths: ['/etc/app/app.conf'] },
      { name: 'bad.service', content: '[Service]\nExecStart=/bin/false\n', filePaths: ['/etc/app/bad.conf'] },
    ],
  };
}

async function current(cluster: Cluster, node: string): Promise<string | undefined> {
  return (await getNode(cluster, node)).metadata?.annotations?.['nodeherd.io/current-revision'];
}

describe('node agent on failure', () => {
  let cluster: Cluster;
  let probeServer: Server;
  let probeStatus = 200;

  before(async () => {
    cluster = await startCluster();
    await createPool(cluster, 'safe', {
      updateStrategy: { type: 'RollingUpdate', rollingUpdate: { failurePolicy: { action: 'Rollback' } } },
    });
    await createPool(cluster, 'plain', {});
    probeServer = createServer((_req, res) => {
      res.statusCode = probeStatus;
      res.end();
    });
    await new Promise<void>((resolve) => probeServer.listen(0, '127.0.0.1', resolve));
  });
  after(async () => {
    probeServer?.close();
    await cluster?.stop();
  });

  it('rolls back to the last applied revision when the pool says Rollback', async () => {
    const node = await startNode(cluster, 'fail-rollback');
    const good = await createRevision(cluster, 'safe', goodSpec());
    await setDesired(cluster, node.name, good.metadata.name);
    await waitForState(cluster, node.name, 'Done');

    node.systemd.fail('start', 'bad.service');
    const bad = await createRevision(cluster, 'safe', badSpec());
    await setDesired(cluster, node.name, bad.metadata.name);
    // The annotations are written after the condition: once they say so, both do.
    const failed = await waitForMessage(cluster, node.name, /rolled back to/);
    assert.equal(failed.status?.conditions?.find((c) => c.type === 'NodeConfigReady')?.reason, 'RolledBack');
    const annotations = failed.metadata?.annotations ?? {};
    assert.equal(annotations['nodeherd.io/state'], 'Failed');
    assert.equal(annotations['nodeherd.io/current-revision'], good.metadata.name);
    assert.match(
      annotations['nodeherd.io/message'] ?? '',
      /start-unit:bad\.service: injected failure.*rolled back to/,
    );

    assert.equal(await readFile(join(node.root, 'etc/app/app.conf'), 'utf8'), 'version=1\n', 'file restored');
    await assert.rejects(stat(join(node.root, 'etc/app/bad.conf')), { code: 'ENOENT' });
    assert.equal(node.systemd.unit('bad.service')?.content, undefined, 'unit of the failed revision removed');
    assert.equal(node.systemd.unit('app.service')?.activeState, 'active');
    const reasons = (await nodeEvents(cluster, node.name)).map((e) => e.reason);
    assert.ok(reasons.includes('Failed') && reasons.includes('RolledBack'), reasons.join(','));
    assert.equal(node.agent.metrics.rollbacks.get(), 1);
    assert.equal(node.agent.metrics.applyFailures.get(), 1);

    // A restarted agent does not apply the failed revision again.
    const starts = node.systemd.recorder.count('start', 'bad.service');
    await node.restart();
    await eventually('the restarted agent has looked', () =>
      node.agent.status.state === 'Failed' ? true : undefined,
    );
    assert.equal(node.systemd.recorder.count('start', 'bad.service'), starts);
    assert.equal(await current(cluster, node.name), good.metadata.name);

    // The controller rolling the pool back to the good revision brings the node to Done.
    await setDesired(cluster, node.name, good.metadata.name);
    await waitForState(cluster, node.name, 'Done');

    // Pointing the node at the failed revision again is a deliberate retry: it is applied.
    node.systemd.recorder.clearFailures();
    await setDesired(cluster, node.name, bad.metadata.name);
    await eventually('retried and applied', async () =>
      (await current(cluster, node.name)) === bad.metadata.name ? true : undefined,
    );
    assert.equal(node.systemd.unit('bad.service')?.activeState, 'active');
  });

  it('stays failed without rollback, and retries after a restart, resuming where it stopped', async () => {
    const node = await startNode(cluster, 'fail-plain');
    const good = await createRevision(cluster, 'plain', goodSpec());
    await setDesired(cluster, node.name, good.metadata.name);
    await waitForState(cluster, node.name, 'Done');

    node.systemd.fail('start', 'bad.service', { times: 1 });
    const bad = await createRevision(cluster, 'plain', badSpec());
    await setDesired(cluster, node.name, bad.metadata.name);
    const failed = await waitForState(cluster, node.name, 'Failed');
    assert.match(failed.metadata?.annotations?.['nodeherd.io/message'] ?? '', /bad\.service/);
    assert.equal(failed.status?.conditions?.find((c) => c.type === 'NodeConfigReady')?.reason, 'ApplyFailed');
    assert.equal(await current(cluster, node.name), good.metadata.name);
    assert.equal(await readFile(join(node.root, 'etc/app/app.conf'), 'utf8'), 'version=2\n', 'no rollback');
    assert.ok(
      (await nodeEvents(cluster, node.name)).some((e) => e.reason === 'Failed' && e.type === 'Warning'),
    );
    const restartsBefore = node.systemd.restarts('app.service');

    await node.restart();
    await waitForState(cluster, node.name, 'Done');
    assert.equal(await current(cluster, node.name), bad.metadata.name);
    assert.equal(
      node.systemd.restarts('app.service'),
      restartsBefore,
      'the restart done before the failure is not redone',
    );
    assert.equal(node.systemd.unit('bad.service')?.activeState, 'active');
    assert.ok(node.agent.metrics.actionsSkipped.get() > 0, 'journaled actions skipped');
  });

  it('fails when a health probe does not pass, and succeeds when it does', async () => {
    const node = await startNode(cluster, 'probe');
    const url = `http://127.0.0.1:${(probeServer.address() as AddressInfo).port}/healthz`;
    const spec = (version: string, expectStatus?: number): NodeConfigSpec => ({
      files: [{ path: '/etc/probe.conf', content: { inline: { data: version } } }],
      units: [
        {
          name: 'probed.service',
          content: '[Service]\nExecStart=/bin/probed\n',
          filePaths: ['/etc/probe.conf'],
          healthProbe: { http: { url, ...(expectStatus ? { expectStatus } : {}) }, timeoutSeconds: 1 },
        },
      ],
    });
    const ok = await createRevision(cluster, 'plain', spec('1'));
    await setDesired(cluster, node.name, ok.metadata.name);
    await waitForState(cluster, node.name, 'Done');

    probeStatus = 500;
    const broken = await createRevision(cluster, 'plain', spec('2'));
    await setDesired(cluster, node.name, broken.metadata.name);
    const failed = await waitForState(cluster, node.name, 'Failed', 15_000);
    assert.match(
      failed.metadata?.annotations?.['nodeherd.io/message'] ?? '',
      /health probe of probed\.service failed.*HTTP 500/,
    );

    probeStatus = 204;
    const expect204 = await createRevision(cluster, 'plain', spec('3', 204));
    await setDesired(cluster, node.name, expect204.metadata.name);
    await eventually('applied', async () =>
      (await current(cluster, node.name)) === expect204.metadata.name ? true : undefined,
    );
  });
});
