// The real runner, with real processes (the Node binary itself, so the test needs nothing else).

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { CommandError, execFileRunner, runChecked } from '../../../src/agent/executors/command-runner.ts';

const node = process.execPath;

test('returns stdout, stderr and a non-zero exit code without throwing', async () => {
  const result = await execFileRunner.run(node, [
    '-e',
    "process.stdout.write('out'); process.stderr.write('err'); process.exit(3)",
  ]);
  assert.deepEqual(result, { code: 3, stdout: 'out', stderr: 'err' });
});

test('passes arguments verbatim, with no shell in between', async () => {
  const tricky = ['$(touch /tmp/x)', 'a b', "'; rm -rf /"];
  const result = await execFileRunner.run(node, [
    '-e',
    'console.log(JSON.stringify(process.argv.slice(1)))',
    ...tricky,
  ]);
  assert.deepEqual(JSON.parse(result.stdout), tricky);
});

test('uses exactly the environment given', async () => {
  const result = await execFileRunner.run(
    node,
    ['-e', 'console.log(process.env.ONLY_THIS ?? "unset", process.env.HOME ?? "no home")'],
    {
      env: { ONLY_THIS: 'yes' },
    },
  );
  assert.equal(result.stdout.trim(), 'yes no home');
});

test('a program that cannot start rejects', async () => {
  await assert.rejects(execFileRunner.run('/nonexistent/systemctl', []), { code: 'ENOENT' });
});

test('a timeout kills the program and reports code -1', async () => {
  const result = await execFileRunner.run(node, ['-e', 'setTimeout(() => {}, 10_000)'], { timeoutMs: 200 });
  assert.equal(result.code, -1);
});

test('runChecked turns a failure into a CommandError carrying the output', async () => {
  await assert.rejects(
    runChecked(execFileRunner, node, ['-e', "console.error('Unit x.service not found.'); process.exit(5)"]),
    (error: unknown) => {
      assert.ok(error instanceof CommandError);
      assert.equal(error.result.code, 5);
      assert.match(error.message, /exited with 5: Unit x.service not found\./);
      return true;
    },
  );
  assert.equal((await runChecked(execFileRunner, node, ['-e', "console.log('ok')"])).stdout, 'ok\n');
});
