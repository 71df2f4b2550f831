// Drift: the agent compares the node with the revision it last applied at start, after every apply,
// when a managed file changes (inotify on the directories, in a temporary root) and periodically
// (units, enablement, state, packages). Repair (the default) writes back only what drifted and
// restarts only the units that depend on it; Report only says so: the Node's ConfigDrift condition,
// Events, metrics.

import assert from 'node:assert/strict';
import { chmod, mkdir, readFile, rename, rm, stat, unlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { CONFIG_DRIFT_CONDITION } from '../../src/api/node-protocol.ts';
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
  type TestNode,
  waitForState,
} from './agent-harness.ts';

async function driftCondition(cluster: Cluster, node: string) {
  const object = await getNode(cluster, node);
  return object.status?.conditions?.find((c) => c.type === CONFIG_DRIFT_CONDITION);
}

/** Waits until a whole drift check has run after this moment (whatever started it). */
async function driftCheckedSinceNow(node: TestNode): Promise<void> {
  const checks = () =>
    ['start', 'apply', 'file', 'interval'].reduce(
      (sum, trigger) => sum + node.agent.metrics.driftChecks.get({ trigger }),
      0,
    );
  const before = checks();
  await eventually('a drift check', async () => checks() > before);
  await node.agent.whenIdle();
}

/** Replaces the file the way editors and config tools do: a new file renamed over the old one. */
async function replaceAtomically(path: string, content: string): Promise<void> {
  await writeFile(`${path}.tmp-edit`, content);
  await rename(`${path}.tmp-edit`, path);
}

const LIVE_SPEC: NodeConfigSpec = {
  files: [
    { path: '/etc/live/app.conf', content: { inline: { data: 'value=1\n' } } },
    { path: '/etc/live/other.conf', content: { inline: { data: 'other\n' } } },
    { path: '/etc/fresh/deep/new.conf', content: { inline: { data: 'fresh\n' } } },
  ],
  units: [
    {
      name: 'app.service',
      content: '[Service]\nExecStart=/bin/app\n',
      filePaths: ['/etc/live/app.conf'],
      dropIns: [{ name: '10-limits.conf', content: '[Service]\nLimitNOFILE=4096\n' }],
    },
    { name: 'bystander.service', content: '[Service]\nExecStart=/bin/bystander\n' },
  ],
};

describe('node agent drift', () => {
  let cluster: Cluster;

  before(async () => {
    cluster = await startCluster();
  });
  after(async () => {
    await cluster?.stop();
  });

  it('at start: reports and repairs files changed, re-moded or deleted while the agent was down', async () => {
    const node = await startNode(cluster, 'drift-start');
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
        { name: 'other.service', content: '[Service]\nExecStart=/bin/other\n' },
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
    const otherRestarts = node.systemd.restarts('other.service');

    await node.restart();
    assert.equal(await readFile(join(node.root, 'etc/drift/edited.conf'), 'utf8'), 'original\n');
    assert.equal((await stat(join(node.root, 'etc/drift/chmodded.conf'))).mode & 0o7777, 0o600);
    assert.equal(await readFile(join(node.root, 'etc/drift/deleted.conf'), 'utf8'), 'gone?\n');
    assert.equal(
      (await stat(join(node.root, 'etc/drift/untouched.conf'))).mtimeMs,
      untouchedBefore,
      'not rewritten',
    );
    // As an apply would: the unit that lists the edited file restarts, no other.
    assert.equal(node.systemd.restarts('drift.service'), restarts + 1);
    assert.equal(node.systemd.restarts('other.service'), otherRestarts);

    const metrics = node.agent.metrics;
    assert.equal(metrics.driftDetected.get({ kind: 'file' }), 3);
    assert.equal(metrics.driftRepaired.get({ kind: 'file' }), 3);
    assert.equal(metrics.driftItems.get({ kind: 'file' }), 0);
    const event = await eventually('DriftRepaired event', async () =>
      (await nodeEvents(cluster, node.name)).find((e) => e.reason === 'DriftRepaired'),
    );
    assert.equal(event.type, 'Warning');
    for (const path of ['edited.conf', 'chmodded.conf', 'deleted.conf'])
      assert.match(event.message ?? '', new RegExp(path));
    assert.doesNotMatch(event.message ?? '', /untouched/);
    assert.doesNotMatch(event.message ?? '', /original|secret-ish/, 'no file contents in events');
    const condition = await eventually('ConfigDrift condition', () => driftCondition(cluster, node.name));
    assert.equal(condition.status, 'False');
    assert.equal(condition.reason, 'DriftRepaired');

    // Nothing drifted: a second restart finds nothing and restarts nothing.
    await node.restart();
    assert.equal(node.agent.metrics.driftDetected.get({ kind: 'file' }), 0);
    assert.equal(node.systemd.restarts('drift.service'), restarts + 1);
    await node.stop();
  });

  it('Repair: inotify sees a replaced, a deleted and a whole removed directory within seconds; only the affected unit restarts', async () => {
    const node = await startNode(cluster, 'drift-live', {
      agent: { drift: { intervalMs: 0, debounceMs: 50, watchRoot: join(cluster.dir, 'drift-live', 'root') } },
    });
    const revision = await createRevision(cluster, 'live', LIVE_SPEC);
    await setDesired(cluster, node.name, revision.metadata.name);
    await waitForState(cluster, node.name, 'Done');
    await eventually(
      'the check after the apply',
      () => node.agent.metrics.driftChecks.get({ trigger: 'apply' }) > 0,
    );
    await node.agent.whenIdle();
    const appRestarts = node.systemd.restarts('app.service');
    const bystanderRestarts = node.systemd.restarts('bystander.service');
    const app = join(node.root, 'etc/live/app.conf');

    const started = performance.now();
    await replaceAtomically(app, 'value=hacked\n');
    await eventually('app.conf repaired', async () => (await readFile(app, 'utf8')) === 'value=1\n', 5000);
    const seconds = (performance.now() - started) / 1000;
    await eventually(
      'a check started by inotify',
      () => node.agent.metrics.driftChecks.get({ trigger: 'file' }) >= 1,
    );
    await eventually('app.service restarted', () => node.systemd.restarts('app.service') === appRestarts + 1);
    assert.equal(node.systemd.restarts('bystander.service'), bystanderRestarts, 'only the affected unit');
    process.stderr.write(`drift of a replaced file repaired after ${seconds.toFixed(2)} s\n`);

    await unlink(join(node.root, 'etc/live/other.conf'));
    await eventually(
      'other.conf restored',
      async () =>
        (await readFile(join(node.root, 'etc/live/other.conf'), 'utf8').catch(() => '')) === 'other\n',
      5000,
    );
    // A file no unit lists: written back, nothing restarted.
    assert.equal(node.systemd.restarts('app.service'), appRestarts + 1);

    // The directory goes, and with it the watch: its parent is watched until it is back.
    await rm(join(node.root, 'etc/fresh'), { recursive: true });
    const fresh = join(node.root, 'etc/fresh/deep/new.conf');
    await eventually(
      'new.conf restored',
      async () => (await readFile(fresh, 'utf8').catch(() => '')) === 'fresh\n',
      5000,
    );
    // ... and once back, the directory itself is watched again.
    await replaceAtomically(fresh, 'changed again\n');
    await eventually(
      'new.conf repaired again',
      async () => (await readFile(fresh, 'utf8')) === 'fresh\n',
      5000,
    );

    const reasons = (await nodeEvents(cluster, node.name)).map((e) => e.reason);
    assert.ok(reasons.filter((r) => r === 'DriftRepaired').length >= 3, reasons.join(','));
    assert.equal(node.agent.metrics.driftItems.get({ kind: 'file' }), 0);
    await node.stop();
  });

  it('Repair: a periodic check finds drift of a drop-in, enablement and state', async () => {
    const node = await startNode(cluster, 'drift-units', { agent: { drift: { intervalMs: 200 } } });
    const revision = await createRevision(cluster, 'units', {
      ...LIVE_SPEC,
      units: LIVE_SPEC.units!.map((u) => ({ ...u, state: 'running' as const })),
    });
    await setDesired(cluster, node.name, revision.metadata.name);
    await waitForState(cluster, node.name, 'Done');
    // The check after the apply has run: what follows is for the periodic check to find (else the
    // queued post-apply check may find and repair it first).
    await driftCheckedSinceNow(node);
    const appRestarts = node.systemd.restarts('app.service');

    await node.systemd.writeDropIn('app.service', '10-limits.conf', '[Service]\nLimitNOFILE=1\n');
    await node.systemd.disable('bystander.service');
    await node.systemd.stop('bystander.service');
    await eventually(
      'drop-in, enablement and state repaired',
      async () =>
        (await node.systemd.readDropIn('app.service', '10-limits.conf')) ===
          '[Service]\nLimitNOFILE=4096\n' &&
        node.systemd.unit('bystander.service')?.enabled === true &&
        node.systemd.unit('bystander.service')?.activeState === 'active',
      5000,
    );
    assert.equal(node.systemd.restarts('app.service'), appRestarts + 1, 'the drop-in restarts its unit');
    assert.equal(node.systemd.needsDaemonReload('app.service'), false, 'reloaded before the restart');
    const metrics = node.agent.metrics;
    assert.equal(metrics.driftDetected.get({ kind: 'dropin' }), 1);
    assert.equal(metrics.driftDetected.get({ kind: 'enablement' }), 1);
    assert.equal(metrics.driftDetected.get({ kind: 'state' }), 1);
    assert.ok(metrics.driftChecks.get({ trigger: 'interval' }) >= 1);
    await node.stop();
  });

  it('Report: drift is reported on the Node (condition, Event, metric) and left in place', async () => {
    await createPool(cluster, 'reported', { drift: { policy: 'Report' } });
    const node = await startNode(cluster, 'drift-report', {
      agent: {
        drift: { intervalMs: 0, debounceMs: 50, watchRoot: join(cluster.dir, 'drift-report', 'root') },
      },
    });
    const revision = await createRevision(cluster, 'reported', LIVE_SPEC);
    await setDesired(cluster, node.name, revision.metadata.name);
    await waitForState(cluster, node.name, 'Done');
    // The check after the apply has run (a node that never drifted gets no ConfigDrift condition).
    await eventually(
      'the drift check after the apply',
      async () => node.agent.metrics.driftChecks.get({ trigger: 'apply' }) > 0,
    );
    await node.agent.whenIdle();
    assert.equal(await driftCondition(cluster, node.name), undefined, 'no condition before any drift');
    const appRestarts = node.systemd.restarts('app.service');
    const app = join(node.root, 'etc/live/app.conf');

    await replaceAtomically(app, 'value=hacked\n');
    const condition = await eventually(
      'ConfigDrift True',
      async () => {
        const c = await driftCondition(cluster, node.name);
        return c?.status === 'True' ? c : undefined;
      },
      5000,
    );
    assert.equal(condition.reason, 'DriftDetected');
    assert.match(condition.message ?? '', /app\.conf/);
    const event = await eventually('DriftDetected event', async () =>
      (await nodeEvents(cluster, node.name)).find((e) => e.reason === 'DriftDetected'),
    );
    assert.match(event.message ?? '', /policy Report/);
    assert.equal(await readFile(app, 'utf8'), 'value=hacked\n', 'left as it is');
    assert.equal(node.systemd.restarts('app.service'), appRestarts);
    assert.equal(node.agent.metrics.driftItems.get({ kind: 'file' }), 1);

    // Put back by hand: the condition clears.
    await replaceAtomically(app, 'value=1\n');
    await eventually(
      'ConfigDrift False',
      async () => (await driftCondition(cluster, node.name))?.status === 'False',
      5000,
    );
    assert.equal(node.agent.metrics.driftItems.get({ kind: 'file' }), 0);
    await node.stop();
  });

  it('Repair that fails, and one that would need a reboot: left in place, ConfigDrift True with the reason', async () => {
    const root = join(cluster.dir, 'drift-hard', 'root');
    const node = await startNode(cluster, 'drift-hard', {
      agent: { drift: { intervalMs: 0, debounceMs: 50, watchRoot: root } },
    });
    const revision = await createRevision(cluster, 'hard', {
      ...LIVE_SPEC,
      disruptionPolicies: { files: [{ path: '/etc/live/other.conf', action: 'Reboot' }] },
    });
    await setDesired(cluster, node.name, revision.metadata.name);
    await waitForState(cluster, node.name, 'Done');
    const reboots = node.host.reboots;
    const conditionReason = async (reason: string) => {
      const c = await driftCondition(cluster, node.name);
      return c?.status === 'True' && c.reason === reason ? c : undefined;
    };

    await replaceAtomically(join(root, 'etc/live/other.conf'), 'edited\n');
    const needsReboot = await eventually(
      'RepairNeedsReboot',
      () => conditionReason('RepairNeedsReboot'),
      5000,
    );
    assert.match(needsReboot.message ?? '', /other\.conf/);
    assert.equal(await readFile(join(root, 'etc/live/other.conf'), 'utf8'), 'edited\n', 'not repaired');
    assert.equal(node.host.reboots, reboots, 'no reboot');
    await replaceAtomically(join(root, 'etc/live/other.conf'), 'other\n');
    await eventually(
      'cleared',
      async () => (await driftCondition(cluster, node.name))?.reason === 'NoDrift',
      5000,
    );

    // A directory where the file belongs: writing it back fails at every check.
    await rm(join(root, 'etc/live/app.conf'));
    await mkdir(join(root, 'etc/live/app.conf/inside'), { recursive: true });
    const failed = await eventually('RepairFailed', () => conditionReason('RepairFailed'), 5000);
    assert.match(failed.message ?? '', /repair failed: write-file:\/etc\/live\/app\.conf/);
    assert.equal(node.agent.metrics.driftItems.get({ kind: 'file' }), 1);
    const event = await eventually('DriftRepairFailed event', async () =>
      (await nodeEvents(cluster, node.name)).find((e) => e.reason === 'DriftRepairFailed'),
    );
    assert.equal(event.type, 'Warning');
    await node.stop();
  });
});
