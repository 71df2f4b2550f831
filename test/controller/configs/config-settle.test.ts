// Settling a pool's NodeConfigs before rendering (issue 33): a quiet period, bounded after the first
// change of a burst; an input that renders to the current target needs no wait; bad options are
// refused naming the option.

import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { test } from 'node:test';
import { RenderSettle, renderSettleOptions } from '../../../src/controller/configs/config-settle.ts';

test('a change renders after the quiet period; a change within it starts the quiet period again', () => {
  const s = new RenderSettle({ quietMs: 500, maxDelayMs: 5000 });
  const first = s.check('p', 'a@1', 0, false);
  assert.equal(first.settled, false);
  assert.equal(!first.settled && first.waitMs, 500);
  const second = s.check('p', 'a@1,b@2', 300, false);
  assert.equal(!second.settled && second.waitMs, 500, 'the second object restarts the quiet period');
  assert.equal(s.check('p', 'a@1,b@2', 700, false).settled, false);
  assert.deepEqual(s.check('p', 'a@1,b@2', 800, false), { settled: true, waitedMs: 800 });
  // Rendered: the same input again is not a change.
  assert.deepEqual(s.check('p', 'a@1,b@2', 900, false), { settled: true, waitedMs: 0 });
  // Pools settle apart.
  assert.equal(s.check('q', 'c@1', 900, false).settled, false);
});

test('a stream of changes renders at most maxDelayMs after the first', () => {
  const s = new RenderSettle({ quietMs: 500, maxDelayMs: 2000 });
  let t = 0;
  let rendered: number | undefined;
  for (let i = 0; rendered === undefined && i < 100; i++, t += 100) {
    const v = s.check('p', `a@${i}`, t, false);
    if (v.settled) rendered = t;
    else assert.ok(v.waitMs <= 500 && v.waitMs > 0, String(v.waitMs));
  }
  assert.equal(rendered, 2000);
});

test('an input that renders to the current target (a restart, a resync) does not wait', () => {
  const s = new RenderSettle({ quietMs: 500, maxDelayMs: 5000 });
  assert.deepEqual(s.check('p', 'a@1', 0, true), { settled: true, waitedMs: 0 });
  // Forgotten pools start over.
  s.forget('p');
  assert.equal(s.check('p', 'a@1', 0, false).settled, false);
  // Zero settling renders at once.
  assert.equal(new RenderSettle({ quietMs: 0, maxDelayMs: 0 }).check('p', 'x', 0, false).settled, true);
});

test('options: defaults, and each bad value refused naming the option', () => {
  assert.deepEqual(renderSettleOptions(undefined), { quietMs: 500, maxDelayMs: 5000 });
  assert.deepEqual(renderSettleOptions({ quietMs: 0, maxDelayMs: 0 }), { quietMs: 0, maxDelayMs: 0 });
  const names = { quietMs: '--render-quiet-period', maxDelayMs: '--render-max-delay' };
  assert.throws(() => renderSettleOptions({ quietMs: Number.NaN }, names), /--render-quiet-period: must be/);
  assert.throws(() => renderSettleOptions({ quietMs: -1 }, names), /--render-quiet-period/);
  assert.throws(() => renderSettleOptions({ maxDelayMs: 1.5 }, names), /--render-max-delay: must be/);
  assert.throws(
    () => renderSettleOptions({ quietMs: 1000, maxDelayMs: 10 }, names),
    /--render-max-delay: must be at least --render-quiet-period \(1000\)/,
  );
});

test('nodeherd-controller refuses bad settling flags, naming the flag, before it connects', () => {
  const root = new URL('../../..', import.meta.url).pathname;
  for (const [args, expected] of [
    [['--render-quiet-period', 'soon'], /--render-quiet-period: must be a whole number/],
    [
      ['--render-quiet-period', '2000', '--render-max-delay', '100'],
      /--render-max-delay: must be at least --render-quiet-period \(2000\)/,
    ],
  ] as const) {
    const run = spawnSync(
      process.execPath,
      [join(root, 'bin', 'nodeherd-controller.ts'), '--kubeconfig', '/nonexistent/kubeconfig', ...args],
      { encoding: 'utf8', timeout: 60_000 },
    );
    assert.notEqual(run.status, 0);
    assert.match(run.stderr, expected);
  }
});
