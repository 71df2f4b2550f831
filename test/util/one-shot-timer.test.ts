import assert from 'node:assert/strict';
import { test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { OneShotTimer } from '../../src/util/one-shot-timer.ts';

test('a new schedule replaces the pending one; cancel drops it', async () => {
  const fired: string[] = [];
  const timer = new OneShotTimer();
  timer.schedule(5, () => fired.push('first'));
  timer.schedule(5, () => fired.push('second'));
  assert.equal(timer.pending, true);
  await sleep(50);
  assert.deepEqual(fired, ['second']);
  assert.equal(timer.pending, false);
  timer.schedule(5, () => fired.push('third'));
  timer.cancel();
  await sleep(50);
  assert.deepEqual(fired, ['second']);
  assert.equal(timer.pending, false);
});
