import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { test } from 'node:test';
import { processAlive } from '../../src/util/process-alive.ts';

test('a running process is alive; one that has exited and been reaped is not', () => {
  assert.equal(processAlive(process.pid), true);
  const child = spawnSync(process.execPath, ['-e', '']);
  assert.equal(child.status, 0);
  assert.equal(processAlive(child.pid!), false);
});

test('a process of another user (pid 1) counts as alive even when it may not be signalled', () => {
  assert.equal(processAlive(1), true);
});
