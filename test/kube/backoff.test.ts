import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Backoff } from '../../src/kube/backoff.ts';

test('delays double from the initial value up to the cap; jitter keeps each within [half, full]', () => {
  const low = new Backoff({ initialMs: 100, maxMs: 1000, random: () => 0 });
  const high = new Backoff({ initialMs: 100, maxMs: 1000, random: () => 0.999999 });
  const lows = Array.from({ length: 7 }, () => low.next());
  const highs = Array.from({ length: 7 }, () => high.next());
  assert.deepEqual(lows, [50, 100, 200, 400, 500, 500, 500]);
  assert.deepEqual(highs, [100, 200, 400, 800, 1000, 1000, 1000]);
  assert.equal(low.attempts, 7);
});

test('reset starts over from the initial delay', () => {
  const backoff = new Backoff({ initialMs: 100, maxMs: 10_000, random: () => 0.5 });
  backoff.next();
  backoff.next();
  backoff.next();
  backoff.reset();
  assert.equal(backoff.attempts, 0);
  assert.equal(backoff.next(), 75);
});

test('real jitter spreads delays and never goes to zero', () => {
  const delays = new Set<number>();
  for (let i = 0; i < 50; i++) {
    const backoff = new Backoff({ initialMs: 1000, maxMs: 1000 });
    const delay = backoff.next();
    assert.ok(delay >= 500 && delay <= 1000, String(delay));
    delays.add(delay);
  }
  assert.ok(delays.size > 10, 'jitter should make delays differ');
});

test('nonsensical settings are refused', () => {
  assert.throws(() => new Backoff({ initialMs: 0 }), RangeError);
  assert.throws(() => new Backoff({ initialMs: 100, maxMs: 50 }), RangeError);
  assert.throws(() => new Backoff({ factor: 0.5 }), RangeError);
});
