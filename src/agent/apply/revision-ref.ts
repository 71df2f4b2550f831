// A revision as the agent handles it: name, hash and the spec it applies (config inside).

import type { NodeConfigRevision, RenderedConfig, RevisionSpec } from '../../api/types.ts';

export interface RevisionRef {
  name: string;
  hash: string;
  spec: RevisionSpec;
}

export function revisionRef(revision: NodeConfigRevision): RevisionRef {
  return { name: revision.metadata.name, hash: revision.spec.hash, spec: revision.spec };
}

export function configOf(ref: RevisionRef): RenderedConfig {
  return ref.spec.config;
}

export function sameRevision(
  a: { name: string; hash: string } | undefined,
  b: { name: string; hash: string } | undefined,
): boolean {
  return a !== undefined && b !== undefined && a.name === b.name && a.hash === b.hash;
}
