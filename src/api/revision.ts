// Builds the NodeConfigRevision object for a rendered pool config.

import { API_VERSION } from './group.ts';
import { revisionName } from './hash.ts';
import { POOL_LABEL, REVISION_LABEL } from './node-protocol.ts';
import type { NodeConfigPool, NodeConfigRevision, RenderedConfig, RevisionSource } from './types.ts';

export interface RenderedRevision {
  config: RenderedConfig;
  hash: string;
  hashAlgorithm: string;
  sources: RevisionSource[];
}

/** The revision object, owned by its pool (deleting the pool deletes its revisions). */
export function buildRevision(
  pool: NodeConfigPool,
  rendered: RenderedRevision,
  revision: number,
): NodeConfigRevision {
  const owner = pool.metadata.uid
    ? [
        {
          apiVersion: API_VERSION,
          kind: 'NodeConfigPool',
          name: pool.metadata.name,
          uid: pool.metadata.uid,
          controller: true,
          blockOwnerDeletion: true,
        },
      ]
    : undefined;
  return {
    apiVersion: API_VERSION,
    kind: 'NodeConfigRevision',
    metadata: {
      name: revisionName(pool.metadata.name, rendered.hash),
      labels: { [POOL_LABEL]: pool.metadata.name, [REVISION_LABEL]: String(revision) },
      ...(owner ? { ownerReferences: owner } : {}),
    },
    spec: {
      pool: pool.metadata.name,
      revision,
      hash: rendered.hash,
      hashAlgorithm: rendered.hashAlgorithm,
      config: rendered.config,
      sources: rendered.sources,
    },
  };
}
