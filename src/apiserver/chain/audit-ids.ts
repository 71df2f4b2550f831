// Like kube-apiserver, every answer from here on carries an Audit-Id; whatever a later stage throws is
// answered here as a Status, and an internal error's log line names that id (internal-errors.ts).

import { randomUUID } from 'node:crypto';
import type { Logger } from 'pino';
import { internalErrorLogged } from '../http/internal-errors.ts';
import { sendError } from '../http/respond.ts';
import type { DurabilityGate } from '../storage/types.ts';
import type { RequestStage } from './request-chain.ts';

export function auditIds(log: Logger, gate: DurabilityGate): RequestStage {
  return {
    name: 'audit ids and errors',
    async handle(request, next) {
      const requestId = randomUUID();
      request.res.setHeader('Audit-Id', requestId);
      try {
        await next();
      } catch (err) {
        // An error can reflect state not yet durable too (a conflict with a write still being committed).
        const failure = await gate.whenDurable().then(
          () => err,
          (storeFailure: unknown) => storeFailure,
        );
        sendError(request.res, internalErrorLogged(log, failure, requestId, request.req));
      }
    },
  };
}
