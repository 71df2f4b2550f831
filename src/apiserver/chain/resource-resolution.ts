// Which served resource a resource request addresses (404 when none): after authentication, so an
// anonymous client learns nothing, and before authorization, whose rules and second opinions read it.

import { ApiError } from '../errors.ts';
import type { ResourceRegistry } from '../registry/resource-registry.ts';
import type { RequestStage } from './request-chain.ts';

export function resourceResolution(registry: ResourceRegistry): RequestStage {
  return {
    name: 'resource resolution',
    async handle(request, next) {
      const { info } = request;
      if (!info.isResourceRequest) return next();
      const def = registry.get(info.group, info.version, info.resource);
      if (!def) throw new ApiError(404, 'NotFound', 'the server could not find the requested resource');
      request.resource = { info, def };
      return next();
    },
  };
}
