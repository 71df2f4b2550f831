// The agent against the real embedded API server: real files in a temporary root, simulated
// systemd and apt. A revision named in the desired-revision annotation is applied, reported, and
// later changes restart only what they touch and remove what left the config.

import assert from 'node:assert/strict';
import { readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { NodeConfigSpec } from '../../src/api/types.ts';
import { eventually } from '../support/eventually.ts';
import {
  type Cluster,
  createRevision,
  getNode,
  nodeEvents,
  setDesired,
  startCluster,
  startNode,
  type TestNode,
  waitForState,
} from './agent-harness.ts';

function demoSpec(appConf: string, withSide = true): NodeConfigSpec {
  return {
    files: [
      { path: '/etc/demo/app.conf', mode: 0o640, content: { inline: { data: appConf } } },
      ...(withSide ? [{ path: '/etc/demo/side.conf', content: { inline: { data: 'side=1\n' } } }] : []),
      {
        path: '/usr/local/bin/demo',
        mode: 0o755,
        content: { inline: { data: 'IyEvYmluL3NoCmVjaG8gaGkK', encoding: 'base64' as const } },
      },
    ],
    units: [
      {
        name: 'demo.service',
        content: '[Service]\nExecStart=/usr/local/bin/demo\nExecReload=/bin/true\n',
        filePaths: ['/etc/demo/app.conf', '/usr/local/bin/demo'],
      },
      ...(withSide
        ? [
            {
              name: 'side.service',
              content: '[Service]\nExecStart=/bin/sleep infinity\n',
              filePaths: ['/etc/demo/side.conf'],
            },
          ]
        : []),
    ],
    packages: [{ name: 'htop', version: '3.2.1' }],
  };
}

describe('node agent applies revisions', () => {
  let cluster: Cluster;
  let node: TestNode;

  before(async () => {
    cluster = await startCluster();
    node = await startNode(cluster, 'apply-1');
  });
  after(async () => {
    await cluster?.stop();
  });

  it('applies the desired revision: files, units, packages, annotations, condition, event', async () => {
    const revision = await createRevision(cluster, 'web', demoSpec('a=1\n'));
    await setDesired(cluster, node.name, revision.metadata.name);
    const done = await waitForState(cluster, node.name, 'Done');

    assert.equal(await readFile(join(node.root, 'etc/demo/app.conf'), 'utf8'), 'a=1\n');
    assert.equal((await stat(join(node.root, 'etc/demo/app.conf'))).mode & 0o7777, 0o640);
    assert.equal(await readFile(join(node.root, 'usr/local/bin/demo'), 'utf8'), '#!/bin/sh\necho hi\n');
    assert.equal((await stat(join(node.root, 'usr/local/bin/demo'))).mode & 0o7777, 0o755);
    for (const unit of ['demo.service', 'side.service']) {
      const simulated = node.systemd.unit(unit);
      assert.equal(simulated?.activeState, 'active', unit);
      assert.equal(simulated?.enabled, true, unit);
      assert.equal(node.systemd.restarts(unit), 0, `${unit} is started, not restarted, when new`);
    }
    assert.deepEqual(node.packages.installed(), { htop: '3.2.1' });
    assert.deepEqual(node.packages.held(), ['htop'], 'a pinned package is held');

    const annotations = done.metadata?.annotations ?? {};
    assert.equal(annotations['nodeherd.io/current-revision'], revision.metadata.name);
    assert.match(annotations['nodeherd.io/message'] ?? '', /applied/);
    const condition = done.status?.conditions?.find((c) => c.type === 'NodeConfigReady');
    assert.equal(condition?.status, 'True');
    assert.equal(condition?.reason, 'Applied');
    const events = await nodeEvents(cluster, node.name);
    assert.ok(
      events.some(
        (e) => e.reason === 'Applied' && e.type === 'Normal' && e.message?.includes(revision.metadata.name),
      ),
      'an Applied event about the Node',
    );
    assert.equal(
      node.agent.metrics.currentRevision.get({ revision: revision.metadata.name, hash: revision.spec.hash }),
      1,
    );
  });

  it('restarts only the unit whose file changed', async () => {
    const revision = await createRevision(cluster, 'web', demoSpec('a=2\n'));
    await setDesired(cluster, node.name, revision.metadata.name);
    await eventually('current revision', async () => {
      const object = await getNode(cluster, node.name);
      const annotations = object.metadata?.annotations ?? {};
      return annotations['nodeherd.io/current-revision'] === revision.metadata.name &&
        annotations['nodeherd.io/state'] === 'Done'
        ? object
        : undefined;
    });
    assert.equal(await readFile(join(node.root, 'etc/demo/app.conf'), 'utf8'), 'a=2\n');
    assert.equal(node.systemd.restarts('demo.service'), 1);
    assert.equal(node.systemd.restarts('side.service'), 0);
    assert.equal(
      node.systemd.recorder.count('daemonReload'),
      1,
      'no unit file changed: no second daemon-reload',
    );
    assert.equal(node.agent.metrics.unitRestarts.get({ unit: 'demo.service' }), 1);
    assert.match(node.agent.renderMetrics(), /nodeherd_agent_unit_restarts_total\{unit="demo.service"\} 1/);
  });

  it('removes a file and a unit that left the config', async () => {
    const revision = await createRevision(cluster, 'web', demoSpec('a=2\n', false));
    await setDesired(cluster, node.name, revision.metadata.name);
    await eventually('current revision', async () => {
      const annotations = (await getNode(cluster, node.name)).metadata?.annotations ?? {};
      return annotations['nodeherd.io/current-revision'] === revision.metadata.name ? true : undefined;
    });
    await assert.rejects(stat(join(node.root, 'etc/demo/side.conf')), { code: 'ENOENT' });
    const side = node.systemd.unit('side.service');
    assert.equal(side?.content, undefined, 'unit file removed');
    assert.equal(side?.activeState, 'inactive');
    assert.equal(side?.enabled, false);
    assert.equal(node.systemd.restarts('demo.service'), 1, 'demo.service untouched');
  });
});
