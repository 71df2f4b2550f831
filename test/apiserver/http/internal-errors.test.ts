// A 500 is logged with the request id and its answer names it; a client error is neither logged nor
// changed. Nothing but the generic message reaches the client.

import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { test } from 'node:test';
import pino from 'pino';
import { badRequest } from '../../../src/apiserver/errors.ts';
import { internalErrorLogged } from '../../../src/apiserver/http/internal-errors.ts';
import { toApiError } from '../../../src/apiserver/http/respond.ts';

function capturingLogger() {
  const lines: Record<string, unknown>[] = [];
  const sink = new Writable({
    write(chunk, _encoding, done) {
      lines.push(JSON.parse(String(chunk)));
      done();
    },
  });
  return { log: pino({ level: 'info' }, sink), lines };
}

test('an internal error is logged with the request id, which its answer names', async () => {
  const { log, lines } = capturingLogger();
  const failure = new RangeError('Maximum call stack size exceeded at secret-value-xyz');
  const answered = toApiError(
    internalErrorLogged(log, failure, 'req-1', { method: 'PUT', url: '/api/v1/nodes/n?dryRun=All' }),
  );
  await new Promise((resolve) => setImmediate(resolve));
  assert.equal(answered.code, 500);
  assert.equal(
    answered.message,
    'Internal error occurred: the server could not complete the request (request id req-1)',
  );
  assert.equal(lines.length, 1);
  assert.equal(lines[0]!.requestId, 'req-1');
  assert.equal(lines[0]!.method, 'PUT');
  assert.equal(lines[0]!.path, '/api/v1/nodes/n');
  assert.match(JSON.stringify(lines[0]!.err), /Maximum call stack/);
});

test('a client error is answered unchanged and not logged', async () => {
  const { log, lines } = capturingLogger();
  const err = badRequest('nope');
  assert.equal(internalErrorLogged(log, err, 'req-2', { method: 'GET', url: '/' }), err);
  await new Promise((resolve) => setImmediate(resolve));
  assert.deepEqual(lines, []);
});
