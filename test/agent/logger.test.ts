// The agent's JSON logger takes pino's argument order (fields, message) or a message alone, so code
// shared with the controller logs the same way through either.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { JsonLogger } from '../../src/agent/logger.ts';
import type { Logger } from '../../src/util/logger.ts';

function capture(level: 'debug' | 'info' = 'info') {
  const lines: Record<string, unknown>[] = [];
  const logger: Logger = new JsonLogger({
    level,
    now: () => Date.UTC(2026, 0, 2, 3, 4, 5),
    write: (line) => lines.push(JSON.parse(line)),
  });
  return { logger, lines };
}

test('fields then message, or a message alone, one JSON line each', () => {
  const { logger, lines } = capture();
  logger.info({ revision: 'r1', done: 3 }, 'applied');
  logger.warn('no fields');
  assert.deepEqual(lines, [
    { time: '2026-01-02T03:04:05.000Z', level: 'info', msg: 'applied', revision: 'r1', done: 3 },
    { time: '2026-01-02T03:04:05.000Z', level: 'warn', msg: 'no fields' },
  ]);
});

test('a child adds its fields to every line; levels below the minimum are dropped; errors print their message', () => {
  const { logger, lines } = capture();
  const child = logger.child({ node: 'n1' });
  child.debug({ x: 1 }, 'hidden');
  child.error({ error: new Error('disk full') }, 'apply failed');
  assert.deepEqual(lines, [
    { time: '2026-01-02T03:04:05.000Z', level: 'error', msg: 'apply failed', node: 'n1', error: 'disk full' },
  ]);
});
