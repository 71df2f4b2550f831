// The last stage: a resource request that got this far is served by the resource handler, with the
// admission checks the stages before added for its writes.

import type { ResourceHandler } from '../http/resource-handler.ts';
import type { RequestStage } from './request-chain.ts';

export function resources(handler: ResourceHandler): RequestStage {
  return {
    name: 'resources',
    async handle(request, next) {
      const resource = request.resource;
      if (!resource) return next();
      await handler.handle({
        req: request.req,
        res: request.res,
        info: resource.info,
        def: resource.def,
        query: request.url.searchParams,
        body: () => request.body(),
        admit: request.admit,
      });
    },
  };
}
