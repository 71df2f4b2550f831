import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { SimulatedSystemd, UnitNotFoundError } from '../../../src/agent/executors/simulated-systemd.ts';
import { InjectedFailureError } from '../../../src/agent/executors/simulation-recorder.ts';

const APP = '[Service]\nExecStart=/usr/bin/app\nExecReload=/bin/kill -HUP $MAINPID\n';

async function installedApp(systemd = new SimulatedSystemd()) {
  await systemd.writeUnit('app.service', APP);
  await systemd.daemonReload();
  await systemd.enable('app.service');
  await systemd.start('app.service');
  return systemd;
}

describe('unit lifecycle', () => {
  test('a written unit cannot start before daemon-reload', async () => {
    const systemd = new SimulatedSystemd();
    await systemd.writeUnit('app.service', APP);
    assert.equal(systemd.needsDaemonReload('app.service'), true);
    await assert.rejects(systemd.start('app.service'), UnitNotFoundError);
    await systemd.daemonReload();
    assert.equal(systemd.needsDaemonReload('app.service'), false);
    await systemd.start('app.service');
    assert.equal(await systemd.isActive('app.service'), true);
  });

  test('write, reload, enable, start: active, enabled, with an invocation id', async () => {
    const systemd = await installedApp();
    const status = await systemd.status('app.service');
    assert.equal(status.activeState, 'active');
    assert.equal(status.subState, 'running');
    assert.equal(status.unitFileState, 'enabled');
    assert.match(status.invocationId ?? '', /^[0-9a-f]{32}$/);
  });

  test('starting an active unit is a no-op; restart gives a new invocation and is counted', async () => {
    const systemd = await installedApp();
    const first = (await systemd.status('app.service')).invocationId;
    await systemd.start('app.service');
    assert.equal((await systemd.status('app.service')).invocationId, first);
    await systemd.restart('app.service');
    await systemd.restart('app.service');
    assert.notEqual((await systemd.status('app.service')).invocationId, first);
    assert.equal(systemd.restarts('app.service'), 2);
    assert.equal(systemd.restarts('other.service'), 0);
  });

  test('a changed drop-in needs a daemon-reload too', async () => {
    const systemd = await installedApp();
    await systemd.writeDropIn('app.service', '10-env.conf', '[Service]\nEnvironment=A=1\n');
    assert.equal(systemd.needsDaemonReload('app.service'), true);
    await systemd.daemonReload();
    assert.match(systemd.unit('app.service')?.loaded ?? '', /Environment=A=1/);
    await systemd.removeDropIn('app.service', '10-env.conf');
    assert.equal(systemd.needsDaemonReload('app.service'), true);
  });

  test('stop, disable and remove take a unit away; a running unit outlives its file until stopped', async () => {
    const systemd = await installedApp();
    await systemd.removeUnit('app.service');
    await systemd.daemonReload();
    assert.equal(await systemd.isActive('app.service'), true);
    await systemd.stop('app.service');
    assert.deepEqual(await systemd.status('app.service'), {
      activeState: 'inactive',
      subState: 'dead',
      nRestarts: 0,
      unitFileState: 'not-found',
    });
    await assert.rejects(systemd.disable('app.service'), /file does not exist/);
  });

  test('reload needs an active unit with ExecReload=', async () => {
    const systemd = await installedApp();
    await systemd.reload('app.service');
    await systemd.writeUnit('plain.service', '[Service]\nExecStart=/bin/plain\n');
    await systemd.daemonReload();
    await assert.rejects(systemd.reload('plain.service'), /cannot be reloaded because it is inactive/);
    await systemd.start('plain.service');
    await assert.rejects(systemd.reload('plain.service'), /reload is not applicable/);
  });

  test('a unit in /etc overrides the vendor unit; removing it falls back to the vendor one', async () => {
    const systemd = new SimulatedSystemd({
      units: {
        'kubelet.service': {
          content: '[Service]\nExecStart=/usr/bin/kubelet\n',
          enabled: true,
          active: true,
        },
      },
    });
    assert.equal(await systemd.isActive('kubelet.service'), true);
    await systemd.writeUnit('kubelet.service', '[Service]\nExecStart=/usr/bin/kubelet --v=2\n');
    await systemd.daemonReload();
    assert.match(systemd.unit('kubelet.service')?.loaded ?? '', /--v=2/);
    await systemd.removeUnit('kubelet.service');
    await systemd.daemonReload();
    assert.equal(systemd.unit('kubelet.service')?.loaded, '[Service]\nExecStart=/usr/bin/kubelet\n');
  });

  test('crashes: with Restart= NRestarts grows, without it the unit fails', async () => {
    const systemd = await installedApp();
    systemd.simulateCrash('app.service', { restartPolicy: true });
    systemd.simulateCrash('app.service', { restartPolicy: true });
    assert.equal((await systemd.status('app.service')).nRestarts, 2);
    systemd.simulateCrash('app.service', { restartPolicy: false });
    assert.equal(await systemd.isFailed('app.service'), true);
    await systemd.restart('app.service');
    assert.equal((await systemd.status('app.service')).nRestarts, 0);
    assert.equal(await systemd.isActive('app.service'), true);
  });

  test('invalid names are refused as by the real backend', async () => {
    const systemd = new SimulatedSystemd();
    await assert.rejects(systemd.writeUnit('../x.service', ''), /invalid systemd unit name/);
    await assert.rejects(systemd.writeDropIn('a.service', 'x.txt', ''), /invalid drop-in name/);
  });
});

describe('injected failures', () => {
  test('a unit that fails to start is failed until started again', async () => {
    const systemd = new SimulatedSystemd();
    systemd.fail('start', 'app.service', { message: 'Job for app.service failed.' });
    await systemd.writeUnit('app.service', APP);
    await systemd.daemonReload();
    await assert.rejects(systemd.start('app.service'), /Job for app.service failed\./);
    assert.equal(await systemd.isFailed('app.service'), true);
    await assert.rejects(systemd.start('app.service'), InjectedFailureError); // every time by default
    systemd.recorder.clearFailures();
    await systemd.start('app.service');
    assert.equal(await systemd.isActive('app.service'), true);
  });

  test('a restart that fails once: the first call fails and leaves the unit failed, the retry works', async () => {
    const systemd = await installedApp();
    systemd.fail('restart', 'app.service', { times: 1 });
    await assert.rejects(systemd.restart('app.service'), InjectedFailureError);
    assert.equal(await systemd.isFailed('app.service'), true);
    assert.equal(systemd.restarts('app.service'), 0);
    await systemd.restart('app.service');
    assert.equal(systemd.restarts('app.service'), 1);
    assert.equal(systemd.recorder.count('restart', 'app.service'), 2);
  });

  test('a failure without a target hits every unit; other units are unaffected by targeted ones', async () => {
    const systemd = await installedApp();
    await systemd.writeUnit('b.service', APP);
    await systemd.daemonReload();
    systemd.fail('restart', 'b.service');
    await systemd.restart('app.service');
    await assert.rejects(systemd.restart('b.service'));
    systemd.fail('daemonReload', undefined, { times: 1 });
    await assert.rejects(systemd.daemonReload(), /injected failure: daemonReload/);
    await systemd.daemonReload();
  });
});

describe('timing and the call log', () => {
  test('operations take their configured time, per unit when overridden', async () => {
    const systemd = await installedApp(
      new SimulatedSystemd({
        durations: { restart: 20 },
        targetDurations: { 'slow.service': { restart: 1_000 } },
      }),
    );
    await systemd.writeUnit('slow.service', APP);
    await systemd.daemonReload();
    let started = performance.now();
    await systemd.restart('app.service');
    const fast = performance.now() - started;
    started = performance.now();
    await systemd.restart('slow.service');
    const slow = performance.now() - started;
    // Lower bounds only (a loaded machine makes anything slower, CI saw 131 ms for 20 ms): the
    // override is far enough above the default that the default unit finishing first still shows it.
    assert.ok(fast >= 15, `app.service restart took ${fast} ms`);
    assert.ok(slow >= 990, `slow.service restart took ${slow} ms`);
    assert.ok(
      fast < slow,
      `app.service (${fast} ms) took the default, not slow.service's override (${slow} ms)`,
    );
  });

  test('restarts of different units overlap in time; the log shows both running at once', async () => {
    const systemd = new SimulatedSystemd({ durations: { restart: 50 } });
    for (const name of ['a.service', 'b.service']) await systemd.writeUnit(name, APP);
    await systemd.daemonReload();
    await Promise.all([systemd.restart('a.service'), systemd.restart('b.service')]);
    const [a, b] = systemd.calls.filter((call) => call.op === 'restart');
    assert.ok(a && b && b.startedAt < a.finishedAt!, 'the second restart started before the first finished');
  });

  test('every call is logged in order with its outcome', async () => {
    const systemd = new SimulatedSystemd();
    await systemd.writeUnit('app.service', APP);
    await assert.rejects(systemd.start('app.service'));
    await systemd.daemonReload();
    await systemd.start('app.service');
    await systemd.writeDropIn('app.service', '10-x.conf', '');
    assert.deepEqual(
      systemd.calls.map(({ seq, op, target, ok }) => ({ seq, op, target, ok })),
      [
        { seq: 1, op: 'writeUnit', target: 'app.service', ok: true },
        { seq: 2, op: 'start', target: 'app.service', ok: false },
        { seq: 3, op: 'daemonReload', target: undefined, ok: true },
        { seq: 4, op: 'start', target: 'app.service', ok: true },
        { seq: 5, op: 'writeDropIn', target: 'app.service/10-x.conf', ok: true },
      ],
    );
    assert.match(systemd.calls[1]?.error ?? '', /Unit app.service not found/);
    assert.ok(
      systemd.calls.every((call) => call.finishedAt !== undefined && call.finishedAt >= call.startedAt),
    );
  });
});
