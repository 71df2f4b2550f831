// Reboots and self-updates end the agent's process, so they are not journaled like other steps:
// the agent records the request and, on its next run, recognises that it happened (a new boot id;
// being a new process) and finishes the apply without doing anything twice.

import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { NodeConfigSpec } from '../../src/api/types.ts';
import { eventually } from '../support/eventually.ts';
import {
  type Cluster,
  createRevision,
  getNode,
  setDesired,
  startCluster,
  startNode,
  waitForState,
} from './agent-harness.ts';

function kernelSpec(sysctl: string): NodeConfigSpec {
  return {
    files: [{ path: '/etc/sysctl.d/90-nodeherd.conf', content: { inline: { data: sysctl } } }],
    units: [{ name: 'app.service', content: '[Service]\nExecStart=/bin/app\n' }],
    disruptionPolicies: { files: [{ path: '/etc/sysctl.d/**', action: 'Reboot' }] },
  };
}

function agentSpec(binary: string): NodeConfigSpec {
  return {
    files: [{ path: '/usr/local/bin/nodeherd-agent', mode: 0o755, content: { inline: { data: binary } } }],
    units: [
      {
        name: 'nodeherd-agent.service',
        content: '[Service]\nExecStart=/usr/local/bin/nodeherd-agent\n',
        filePaths: ['/usr/local/bin/nodeherd-agent'],
      },
      { name: 'other.service', content: '[Service]\nExecStart=/bin/other\n' },
    ],
  };
}

describe('node agent reboots and self-updates', () => {
  let cluster: Cluster;

  before(async () => {
    cluster = await startCluster();
  });
  after(async () => {
    await cluster?.stop();
  });

  it('reboots once when a policy asks for it, then completes', async () => {
    const node = await startNode(cluster, 'reboot-1');
    const first = await createRevision(cluster, 'kernel', kernelSpec('vm.swappiness=10\n'));
    await setDesired(cluster, node.name, first.metadata.name);
    await waitForState(cluster, node.name, 'Done');
    const rebootsAfterFirst = node.host.reboots;

    const second = await createRevision(cluster, 'kernel', kernelSpec('vm.swappiness=1\n'));
    await setDesired(cluster, node.name, second.metadata.name);
    await eventually('applied', async () =>
      (await getNode(cluster, node.name)).metadata?.annotations?.['nodeherd.io/current-revision'] ===
      second.metadata.name
        ? true
        : undefined,
    );
    assert.equal(node.host.reboots, rebootsAfterFirst + 1, 'exactly one reboot');
  });

  it('waits for a real reboot and finishes after it, without rebooting again', async () => {
    const node = await startNode(cluster, 'reboot-2', { agent: { onHostRestart: async () => 'halt' } });
    const first = await createRevision(cluster, 'kernel2', kernelSpec('a=1\n'));
    await setDesired(cluster, node.name, first.metadata.name);
    await eventually('halted for the reboot', () => (node.agent.status.halted ? true : undefined));
    assert.equal(node.host.reboots, 1);
    // The agent halts first (so nothing else starts), then says why on the Node.
    await eventually('the Node says it is rebooting', async () =>
      /rebooting/.test(
        (await getNode(cluster, node.name)).metadata?.annotations?.['nodeherd.io/message'] ?? '',
      )
        ? true
        : undefined,
    );

    // "After the reboot": the simulated host already has a new boot id; a new agent process starts.
    await node.restart({ onHostRestart: async () => 'halt' });
    await waitForState(cluster, node.name, 'Done');
    assert.equal(node.host.reboots, 1, 'the reboot is not requested again');
    assert.equal(await readFile(join(node.root, 'etc/sysctl.d/90-nodeherd.conf'), 'utf8'), 'a=1\n');
  });

  it('asks again when the machine did not reboot (same boot id after a restart)', async () => {
    const node = await startNode(cluster, 'reboot-3', { agent: { onHostRestart: async () => 'halt' } });
    const revision = await createRevision(cluster, 'kernel3', kernelSpec('b=1\n'));
    // The reboot request "gets lost": the host keeps its boot id.
    const reboot = node.host.reboot.bind(node.host);
    let lose = true;
    node.host.reboot = async () => {
      if (!lose) await reboot();
    };
    await setDesired(cluster, node.name, revision.metadata.name);
    await eventually('halted', () => (node.agent.status.halted ? true : undefined));
    assert.equal(node.host.reboots, 0);
    lose = false;
    await node.restart();
    await eventually('halted again', () => (node.agent.status.halted ? true : undefined));
    assert.equal(node.host.reboots, 1, 'asked again, and this time it happened');
    await node.restart();
    await waitForState(cluster, node.name, 'Done');
    assert.equal(node.host.reboots, 1);
  });

  it('restarts its own unit last when its binary changes, and finishes', async () => {
    const node = await startNode(cluster, 'self-1');
    const v1 = await createRevision(cluster, 'agents', agentSpec('#!/bin/sh\necho v1\n'));
    await setDesired(cluster, node.name, v1.metadata.name);
    await waitForState(cluster, node.name, 'Done');
    const calls = node.systemd.calls.length;

    const v2 = await createRevision(cluster, 'agents', agentSpec('#!/bin/sh\necho v2\n'));
    await setDesired(cluster, node.name, v2.metadata.name);
    await eventually('applied', async () =>
      (await getNode(cluster, node.name)).metadata?.annotations?.['nodeherd.io/current-revision'] ===
      v2.metadata.name
        ? true
        : undefined,
    );
    assert.equal(node.systemd.restarts('nodeherd-agent.service'), 1);
    assert.equal(node.systemd.restarts('other.service'), 0);
    const changes = node.systemd.calls.slice(calls).filter((c) => c.op !== 'status');
    assert.equal(changes.at(-1)?.op, 'restart', 'the self-restart is the last change');
    assert.equal(node.agent.metrics.unitRestarts.get({ unit: 'nodeherd-agent.service' }), 1);
  });
});
