// SelfSubject{Access,Rules}Review and SelfSubjectReview (kubectl auth can-i, auth whoami): answered from
// the authorizer for the requesting identity, never stored, so the resource handler never sees them.

import type { AuthorizationRules } from '../auth/authorizer.ts';
import {
  isSelfReview,
  selfSubjectAccessReview,
  selfSubjectReview,
  selfSubjectRulesReview,
} from '../auth/self-reviews.ts';
import { ApiError } from '../errors.ts';
import { decodeObject } from '../http/body.ts';
import { sendJson } from '../http/respond.ts';
import type { RequestStage } from './request-chain.ts';

export function selfReviews(rules: AuthorizationRules): RequestStage {
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
        def.resource === 'selfsubjectaccessreviews'
          ? selfSubjectAccessReview(identity, { ...review, apiVersion }, rules)
          : def.resource === 'selfsubjectrulesreviews'
            ? selfSubjectRulesReview(identity, { ...review, apiVersion }, rules)
            : selfSubjectReview(identity, apiVersion);
      sendJson(request.res, 201, answer);
    },
  };
}
