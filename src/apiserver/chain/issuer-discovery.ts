// /.well-known/openid-configuration and /openid/v1/jwks, so a verifier outside can check the
// ServiceAccount tokens (kube serves them too). Public: they hold only the public key.

import type { ServiceAccountTokenIssuer } from '../auth/service-account-tokens.ts';
import { sendJson } from '../http/respond.ts';
import type { RequestStage } from './request-chain.ts';

/** `serverUrl` is the server's own URL, known once it listens. */
export function issuerDiscovery(issuer: ServiceAccountTokenIssuer, serverUrl: () => string): RequestStage {
  return {
    name: 'issuer discovery',
    async handle(request, next) {
      const { req, res } = request;
      if (req.method !== 'GET' && req.method !== 'HEAD') return next();
      const path = request.url.pathname;
      if (path === '/.well-known/openid-configuration') {
        sendJson(res, 200, issuer.openidConfiguration(`${serverUrl()}/openid/v1/jwks`));
        return;
      }
      if (path === '/openid/v1/jwks') {
        sendJson(res, 200, issuer.jwks());
        return;
      }
      return next();
    },
  };
}
