// Discovery, OpenAPI, version and health documents: the public ones (health, version) before
// authentication, for anyone; the others after authorization. Both answer only once nothing written is
// still uncommitted, since the registry follows CRD writes as they are made.

import { allowsAnonymous } from '../auth/authorizer.ts';
import { ApiError } from '../errors.ts';
import type { DiscoveryService } from '../http/discovery-service.ts';
import { sendJson } from '../http/respond.ts';
import type { DurabilityGate } from '../storage/types.ts';
import type { RequestStage } from './request-chain.ts';

/** Returns when nothing written is still uncommitted, so an answer computed right after is durable. */
async function durableNow(gate: DurabilityGate): Promise<void> {
  while (gate.durableRevision() < gate.currentRevision()) await gate.whenDurable();
}

/** Health and version documents, which a client without credentials may read. */
export function publicDocuments(discovery: DiscoveryService, gate: DurabilityGate): RequestStage {
  return {
    name: 'public documents',
    async handle(request, next) {
      const { info } = request;
      if (info.isResourceRequest || !allowsAnonymous(request.url.pathname, info.verb)) return next();
      await durableNow(gate);
      discovery.serve(request.req, request.res, request.url);
    },
  };
}

/** Every other non-resource path, authorized already: discovery and OpenAPI documents, or 404. */
export function discoveryDocuments(discovery: DiscoveryService, gate: DurabilityGate): RequestStage {
  return {
    name: 'discovery documents',
    async handle(request, next) {
      if (request.info.isResourceRequest) return next();
      await durableNow(gate);
      if (!discovery.serve(request.req, request.res, request.url)) {
        sendJson(
          request.res,
          404,
          new ApiError(404, 'NotFound', 'the server could not find the requested resource').toStatus(),
        );
      }
    },
  };
}
