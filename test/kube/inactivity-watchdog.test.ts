import assert from 'node:assert/strict';
import { mock, test } from 'node:test';
import { InactivityWatchdog } from '../../src/kube/inactivity-watchdog.ts';

test('fires only after a full timeout without activity, counted from the last touch', (t) => {
  mock.timers.enable({ apis: ['setTimeout', 'Date'] });
  t.after(() => mock.timers.reset());
  let fired = 0;
  const watchdog = new InactivityWatchdog(
    1000,
    () => fired++,
    () => Date.now(),
  );
  watchdog.start();
  mock.timers.tick(600);
  watchdog.touch();
  mock.timers.tick(600); // 1200 ms since start, 600 ms since the touch
  assert.equal(fired, 0);
  mock.timers.tick(399);
  assert.equal(fired, 0);
  mock.timers.tick(1);
  assert.equal(fired, 1);
  mock.timers.tick(5000);
  assert.equal(fired, 1, 'fires once, then stays quiet');
});

test('stop cancels it', (t) => {
  mock.timers.enable({ apis: ['setTimeout', 'Date'] });
  t.after(() => mock.timers.reset());
  let fired = 0;
  const watchdog = new InactivityWatchdog(
    1000,
    () => fired++,
    () => Date.now(),
  );
  watchdog.start();
  mock.timers.tick(999);
  watchdog.stop();
  mock.timers.tick(10_000);
  assert.equal(fired, 0);
});

test('a steady trickle of activity keeps it quiet indefinitely', (t) => {
  mock.timers.enable({ apis: ['setTimeout', 'Date'] });
  t.after(() => mock.timers.reset());
  let fired = 0;
  const watchdog = new InactivityWatchdog(
    1000,
    () => fired++,
    () => Date.now(),
  );
  watchdog.start();
  for (let i = 0; i < 100; i++) {
    mock.timers.tick(900);
    watchdog.touch();
  }
  assert.equal(fired, 0);
  watchdog.stop();
  assert.throws(() => new InactivityWatchdog(0, () => {}), RangeError);
});
