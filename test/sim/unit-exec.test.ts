// A simulated unit whose ExecStart= names a program the machine lacks fails as with systemd
// (203/EXEC): `systemctl start` reports it for Type=exec, the unit is failed either way, the journal says
// why; the kubelet's own unit too. A program the agent wrote with an executable bit, or a package
// installed through apt, is there.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { MemoryFileExecutor } from '../../src/agent/executors/memory-file-executor.ts';
import { SimulatedPackages } from '../../src/agent/executors/simulated-packages.ts';
import { KubeletSystemd } from '../../src/sim/kubelet-systemd.ts';
import { locateExecutable } from '../../src/sim/machine-executables.ts';

function machine() {
  const files = new MemoryFileExecutor();
  const packages = new SimulatedPackages({ available: { nginx: ['1.22'] } });
  const kubeletEvents: string[] = [];
  const systemd = new KubeletSystemd({
    kubelet: {
      restarting: () => kubeletEvents.push('restarting'),
      stopped: () => kubeletEvents.push('stopped'),
      failed: () => kubeletEvents.push('failed'),
      started: async () => {
        kubeletEvents.push('started');
      },
    },
    locateExecutable: (program) =>
      locateExecutable(program, {
        modeOf: async (path) => (await files.read(path))?.mode,
        installedPackages: () => Object.keys(packages.installed()),
      }),
    readEnvironmentFile: async (path) => (await files.read(path))?.content.toString(),
  });
  return { files, packages, systemd, kubeletEvents };
}

test('Type=exec: systemctl start fails with 203/EXEC and the unit is failed', async () => {
  const { systemd } = machine();
  await systemd.writeUnit('app.service', '[Service]\nType=exec\nExecStart=/usr/bin/no-such-app --serve\n');
  await systemd.daemonReload();
  await assert.rejects(systemd.start('app.service'), /Job for app\.service failed.*status=203\/EXEC/);
  assert.equal(await systemd.isFailed('app.service'), true);
  assert.deepEqual(systemd.journalLines('app.service'), [
    'app.service: Failed to locate executable /usr/bin/no-such-app: No such file or directory',
    'app.service: Failed at step EXEC spawning /usr/bin/no-such-app: No such file or directory',
    'app.service: Main process exited, code=exited, status=203/EXEC',
    "app.service: Failed with result 'exit-code'.",
  ]);
});

test('Type=simple: systemctl start succeeds, then the unit is failed', async () => {
  const { systemd } = machine();
  await systemd.writeUnit('app.service', '[Service]\nExecStart=/opt/app/bin/app\n');
  await systemd.daemonReload();
  await systemd.restart('app.service');
  assert.equal(await systemd.isFailed('app.service'), true);
});

test('base-image programs, executable files and installed packages are found', async () => {
  const { systemd, files, packages } = machine();
  await systemd.writeUnit('sh.service', "[Service]\nType=exec\nExecStart=/bin/sh -c 'sleep 1'\n");
  await systemd.writeUnit('bare.service', '[Service]\nType=exec\nExecStart=sleep infinity\n');
  await systemd.writeUnit('script.service', '[Service]\nType=exec\nExecStart=/usr/local/bin/run.sh\n');
  await systemd.writeUnit('web.service', '[Service]\nType=exec\nExecStart=/usr/sbin/nginx\n');
  await systemd.daemonReload();
  await systemd.start('sh.service');
  await systemd.start('bare.service');
  await files.write('/usr/local/bin/run.sh', Buffer.from('#!/bin/sh\n'), { mode: 0o644 });
  await assert.rejects(systemd.start('script.service'), /203\/EXEC/, 'not executable');
  await files.write('/usr/local/bin/run.sh', Buffer.from('#!/bin/sh\n'), { mode: 0o755 });
  await systemd.start('script.service');
  await assert.rejects(systemd.start('web.service'), /203\/EXEC/);
  await packages.install('nginx');
  await systemd.start('web.service');
  for (const unit of ['sh.service', 'bare.service', 'script.service', 'web.service']) {
    assert.equal(await systemd.isActive(unit), true, unit);
  }
});

test("a kubelet drop-in that points ExecStart at a missing program: kubelet's unit fails, the kubelet is down", async () => {
  const { systemd, kubeletEvents } = machine();
  await systemd.writeDropIn(
    'kubelet.service',
    '30-path.conf',
    '[Service]\nExecStart=\nExecStart=/usr/local/bin/kubelet\n',
  );
  await systemd.daemonReload();
  await systemd.restart('kubelet.service');
  assert.equal(await systemd.isFailed('kubelet.service'), true);
  assert.deepEqual(kubeletEvents, ['restarting', 'failed']);
  assert.match(
    systemd.lastFailure ?? '',
    /\/usr\/local\/bin\/kubelet: No such file or directory \(status=203\/EXEC\)/,
  );
});
