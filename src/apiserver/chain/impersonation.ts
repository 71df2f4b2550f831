// Impersonation (kube's WithImpersonation): a request with Impersonate-* headers runs as the user they
// name once the authorizer allows the caller the `impersonate` verb on each part (auth/impersonation.ts);
// from here on request.identity is that user, and request.impersonator the caller. The audit line names
// both, with the request's Audit-Id.

import type { Logger } from 'pino';
import type { Decision, ResourceAttributes } from '../auth/authorizer.ts';
import type { Identities, Identity } from '../auth/identities.ts';
import { impersonate, impersonationRequested } from '../auth/impersonation.ts';
import type { RequestStage } from './request-chain.ts';

export function impersonation(
  authorize: (identity: Identity, attrs: ResourceAttributes) => Decision,
  identities: Identities,
  log: Logger,
): RequestStage {
  return {
    name: 'impersonation',
    async handle(request, next) {
      const asked = impersonationRequested(request.req.headersDistinct);
      if (asked === undefined) return next();
      const caller = request.authenticated;
      const identity = impersonate(caller, asked, authorize, identities);
      request.impersonator = caller;
      request.identity = identity;
      log.info(
        {
          auditId: request.res.getHeader('Audit-Id'),
          user: caller.name,
          impersonatedUser: identity.name,
          impersonatedGroups: identity.groups,
          method: request.req.method,
          path: request.url.pathname,
        },
        'impersonated request',
      );
      return next();
    },
  };
}
