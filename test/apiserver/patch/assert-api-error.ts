// Asserts that a call fails with the Status a real API server would send.

import assert from 'node:assert/strict';
import { ApiError } from '../../../src/apiserver/errors.ts';

export function assertApiError(
  fn: () => unknown,
  code: number,
  reason: string,
  message?: string | RegExp,
): ApiError {
  let caught: unknown;
  try {
    fn();
  } catch (error) {
    caught = error;
  }
  assert.ok(caught instanceof ApiError, `expected an ApiError, got ${String(caught)}`);
  assert.equal(caught.code, code, caught.message);
  assert.equal(caught.reason, reason);
  if (typeof message === 'string') assert.equal(caught.message, message);
  else if (message) assert.match(caught.message, message);
  return caught;
}
