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

export function authentication(
  tokens: TokenStore,
  serviceAccountTokens: ServiceAccountTokenIssuer,
  boundObjects: BoundObjectLookup,
): RequestStage {
  const authenticate = (authorization: string | undefined): Identity | undefined => {
    const identity = tokens.authenticate(authorization);
    if (identity) return identity;
    const token = bearerToken(authorization);
    if (token === undefined || !looksLikeJwt(token)) return undefined;
    const user = authenticateServiceAccountToken(serviceAccountTokens, boundObjects, token);
    return user ? tokens.identities.ofServiceAccount(user.username, user.extra) : undefined;
  };
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
