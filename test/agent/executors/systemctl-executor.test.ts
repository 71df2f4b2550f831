// The real systemd backend's file side, on real files in a temporary root. Its systemctl side
// cannot run here (no systemd on the host; the systemd-nspawn suite covers it): what is tested is
// that it refuses to touch the live system for a non-'/' root, and how it wires the pure command
// lines and parsing (systemctl-commands.test.ts) to a runner.

import assert from 'node:assert/strict';
import { mkdtemp, readdir, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, test } from 'node:test';
import { CommandError, type CommandRunner } from '../../../src/agent/executors/command-runner.ts';
import { LiveSystemRefusedError } from '../../../src/agent/executors/live-system-guard.ts';
import { SystemctlExecutor } from '../../../src/agent/executors/systemctl-executor.ts';

let root: string;

beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), 'nodeherd-systemd-'));
});

afterEach(async () => {
  await rm(root, { recursive: true, force: true });
});

test('unit files and drop-ins are written 0644 under <root>/etc/systemd/system', async () => {
  const systemd = new SystemctlExecutor({ rootDir: root });
  await systemd.writeUnit('app.service', '[Service]\nExecStart=/usr/bin/app\n');
  await systemd.writeDropIn('app.service', '10-env.conf', '[Service]\nEnvironment=A=1\n');
  const unit = join(root, 'etc/systemd/system/app.service');
  const dropIn = join(root, 'etc/systemd/system/app.service.d/10-env.conf');
  assert.equal(await readFile(unit, 'utf8'), '[Service]\nExecStart=/usr/bin/app\n');
  assert.equal(await readFile(dropIn, 'utf8'), '[Service]\nEnvironment=A=1\n');
  assert.equal((await stat(unit)).mode & 0o7777, 0o644);
  assert.equal((await stat(dropIn)).mode & 0o7777, 0o644);
});

test('removing the last drop-in removes the .d directory; other drop-ins keep it', async () => {
  const systemd = new SystemctlExecutor({ rootDir: root });
  await systemd.writeDropIn('app.service', '10-a.conf', 'a');
  await systemd.writeDropIn('app.service', '20-b.conf', 'b');
  await systemd.removeDropIn('app.service', '10-a.conf');
  assert.deepEqual(await readdir(join(root, 'etc/systemd/system/app.service.d')), ['20-b.conf']);
  await systemd.removeDropIn('app.service', '20-b.conf');
  assert.deepEqual(await readdir(join(root, 'etc/systemd/system')), []);
  await systemd.removeDropIn('app.service', '20-b.conf'); // already gone: fine
});

test('removeUnit removes the unit file and tolerates a missing one', async () => {
  const systemd = new SystemctlExecutor({ rootDir: root });
  await systemd.writeUnit('app.service', 'x');
  await systemd.removeUnit('app.service');
  await systemd.removeUnit('app.service');
  assert.deepEqual(await readdir(join(root, 'etc/systemd/system')), []);
});

test('invalid names never reach the filesystem', async () => {
  const systemd = new SystemctlExecutor({ rootDir: root });
  await assert.rejects(systemd.writeUnit('../../etc/passwd.service', 'x'), /invalid systemd unit name/);
  await assert.rejects(systemd.writeDropIn('app.service', '../x.conf', 'x'), /invalid drop-in name/);
  assert.deepEqual(await readdir(root), []);
});

test('with a root other than / every systemctl command is refused before running anything', async () => {
  const ran: string[][] = [];
  const runner: CommandRunner = {
    async run(_file, args) {
      ran.push([...args]);
      return { code: 0, stdout: '', stderr: '' };
    },
  };
  const systemd = new SystemctlExecutor({ rootDir: root, runner });
  for (const call of [
    () => systemd.daemonReload(),
    () => systemd.enable('a.service'),
    () => systemd.disable('a.service'),
    () => systemd.start('a.service'),
    () => systemd.stop('a.service'),
    () => systemd.restart('a.service'),
    () => systemd.reload('a.service'),
    () => systemd.status('a.service'),
    () => systemd.isActive('a.service'),
    () => systemd.isFailed('a.service'),
  ]) {
    await assert.rejects(call(), LiveSystemRefusedError);
  }
  assert.deepEqual(ran, []);
});

test('allowed, it runs the configured systemctl with the pure command lines and parses the answers', async () => {
  const ran: { file: string; args: string[] }[] = [];
  const answers: Record<string, { code: number; stdout: string; stderr: string }> = {
    show: { code: 0, stdout: 'ActiveState=failed\nSubState=failed\nNRestarts=4\n', stderr: '' },
    restart: {
      code: 1,
      stdout: '',
      stderr: 'Job for a.service failed because the control process exited.\n',
    },
  };
  const runner: CommandRunner = {
    async run(file, args) {
      ran.push({ file, args: [...args] });
      return answers[args[1]!] ?? { code: 0, stdout: '', stderr: '' };
    },
  };
  const systemd = new SystemctlExecutor({
    rootDir: root,
    runner,
    systemctlPath: '/bin/systemctl',
    allowLiveCommands: true,
  });
  await systemd.daemonReload();
  await systemd.enable('a.service');
  assert.deepEqual(await systemd.status('a.service'), {
    activeState: 'failed',
    subState: 'failed',
    nRestarts: 4,
  });
  assert.equal(await systemd.isFailed('a.service'), true);
  assert.equal(await systemd.isActive('a.service'), false);
  await assert.rejects(systemd.restart('a.service'), (error: unknown) => {
    assert.ok(error instanceof CommandError);
    assert.match(error.message, /Job for a.service failed/);
    return true;
  });
  assert.deepEqual(
    ran.map((call) => [call.file, ...call.args].join(' ')),
    [
      '/bin/systemctl --no-ask-password daemon-reload',
      '/bin/systemctl --no-ask-password --no-reload enable a.service',
      '/bin/systemctl --no-ask-password show --property=ActiveState,SubState,NRestarts,InvocationID,UnitFileState,ActiveEnterTimestampMonotonic a.service',
      '/bin/systemctl --no-ask-password show --property=ActiveState,SubState,NRestarts,InvocationID,UnitFileState,ActiveEnterTimestampMonotonic a.service',
      '/bin/systemctl --no-ask-password show --property=ActiveState,SubState,NRestarts,InvocationID,UnitFileState,ActiveEnterTimestampMonotonic a.service',
      '/bin/systemctl --no-ask-password restart a.service',
    ],
  );
});

test('a restart or stop of the unit this process runs in is only enqueued (--no-block)', async () => {
  // Found on real systemd: a blocking `systemctl restart` of the agent's own unit is killed with the
  // unit's control group, so the restart looked failed although it happened.
  const own = '0123456789abcdef0123456789abcdef';
  const ran: string[] = [];
  const runner: CommandRunner = {
    async run(_file, args) {
      ran.push(args.join(' '));
      const unit = args.at(-1);
      const id = unit === 'nodeherd-agent.service' ? own : 'ffffffffffffffffffffffffffffffff';
      return { code: 0, stdout: `ActiveState=active\nInvocationID=${id}\n`, stderr: '' };
    },
  };
  const systemd = new SystemctlExecutor({
    rootDir: root,
    runner,
    allowLiveCommands: true,
    invocationId: own,
  });
  await systemd.restart('nodeherd-agent.service');
  await systemd.restart('kubelet.service');
  await systemd.stop('nodeherd-agent.service');
  const verbs = ran.filter((line) => !line.includes(' show '));
  assert.deepEqual(verbs, [
    '--no-ask-password --no-block restart nodeherd-agent.service',
    '--no-ask-password restart kubelet.service',
    '--no-ask-password --no-block stop nodeherd-agent.service',
  ]);

  // Outside a systemd service (no invocation id) nothing is asked and every job is waited for.
  ran.length = 0;
  const plain = new SystemctlExecutor({
    rootDir: root,
    runner,
    allowLiveCommands: true,
    invocationId: undefined,
  });
  await plain.restart('nodeherd-agent.service');
  assert.deepEqual(ran, ['--no-ask-password restart nodeherd-agent.service']);
});

test('an enqueued restart of the own unit whose systemctl is killed by the stop it caused counts as done', async () => {
  // Seen on real systemd: systemd answered the --no-block request, then SIGTERMed the unit's control
  // group before systemctl had exited (exit -1). Other failures of that request are still errors.
  const own = '0123456789abcdef0123456789abcdef';
  let answer = { code: -1, stdout: '', stderr: '' };
  const runner: CommandRunner = {
    async run(_file, args) {
      if (args.includes('show'))
        return { code: 0, stdout: `ActiveState=active\nInvocationID=${own}\n`, stderr: '' };
      return answer;
    },
  };
  const systemd = new SystemctlExecutor({
    rootDir: root,
    runner,
    allowLiveCommands: true,
    invocationId: own,
  });
  await systemd.restart('nodeherd-agent.service');
  await systemd.stop('nodeherd-agent.service');
  answer = { code: 1, stdout: '', stderr: 'Failed to restart nodeherd-agent.service: Access denied\n' };
  await assert.rejects(systemd.restart('nodeherd-agent.service'), /Access denied/);
});

test('journal runs journalctl -u <unit> -n <lines> --no-pager -o cat through the runner (issue 36)', async () => {
  const calls: { file: string; args: readonly string[] }[] = [];
  const runner: CommandRunner = {
    async run(file, args) {
      calls.push({ file, args });
      if (args.includes('gone.service'))
        return { code: 1, stdout: '', stderr: 'No journal files were found.' };
      return { code: 0, stdout: 'first line\n"command failed" err="bad"\n', stderr: '' };
    },
  };
  const systemd = new SystemctlExecutor({ rootDir: '/', runner, journalctlPath: '/usr/bin/journalctl' });
  assert.deepEqual(await systemd.journal('kubelet.service', 20), [
    'first line',
    '"command failed" err="bad"',
  ]);
  assert.deepEqual(calls[0], {
    file: '/usr/bin/journalctl',
    args: ['-u', 'kubelet.service', '-n', '20', '--no-pager', '-o', 'cat'],
  });
  assert.deepEqual(await systemd.journal('gone.service', 20), [], 'an unreadable journal explains nothing');
  await assert.rejects(systemd.journal('../etc/passwd', 20), /unit/i);
  await assert.rejects(
    new SystemctlExecutor({ rootDir: root, runner }).journal('a.service', 5),
    LiveSystemRefusedError,
  );
});
