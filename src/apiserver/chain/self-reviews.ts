// SelfSubject{Access,Rules}Review and SelfSubjectReview (kubectl auth can-i, auth whoami): answered from
// the authorizer for the requesting identity; TokenReview and SubjectAccessReview (delegated
// authentication and authorization, the controller's /metrics) for the identity the review names.
// Never stored, so the resource handler never sees them.

import type { AuthorizationRules } from '../auth/authorizer.ts';
import type { Identities } from '../auth/identities.ts';
import {
  isSelfReview,
  selfSubjectAccessReview,
  selfSubjectReview,
  selfSubjectRulesReview,
  subjectAccessReview,
  tokenReview,
} from '../auth/self-reviews.ts';
import { ApiError } from '../errors.ts';
import { decodeObject } from '../http/body.ts';
import { sendJson } from '../http/respond.ts';
import type { Authenticate } from './authentication.ts';
import type { RequestStage } from './request-chain.ts';

export function selfReviews(
  rules: AuthorizationRules,
  authenticate: Authenticate,
  identities: Identities,
): RequestStage {
  return {
    name: 'self reviews',
    async handle(request, next) {
      const resource = request.resource;
      if (!resource || !isSelfReview(resource.def.group, resource.def.resource)) return next();
      const { info, def } = resource;
      if (info.verb !== 'create' || info.name !== undefined || info.namespace !== undefined) {
        throw new ApiError(
          405,
          'MethodNotAllowed',
          'the server does not allow this method on the requested resource',
        );
      }
      const identity = request.authenticated;
      const review = decodeObject(await request.body(), request.req.headers['content-type']);
      const apiVersion = `${def.group}/${def.version}`;
      const answer =
        def.resource === 'tokenreviews'
          ? tokenReview(review, apiVersion, (token) => authenticate(`Bearer ${token}`))
          : def.resource === 'subjectaccessreviews'
            ? subjectAccessReview(review, apiVersion, identities, rules)
            : def.resource === 'selfsubjectaccessreviews'
              ? selfSubjectAccessReview(identity, { ...review, apiVersion }, rules)
              : def.resource === 'selfsubjectrulesreviews'
                ? selfSubjectRulesReview(identity, { ...review, apiVersion }, rules)
                : selfSubjectReview(identity, apiVersion);
      sendJson(request.res, 201, answer);
    },
  };
}
