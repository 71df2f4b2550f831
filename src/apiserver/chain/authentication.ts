// Who sent the request: a static bearer token of the token store, or a ServiceAccount token this server
// issued (TokenRequest) whose bound objects still exist, mapped onto the identities the authorizer knows
// (Identities.ofServiceAccount: the agent DaemonSet's token of node X is the agent of X). No identity is
// 401. Only the public documents before this stage are answered without one.

import { unauthorizedError } from '../auth/denials.ts';
import type { Identity } from '../auth/identities.ts';
import { looksLikeJwt, type ServiceAccountTokenIssuer } from '../auth/service-account-tokens.ts';
import { authenticateServiceAccountToken, type BoundObjectLookup } from '../auth/token-request.ts';
import { bearerToken, type TokenStore } from '../auth/tokens.ts';
import type { RequestStage } from './request-chain.ts';

/** Who an Authorization header names, or undefined; shared with TokenReview (chain/self-reviews.ts). */
export type Authenticate = (authorization: string | undefined) => Identity | undefined;

export function authenticator(
  tokens: TokenStore,
  serviceAccountTokens: ServiceAccountTokenIssuer,
  boundObjects: BoundObjectLookup,
): Authenticate {
  return (authorization) => {
    const identity = tokens.authenticate(authorization);
    if (identity) return identity;
    const token = bearerToken(authorization);
    if (token === undefined || !looksLikeJwt(token)) return undefined;
    const user = authenticateServiceAccountToken(serviceAccountTokens, boundObjects, token);
    return user ? tokens.identities.ofServiceAccount(user.username, user.extra) : undefined;
  };
}

export function authentication(authenticate: Authenticate): RequestStage {
  return {
    name: 'authentication',
    async handle(request, next) {
      const identity = authenticate(request.req.headers.authorization);
      if (!identity) throw unauthorizedError();
      request.identity = identity;
      return next();
    },
  };
}
