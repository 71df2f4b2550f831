// An error that is not the client's (500) is logged with the request's id, and the answer names that id
// (beside the Audit-Id header every answer carries), so an operator can find the log line of a failure
// a user reports. Client errors are answered as they are, unlogged.

import type { IncomingMessage } from 'node:http';
import type { Logger } from 'pino';
import { ApiError } from '../errors.ts';
import { toApiError } from './respond.ts';

export function internalErrorLogged(
  log: Logger,
  err: unknown,
  requestId: string,
  req: Pick<IncomingMessage, 'method' | 'url'>,
): unknown {
  const apiError = toApiError(err);
  if (apiError.code !== 500) return err;
  const path = (req.url ?? '/').split('?')[0];
  log.error({ err, requestId, method: req.method, path }, 'internal error answering a request');
  return new ApiError(
    500,
    apiError.reason,
    `${apiError.message} (request id ${requestId})`,
    apiError.details,
  );
}
