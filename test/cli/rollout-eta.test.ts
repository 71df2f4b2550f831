// The ETA `nodeherd plan` and `nodeherd status` print, added up from batches, soaks and maintenance
// windows (the end-to-end check against a real rollout is in views-truth.test.ts).

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { defaultedPoolSpec } from '../../src/api/pool-defaults.ts';
import type { NodeConfigPoolSpec } from '../../src/api/types.ts';
import {
  APPLY_SECONDS,
  estimateBatches,
  estimateOffsets,
  etaText,
  formatDuration,
} from '../../src/cli/rollout-eta.ts';

const spec = (rollingUpdate: NonNullable<NodeConfigPoolSpec['updateStrategy']>['rollingUpdate']) =>
  defaultedPoolSpec({
    nodeSelector: {},
    configSelector: {},
    updateStrategy: { type: 'RollingUpdate', rollingUpdate },
  });

const at = (iso: string) => Date.parse(iso);

test('batches add up: each lasts its slowest node’s apply and the soak', () => {
  const result = estimateBatches(
    [{ actions: ['restart'] }, { actions: ['restart', 'reload'] }, { actions: ['reboot', 'none'] }],
    spec({ maxUnavailable: 2, minReadySeconds: 30 }),
    at('2030-01-01T00:00:00Z'),
  );
  assert.ok('eta' in result);
  const expected = 3 * 30 + 2 * APPLY_SECONDS.restart + APPLY_SECONDS.reboot;
  assert.equal(result.eta.seconds, expected);
  assert.equal(result.eta.endsAt, at('2030-01-01T00:00:00Z') + expected * 1000);
  assert.equal(
    etaText(result),
    `about ${formatDuration(expected)} (3 batches; each soaking 30s; done by ${new Date(result.eta.endsAt).toISOString().replace('.000', '')})`,
  );
});

test('a batch in flight counts only what is left of it', () => {
  const result = estimateBatches(
    [{ actions: ['restart'], elapsedSeconds: 10 }, { actions: ['restart'] }],
    spec({ minReadySeconds: 20 }),
    0,
  );
  assert.ok('eta' in result);
  assert.equal(result.eta.seconds, 23 - 10 + 23);
});

test('batches start only inside maintenance windows: the wait until one opens, and the next day’s', () => {
  const windowed = spec({
    maxUnavailable: 1,
    minReadySeconds: 1200,
    maintenanceWindows: [{ schedule: '0 2 * * *', duration: '1h', timeZone: 'UTC' }],
  });
  // At 01:00 the window opens in an hour; three batches of 20 min (+3 s) fit in it.
  const three = estimateBatches(
    [{ actions: ['restart'] }, { actions: ['restart'] }, { actions: ['restart'] }],
    windowed,
    at('2030-01-01T01:00:00Z'),
  );
  assert.ok('eta' in three);
  assert.equal(three.eta.windowWaitSeconds, 3600);
  assert.equal(three.eta.seconds, 3600 + 3 * 1203);
  assert.match(etaText(three), /1h of it waiting for maintenance windows/);
  // A fourth would start after 03:00, when the window has closed: it waits for the next day's.
  const four = estimateBatches(
    [{ actions: ['restart'] }, { actions: ['restart'] }, { actions: ['restart'] }, { actions: ['restart'] }],
    windowed,
    at('2030-01-01T01:00:00Z'),
  );
  assert.ok('eta' in four);
  assert.equal(four.eta.endsAt, at('2030-01-02T02:00:00Z') + 1203 * 1000);
  // A yearly window: the batch waits for next year's opening.
  const yearly = estimateBatches(
    [{ actions: ['restart'] }],
    spec({ maintenanceWindows: [{ schedule: '0 2 1 1 *', duration: '1h', timeZone: 'UTC' }] }),
    at('2030-01-01T05:00:00Z'),
  );
  assert.ok('eta' in yearly);
  assert.equal(yearly.eta.endsAt, at('2031-01-01T02:00:00Z') + APPLY_SECONDS.restart * 1000);
});

test('Spread: the last offset, after the canary, plus its apply and soak', () => {
  const result = estimateOffsets(
    [
      { offsetSeconds: 0, action: 'restart' },
      { offsetSeconds: 300, action: 'restart' },
      { offsetSeconds: 600, action: 'reload' },
    ],
    ['restart'],
    spec({ minReadySeconds: 10 }),
    0,
  );
  assert.ok('eta' in result);
  assert.equal(result.eta.seconds, 13 + Math.max(13, 313, 611));
});

test('durations read as people say them', () => {
  assert.equal(formatDuration(45), '45s');
  assert.equal(formatDuration(200), '3m 20s');
  assert.equal(formatDuration(7500), '2h 5m');
  assert.equal(formatDuration(3 * 86_400 + 4 * 3600), '3d 4h');
  assert.equal(formatDuration(3600), '1h');
});
