// The first stage: the profile's public routes (nodeherd: the agent artefacts), answered before the
// server does anything with a request, as they were before the chain existed (no Audit-Id either).

import type { ApiServerProfile } from '../profile.ts';
import type { RequestStage } from './request-chain.ts';

export function profileRoutes(route: ApiServerProfile['route']): RequestStage {
  return {
    name: 'profile routes',
    handle: (request, next) => (route?.(request.req, request.res) ? Promise.resolve() : next()),
  };
}
