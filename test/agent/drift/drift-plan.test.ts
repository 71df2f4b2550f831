// Drift detection as plan(observed, desired): a node set up by the initial plan has no drift; each
// kind of drift yields its item and exactly the repair an apply would do (the restarts included).

import assert from 'node:assert/strict';
import { beforeEach, describe, test } from 'node:test';
import { type ActionExecutors, executeAction } from '../../../src/agent/apply/action-executor.ts';
import { driftPlan, repairNeeds } from '../../../src/agent/drift/drift-plan.ts';
import { observeConfig } from '../../../src/agent/drift/observed-config.ts';
import { MemoryFileExecutor } from '../../../src/agent/executors/memory-file-executor.ts';
import { SimulatedPackages } from '../../../src/agent/executors/simulated-packages.ts';
import { SimulatedSystemd } from '../../../src/agent/executors/simulated-systemd.ts';
import { aptVersionMatches as versionMatches } from '../../../src/api/packages/apt/apt-rules.ts';
import type { NodeConfigSpec } from '../../../src/api/types.ts';
import { plan } from '../../../src/plan/plan.ts';
import { rendered } from '../../support/nodeherd-objects.ts';

const SPEC: NodeConfigSpec = {
  files: [
    { path: '/etc/app/app.conf', content: { inline: { data: 'value=1\n' } } },
    { path: '/etc/app/key.pem', mode: 0o600, content: { inline: { data: 'not a secret\n' } } },
    { path: '/etc/motd', content: { inline: { data: 'hello\n' } } },
  ],
  units: [
    {
      name: 'app.service',
      content: '[Service]\nExecStart=/usr/bin/app\n',
      filePaths: ['/etc/app/app.conf'],
      packages: ['htop'],
      dropIns: [{ name: '10-limits.conf', content: '[Service]\nLimitNOFILE=4096\n' }],
      state: 'running',
    },
    { name: 'side.service', content: '[Service]\nExecStart=/usr/bin/side\n', state: 'running' },
    {
      name: 'kubelet.service',
      dropIns: [{ name: '20-flags.conf', content: '[Service]\nEnvironment=A=1\n' }],
    },
  ],
  packages: [
    { name: 'htop', version: '3.2.2' },
    { name: 'curl', state: 'absent' },
  ],
};

describe('drift as a plan', () => {
  const config = rendered(SPEC);
  let node: ActionExecutors & {
    files: MemoryFileExecutor;
    systemd: SimulatedSystemd;
    packages: SimulatedPackages;
  };

  async function check(desired = config) {
    return driftPlan(await observeConfig(desired, node), desired);
  }
  const ids = (found: Awaited<ReturnType<typeof check>>) => found.repair.actions.map((a) => a.id);

  beforeEach(async () => {
    node = {
      files: new MemoryFileExecutor(),
      systemd: new SimulatedSystemd({ units: { 'kubelet.service': { enabled: true, active: true } } }),
      packages: new SimulatedPackages({ available: { htop: ['3.2.1', '3.2.2'], curl: ['7.88'] } }),
    };
    for (const action of plan(undefined, { config }).actions) await executeAction(action, node);
  });

  test('a node as the revision left it has no drift, and the repair is empty', async () => {
    const found = await check();
    assert.deepEqual(found.items, []);
    assert.deepEqual(ids(found), []);
  });

  test('a changed file: rewritten, and only the unit that lists it restarts', async () => {
    await node.files.write('/etc/app/app.conf', Buffer.from('value=2\n'));
    const found = await check();
    assert.deepEqual(
      found.items.map((i) => [i.kind, i.id]),
      [['file', 'write-file:/etc/app/app.conf']],
    );
    assert.match(found.items[0]!.detail, /^file \/etc\/app\/app\.conf: content \(sha256 /);
    assert.deepEqual(ids(found), ['write-file:/etc/app/app.conf', 'restart-unit:app.service']);
    assert.equal(found.repair.disruption, 'Restart');
  });

  test('a deleted file, a re-moded one and one no unit lists: written back, nothing restarted for them', async () => {
    await node.files.remove('/etc/motd');
    await node.files.write('/etc/app/key.pem', Buffer.from('not a secret\n'), { mode: 0o644 });
    const found = await check();
    assert.deepEqual(
      found.items.map((i) => i.detail),
      ['file /etc/app/key.pem: mode (mode 0644, expected 0600)', 'file /etc/motd: missing'],
    );
    assert.deepEqual(ids(found), ['write-file:/etc/app/key.pem', 'write-file:/etc/motd']);
  });

  test('a changed drop-in: rewritten, daemon-reload, its unit restarted; a missing one of a unit nodeherd did not create too', async () => {
    await node.systemd.writeDropIn('app.service', '10-limits.conf', '[Service]\nLimitNOFILE=1\n');
    await node.systemd.removeDropIn('kubelet.service', '20-flags.conf');
    const found = await check();
    assert.deepEqual(
      found.items.map((i) => [i.kind, i.detail]),
      [
        ['dropin', 'drop-in app.service/10-limits.conf: changed'],
        ['dropin', 'drop-in kubelet.service/20-flags.conf: missing'],
      ],
    );
    assert.deepEqual(ids(found), [
      'write-dropin:app.service/10-limits.conf',
      'write-dropin:kubelet.service/20-flags.conf',
      'daemon-reload',
      'restart-unit:app.service',
      'restart-unit:kubelet.service',
    ]);
  });

  test('a changed unit file: rewritten, re-enabled and restarted (its enablement did not drift)', async () => {
    await node.systemd.writeUnit('side.service', '[Service]\nExecStart=/usr/bin/evil\n');
    const found = await check();
    assert.deepEqual(
      found.items.map((i) => i.detail),
      ['unit side.service: unit file changed'],
    );
    assert.deepEqual(ids(found), [
      'write-unit:side.service',
      'daemon-reload',
      'enable-unit:side.service',
      'restart-unit:side.service',
    ]);
  });

  test('enablement and state: enabled again and started, nothing restarted', async () => {
    await node.systemd.disable('side.service');
    await node.systemd.stop('app.service');
    const found = await check();
    assert.deepEqual(
      found.items.map((i) => [i.kind, i.id]),
      [
        ['enablement', 'enable-unit:side.service'],
        ['state', 'start-unit:app.service'],
      ],
    );
    assert.deepEqual(ids(found), ['enable-unit:side.service', 'start-unit:app.service']);
  });

  test('a unit desired stopped that runs is stopped', async () => {
    const desired = rendered({
      ...SPEC,
      units: SPEC.units!.map((u) => (u.name === 'side.service' ? { ...u, state: 'stopped' as const } : u)),
    });
    for (const action of plan({ config }, { config: desired }).actions) await executeAction(action, node);
    assert.deepEqual((await check(desired)).items, []);
    await node.systemd.start('side.service');
    const found = await check(desired);
    assert.deepEqual(ids(found), ['stop-unit:side.service']);
    assert.match(found.items[0]!.detail, /side\.service: active \(running\), expected stopped/);
  });

  test('package versions: a pinned package downgraded, an absent one installed; apt-update first and the dependent unit restarts', async () => {
    await node.packages.release('htop'); // as apt wants before it moves a held package
    await node.packages.install('htop', '3.2.1');
    await node.packages.install('curl');
    const found = await check();
    assert.deepEqual(
      found.items.map((i) => i.detail),
      ['package curl: 7.88 installed, expected absent', 'package htop: 3.2.1 installed, expected 3.2.2'],
    );
    assert.deepEqual(ids(found), [
      'apt-update',
      'remove-package:curl',
      'install-package:htop',
      'restart-unit:app.service',
    ]);
  });

  test('holds: the pinned package is held by the apply; one that moved anyway is reported so, and the repair holds it again', async () => {
    assert.deepEqual(node.packages.held(), ['htop']);
    assert.deepEqual(node.packages.upgradeUnheld(), [], 'unattended upgrades leave it alone');
    await node.packages.install('htop', '3.2.1'); // dpkg -i, or apt told to change held packages
    const found = await check();
    assert.deepEqual(
      found.items.map((i) => i.detail),
      ['package htop: 3.2.1 installed, expected 3.2.2 (held, and moved anyway)'],
    );
    for (const action of found.repair.actions) await executeAction(action, node);
    assert.equal(await node.packages.installedVersion('htop'), '3.2.2');
    assert.deepEqual(node.packages.held(), ['htop']);
    assert.deepEqual((await check()).items, []);
  });

  test('a drain or reboot policy makes the repair one the agent does not do on its own', async () => {
    const desired = rendered({
      ...SPEC,
      disruptionPolicies: { files: [{ path: '/etc/motd', action: 'Reboot' }] },
    });
    await node.files.write('/etc/motd', Buffer.from('changed\n'));
    const found = await check(desired);
    assert.equal(repairNeeds(found.repair), 'Reboot');
    assert.deepEqual(ids(found), ['write-file:/etc/motd', 'reboot']);
    await node.files.write('/etc/motd', Buffer.from('hello\n'));
    await node.files.write('/etc/app/app.conf', Buffer.from('value=2\n'));
    assert.equal(repairNeeds((await check(desired)).repair), undefined);
  });

  test('apt version patterns', () => {
    assert.equal(versionMatches('1.28.*', '1.28.3-1'), true);
    assert.equal(versionMatches('1.28.*', '1.29.0'), false);
    assert.equal(versionMatches('1.2+x', '1.2+x'), true);
    assert.equal(versionMatches('1.2', '1.2.1'), false);
  });
});
