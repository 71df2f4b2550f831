// A simulated node of `nodeherd up` keeps its files and units across runs: what one run's agent wrote
// is there, with the same content, modes and unit states, when the next run builds the node afresh.

import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { DurableSimulatedSystemd } from '../../src/agent/executors/durable-simulated-systemd.ts';
import { MemoryFileExecutor } from '../../src/agent/executors/memory-file-executor.ts';
import { DurableNodeFiles } from '../../src/sim/durable-node-files.ts';
import { KubeletSystemd, replayedBeforeBoot } from '../../src/sim/kubelet-systemd.ts';

const dir = mkdtempSync(join(tmpdir(), 'nodeherd-up-node-state-'));
after(() => rmSync(dir, { recursive: true, force: true }));

/** A kubelet whose process events are counted (the restore must not restart it). */
function kubeletSystemd() {
  const events: string[] = [];
  const systemd = new KubeletSystemd({
    kubelet: {
      restarting: () => events.push('restarting'),
      stopped: () => events.push('stopped'),
      failed: () => events.push('failed'),
      started: async () => {
        events.push('started');
      },
    },
  });
  return { systemd, events };
}

test('files written in one run are back, byte for byte with mode and owner, in the next', async () => {
  const snapshot = join(dir, 'files.json');
  const firstRun = await DurableNodeFiles.restore(new MemoryFileExecutor(), snapshot);
  const binary = Buffer.from([0, 1, 2, 255]);
  await firstRun.write('/etc/a.conf', Buffer.from('a=1\n'), { mode: 0o640, owner: 0, group: 0 });
  await firstRun.write('/etc/b.bin', binary, { mode: 0o600 });
  await firstRun.write('/etc/gone.conf', Buffer.from('x'));
  await firstRun.remove('/etc/gone.conf');

  const files = new MemoryFileExecutor();
  await DurableNodeFiles.restore(files, snapshot);
  assert.deepEqual(files.paths(), ['/etc/a.conf', '/etc/b.bin']);
  const a = await files.read('/etc/a.conf');
  assert.equal(a?.content.toString(), 'a=1\n');
  assert.equal(a?.mode, 0o640);
  assert.deepEqual((await files.read('/etc/b.bin'))?.content, binary);
});

test('units, drop-ins, enablement and running state come back; the kubelet is not restarted', async () => {
  const log = join(dir, 'systemd.jsonl');
  const first = kubeletSystemd();
  const firstRun = await DurableSimulatedSystemd.attach(
    first.systemd,
    log,
    replayedBeforeBoot('kubelet.service'),
  );
  await firstRun.writeUnit('app.service', '[Service]\nExecStart=/usr/bin/app\n');
  await firstRun.writeUnit('idle.service', '[Service]\nExecStart=/usr/bin/idle\n');
  await firstRun.writeDropIn('kubelet.service', '20-nodeherd.conf', '[Service]\nEnvironment=X=1\n');
  await firstRun.daemonReload();
  await firstRun.enable('app.service');
  await firstRun.start('app.service');
  await firstRun.restart('kubelet.service');

  const next = kubeletSystemd();
  await DurableSimulatedSystemd.attach(next.systemd, log, replayedBeforeBoot('kubelet.service'));
  const app = next.systemd.unit('app.service');
  assert.equal(app?.content, '[Service]\nExecStart=/usr/bin/app\n');
  assert.equal(app?.enabled, true);
  assert.equal(app?.activeState, 'active');
  assert.equal(next.systemd.needsDaemonReload('app.service'), false, 'loaded what is on disk');
  const idle = next.systemd.unit('idle.service');
  assert.equal(idle?.enabled, false);
  assert.equal(idle?.activeState, 'inactive');
  assert.deepEqual(next.systemd.unit('kubelet.service')?.dropIns, {
    '20-nodeherd.conf': '[Service]\nEnvironment=X=1\n',
  });
  assert.match(next.systemd.unit('kubelet.service')?.loaded ?? '', /Environment=X=1/);
  assert.deepEqual(next.events, [], 'the kubelet starts with the node, not during the restore');
});
