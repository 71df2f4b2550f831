// Reboots the OS asks for, on the node's side: the agent reads Debian's sentinel (and its .pkgs list)
// under its root, or the pool's sentinel file and command (a real program, run without a shell), and
// says what it found on its Node's nodeherd.io/RebootRequired condition; it reboots when the
// controller's nodeherd.io/reboot-requested asks, once, through the host's one reboot, answers with
// nodeherd.io/rebooted once the boot id changed, and a revision's own reboot answers a request seen
// before it. Real embedded API server over HTTPS, real files, real commands; simulated host.

import assert from 'node:assert/strict';
import { chmodSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { execFileRunner } from '../../src/agent/executors/command-runner.ts';
import type { NodeCondition, NodeObject } from '../../src/agent/watch/kube-objects.ts';
import {
  CURRENT_REVISION_ANNOTATION,
  POOL_LABEL,
  REBOOT_REQUESTED_ANNOTATION,
  REBOOT_REQUIRED_CONDITION,
  REBOOTED_ANNOTATION,
} from '../../src/api/node-protocol.ts';
import type { NodeConfigPoolSpec, NodeConfigSpec } from '../../src/api/types.ts';
import { eventually } from '../support/eventually.ts';
import {
  type Cluster,
  createPool,
  createRevision,
  getNode,
  nodeEvents,
  POOLS,
  setDesired,
  startCluster,
  startNode,
  type TestNode,
  waitForState,
} from './agent-harness.ts';

const CHECK_INTERVAL_MS = 100;

function condition(node: NodeObject): NodeCondition | undefined {
  return node.status?.conditions?.find((c) => c.type === REBOOT_REQUIRED_CONDITION);
}

async function waitForCondition(
  cluster: Cluster,
  node: string,
  what: string,
  test: (c: NodeCondition) => boolean,
): Promise<NodeCondition> {
  return eventually(`${node}: ${what}`, async () => {
    const c = condition(await getNode(cluster, node));
    return c && test(c) ? c : undefined;
  });
}

/** Debian's sentinel as update-notifier's hook writes it, under the node's root. */
function askForReboot(node: TestNode, packages: string[], path = 'var/run/reboot-required'): void {
  mkdirSync(join(node.root, path, '..'), { recursive: true });
  writeFileSync(join(node.root, path), '*** System restart required ***\n');
  writeFileSync(join(node.root, `${path}.pkgs`), packages.map((p) => `${p}\n`).join(''));
}

/** What a reboot does to /run (a tmpfs): the sentinel is gone. */
function bootClears(node: TestNode, path = 'var/run/reboot-required'): void {
  rmSync(join(node.root, path), { force: true });
  rmSync(join(node.root, `${path}.pkgs`), { force: true });
}

async function requestReboot(cluster: Cluster, node: string, request: string, revision?: string) {
  await cluster.admin.patch(`/api/v1/nodes/${node}`, {
    metadata: {
      annotations: {
        [REBOOT_REQUESTED_ANNOTATION]: request,
        ...(revision ? { 'nodeherd.io/desired-revision': revision } : {}),
      },
    },
  });
}

/** A Node labelled into `pool` (so its agent reads that pool's settings before any revision). */
async function createPoolNode(cluster: Cluster, name: string, pool: string): Promise<void> {
  await cluster.admin.create('/api/v1/nodes', {
    apiVersion: 'v1',
    kind: 'Node',
    metadata: { name, labels: { [POOL_LABEL]: pool } },
  });
}

describe('node agent: reboots the OS asks for', () => {
  let cluster: Cluster;

  before(async () => {
    cluster = await startCluster();
  });
  after(async () => {
    await cluster?.stop();
  });

  it("reports Debian's reboot-required with its packages, and the all-clear once it is gone", async () => {
    const node = await startNode(cluster, 'debian-1', {
      agent: { reboots: { intervalMs: CHECK_INTERVAL_MS } },
    });
    await eventually('a first check', () =>
      node.agent.metrics.rebootChecks.get({ trigger: 'start' }) > 0 ? true : undefined,
    );
    await node.agent.whenIdle();
    assert.equal(
      condition(await getNode(cluster, node.name)),
      undefined,
      'a node that never needed a reboot writes nothing',
    );

    askForReboot(node, ['linux-image-6.1.0-18-amd64', 'libc6', 'libc6']);
    const required = await waitForCondition(
      cluster,
      node.name,
      'RebootRequired True',
      (c) => c.status === 'True',
    );
    assert.equal(required.reason, 'SentinelFile');
    assert.match(required.message ?? '', /\/var\/run\/reboot-required/);
    assert.match(required.message ?? '', /packages: linux-image-6\.1\.0-18-amd64, libc6$/);
    const events = await eventually('a RebootRequired Event', async () => {
      const found = (await nodeEvents(cluster, node.name)).filter((e) => e.reason === 'RebootRequired');
      return found.length > 0 ? found : undefined;
    });
    assert.equal(events.length, 1);
    assert.match(node.agent.renderMetrics(), /^nodeherd_agent_reboot_required 1$/m);

    bootClears(node);
    const clear = await waitForCondition(
      cluster,
      node.name,
      'RebootRequired False',
      (c) => c.status === 'False',
    );
    assert.equal(clear.reason, 'NotRequired');
    // Checked again and again: still one Event, the condition unchanged.
    const checks = node.agent.metrics.rebootChecks.get({ trigger: 'interval' });
    await eventually('three more checks', () =>
      node.agent.metrics.rebootChecks.get({ trigger: 'interval' }) >= checks + 3 ? true : undefined,
    );
    assert.equal(
      (await nodeEvents(cluster, node.name)).filter((e) => e.reason === 'RebootRequired').length,
      1,
    );
    assert.deepEqual(condition(await getNode(cluster, node.name)), clear);
    assert.match(node.agent.renderMetrics(), /^nodeherd_agent_reboot_required 0$/m);
  });

  it('bounds the package list it reports', async () => {
    const node = await startNode(cluster, 'debian-2', {
      agent: { reboots: { intervalMs: CHECK_INTERVAL_MS } },
    });
    askForReboot(
      node,
      Array.from({ length: 500 }, (_, i) => `pkg-${i}`),
    );
    const required = await waitForCondition(
      cluster,
      node.name,
      'RebootRequired True',
      (c) => c.status === 'True',
    );
    assert.match(required.message ?? '', /pkg-0, pkg-1, .*pkg-19 and 480 more$/);
    assert.ok((required.message ?? '').length < 1024);
  });

  it("asks the pool's sentinel command (exit 1: needed, 0: not, anything else: failed) and its own sentinel file", async () => {
    const bin = join(cluster.dir, 'bin');
    mkdirSync(bin, { recursive: true });
    const answerFile = join(bin, 'answer');
    const script = join(bin, 'needs-restarting');
    // Like RPM's needs-restarting -r: says why on stdout and exits 1 when a reboot is needed.
    writeFileSync(
      script,
      `#!/bin/sh\n[ "$1" = "-r" ] || exit 2\nanswer=$(cat ${answerFile})\ncase "$answer" in\n  1) echo "Core libraries or services have been updated since boot-up:"; echo "  * kernel"; exit 1;;\n  0) echo "No core libraries or services have been updated since boot-up."; exit 0;;\n  hang) exec sleep 30;;\n  flood) head -c 200000 /dev/zero | tr '\\\\0' x; exit 1;;\n  *) echo "cannot tell" >&2; exit 3;;\nesac\n`,
    );
    chmodSync(script, 0o755);
    writeFileSync(answerFile, '1');
    const reboots: NodeConfigPoolSpec['reboots'] = {
      osRequested: {
        policy: 'Report',
        sentinelFile: '/run/os-wants-reboot',
        sentinelCommand: [script, '-r'],
        timeoutSeconds: 1,
      },
    };
    await createPool(cluster, 'rpm', { reboots });
    await createPoolNode(cluster, 'rpm-1', 'rpm');
    const node = await startNode(cluster, 'rpm-1', {
      createNode: false,
      agent: { reboots: { intervalMs: CHECK_INTERVAL_MS, commands: execFileRunner } },
    });
    const byCommand = await waitForCondition(
      cluster,
      node.name,
      'True by the command',
      (c) => c.status === 'True',
    );
    assert.equal(byCommand.reason, 'SentinelCommand');
    assert.match(byCommand.message ?? '', /needs-restarting -r exited 1\): Core libraries .* \/ \* kernel$/);

    writeFileSync(answerFile, '0');
    await waitForCondition(
      cluster,
      node.name,
      'False',
      (c) => c.status === 'False' && c.reason === 'NotRequired',
    );

    writeFileSync(answerFile, 'broken');
    const failed = await waitForCondition(cluster, node.name, 'Unknown', (c) => c.status === 'Unknown');
    assert.equal(failed.reason, 'CheckFailed');
    assert.match(failed.message ?? '', /exited 3: cannot tell/);

    writeFileSync(answerFile, 'hang');
    await waitForCondition(cluster, node.name, 'Unknown after the timeout', (c) =>
      /was killed or ran longer than 1 s/.test(c.message ?? ''),
    );

    writeFileSync(answerFile, 'flood');
    await waitForCondition(cluster, node.name, 'Unknown for too much output', (c) =>
      /printed more than 65536 bytes/.test(c.message ?? ''),
    );

    // The pool's own file asks, whatever the command says; Debian's path is not the pool's.
    writeFileSync(answerFile, '0');
    askForReboot(node, ['kernel'], 'var/run/reboot-required');
    askForReboot(node, [], 'run/os-wants-reboot');
    const byFile = await waitForCondition(
      cluster,
      node.name,
      'True by the file',
      (c) => c.reason === 'SentinelFile',
    );
    assert.match(byFile.message ?? '', /\(\/run\/os-wants-reboot\)$/);
  });

  it("reads the pool's sentinel again when the node's revision changes, not at every check", async () => {
    await createPool(cluster, 'moving', { reboots: { osRequested: { sentinelFile: '/run/first' } } });
    await createPoolNode(cluster, 'moving-1', 'moving');
    const node = await startNode(cluster, 'moving-1', {
      createNode: false,
      agent: { reboots: { intervalMs: CHECK_INTERVAL_MS } },
    });
    askForReboot(node, [], 'run/second');
    askForReboot(node, [], 'run/first');
    await waitForCondition(cluster, node.name, 'the first sentinel', (c) =>
      /\/run\/first\)$/.test(c.message ?? ''),
    );
    const pool = await cluster.admin.get<{ spec: NodeConfigPoolSpec }>(`${POOLS}/moving`);
    await cluster.admin.update(`${POOLS}/moving`, {
      ...pool,
      spec: { ...pool.spec, reboots: { osRequested: { sentinelFile: '/run/second' } } },
    });
    bootClears(node, 'run/first');
    const checks = node.agent.metrics.rebootChecks.get({ trigger: 'interval' });
    await eventually('five more checks', () =>
      node.agent.metrics.rebootChecks.get({ trigger: 'interval' }) >= checks + 5 ? true : undefined,
    );
    assert.equal(
      condition(await getNode(cluster, node.name))?.status,
      'False',
      'the settings read before hold',
    );

    const revision = await createRevision(cluster, 'moving', {
      files: [{ path: '/etc/moving.conf', content: { inline: { data: 'x\n' } } }],
    });
    await setDesired(cluster, node.name, revision.metadata.name);
    await waitForState(cluster, node.name, 'Done');
    await waitForCondition(cluster, node.name, 'the second sentinel', (c) =>
      /\/run\/second\)$/.test(c.message ?? ''),
    );
  });

  it('refuses a pool whose sentinel makes no sense, with a field error, and stores nothing', async () => {
    const spec = { nodeSelector: {}, configSelector: {} };
    await assert.rejects(
      createPool(cluster, 'bad-sentinel', {
        ...spec,
        reboots: { osRequested: { policy: 'Reboot', sentinelCommand: ['needs-restarting', '-r'] } },
      }),
      (error: Error) => /spec\.reboots\.osRequested\.sentinelCommand\[0\]/.test(error.message),
    );
    await assert.rejects(
      cluster.admin.get('/apis/nodeherd.io/v1alpha1/nodeconfigpools/bad-sentinel'),
      /not found/i,
    );
  });

  it('reboots once when the controller asks, answers once the boot id changed, and the condition clears', async () => {
    const node = await startNode(cluster, 'ask-1', {
      agent: { reboots: { intervalMs: CHECK_INTERVAL_MS }, onHostRestart: async () => 'halt' },
    });
    askForReboot(node, ['linux-image-amd64']);
    await waitForCondition(cluster, node.name, 'RebootRequired True', (c) => c.status === 'True');
    const bootBefore = await node.host.bootId();

    await requestReboot(cluster, node.name, '2026-11-29T04:00:00Z');
    await eventually('halted for the reboot', () => (node.agent.status.halted ? true : undefined));
    assert.equal(node.host.reboots, 1);
    const rebooting = condition(await getNode(cluster, node.name));
    assert.equal(rebooting?.reason, 'Rebooting');
    assert.match(rebooting?.message ?? '', /2026-11-29T04:00:00Z/);

    // The machine comes back: /run is empty, a new boot id, a new agent process.
    bootClears(node);
    await node.restart({ onHostRestart: async () => 'halt' });
    const answered = await eventually('the request answered', async () => {
      const object = await getNode(cluster, node.name);
      return object.metadata?.annotations?.[REBOOTED_ANNOTATION] === '2026-11-29T04:00:00Z'
        ? object
        : undefined;
    });
    const bootAfter = await node.host.bootId();
    assert.notEqual(bootAfter, bootBefore);
    const cleared = await waitForCondition(cluster, node.name, 'False Rebooted', (c) => c.status === 'False');
    assert.equal(cleared.reason, 'Rebooted');
    assert.match(cleared.message ?? '', new RegExp(`boot id ${bootAfter}`));
    assert.ok(answered);
    const rebooted = (await nodeEvents(cluster, node.name)).filter((e) => e.reason === 'Rebooted');
    assert.equal(rebooted.length, 1);
    assert.match(rebooted[0]?.message ?? '', new RegExp(`boot id ${bootAfter} \\(was ${bootBefore}\\)`));

    // Restarted again: the same request is not a new one.
    await node.restart({ onHostRestart: async () => 'halt' });
    await eventually('a check after the restart', () =>
      node.agent.metrics.rebootChecks.get({ trigger: 'interval' }) > 2 ? true : undefined,
    );
    assert.equal(node.host.reboots, 1, 'one reboot per request');
    assert.equal(node.agent.status.halted, false);

    // A new request is a new reboot.
    await requestReboot(cluster, node.name, 'second');
    await eventually('halted again', () => (node.agent.status.halted ? true : undefined));
    assert.equal(node.host.reboots, 2);
  });

  it('asks again when the machine did not reboot (same boot id after a restart)', async () => {
    const node = await startNode(cluster, 'ask-2', { agent: { onHostRestart: async () => 'halt' } });
    const reboot = node.host.reboot.bind(node.host);
    let lose = true;
    node.host.reboot = async () => {
      if (!lose) await reboot();
    };
    await requestReboot(cluster, node.name, 'lost-once');
    await eventually('halted', () => (node.agent.status.halted ? true : undefined));
    assert.equal(node.host.reboots, 0);
    lose = false;
    await node.restart({ onHostRestart: async () => 'halt' });
    await eventually('halted again', () => (node.agent.status.halted ? true : undefined));
    assert.equal(node.host.reboots, 1, 'asked again, and this time it happened');
    await node.restart();
    await eventually('answered', async () =>
      (await getNode(cluster, node.name)).metadata?.annotations?.[REBOOTED_ANNOTATION] === 'lost-once'
        ? true
        : undefined,
    );
    assert.equal(node.host.reboots, 1);
  });

  it('reboots once for a request and a revision whose disruption is Reboot, handed out together', async () => {
    const spec: NodeConfigSpec = {
      files: [{ path: '/etc/sysctl.d/90-nodeherd.conf', content: { inline: { data: 'vm.swappiness=1\n' } } }],
      disruptionPolicies: { files: [{ path: '/etc/sysctl.d/**', action: 'Reboot' }] },
    };
    const node = await startNode(cluster, 'merge-1', { agent: { onHostRestart: async () => 'halt' } });
    const revision = await createRevision(cluster, 'merge', spec);
    await requestReboot(cluster, node.name, 'with-kernel', revision.metadata.name);
    await eventually('halted for the reboot', () => (node.agent.status.halted ? true : undefined));
    assert.equal(node.host.reboots, 1);
    await node.restart({ onHostRestart: async () => 'halt' });
    const done = await waitForState(cluster, node.name, 'Done');
    assert.equal(done.metadata?.annotations?.[CURRENT_REVISION_ANNOTATION], revision.metadata.name);
    await eventually('the request answered by the same reboot', async () =>
      (await getNode(cluster, node.name)).metadata?.annotations?.[REBOOTED_ANNOTATION] === 'with-kernel'
        ? true
        : undefined,
    );
    assert.equal(node.host.reboots, 1, 'one reboot for both');
  });

  it('does not reboot in the middle of a failed apply; the request waits', async () => {
    const node = await startNode(cluster, 'failed-1', {
      agent: { onHostRestart: async () => 'halt', rollbackPolicy: async () => false },
    });
    node.systemd.fail('start', 'bad.service');
    const revision = await createRevision(cluster, 'failing', {
      units: [{ name: 'bad.service', content: '[Service]\nExecStart=/bin/bad\n' }],
    });
    await setDesired(cluster, node.name, revision.metadata.name);
    await waitForState(cluster, node.name, 'Failed');
    await requestReboot(cluster, node.name, 'while-failed');
    await new Promise((resolve) => setTimeout(resolve, 300));
    await node.agent.whenIdle();
    assert.equal(node.host.reboots, 0);
    assert.equal(node.agent.status.halted, false);
  });
});
