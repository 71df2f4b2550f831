// The subresources a definition serves, described once for legacy discovery, aggregated discovery
// and OpenAPI. Eviction answers with a policy/v1 Eviction: that is how kubectl drain finds it; token
// with an authentication.k8s.io/v1 TokenRequest (kubectl create token).

import type { ResourceDefinition, Verb } from '../registry/resource-definition.ts';

export interface SubresourceInfo {
  name: 'status' | 'eviction' | 'token';
  group: string;
  version: string;
  kind: string;
  verbs: Verb[];
}

export function subresourcesOf(def: ResourceDefinition): SubresourceInfo[] {
  const out: SubresourceInfo[] = [];
  if (def.subresources.eviction) {
    out.push({ name: 'eviction', group: 'policy', version: 'v1', kind: 'Eviction', verbs: ['create'] });
  }
  if (def.subresources.token) {
    out.push({
      name: 'token',
      group: 'authentication.k8s.io',
      version: 'v1',
      kind: 'TokenRequest',
      verbs: ['create'],
    });
  }
  if (def.subresources.status) {
    out.push({
      name: 'status',
      group: def.group,
      version: def.version,
      kind: def.kind,
      verbs: ['get', 'patch', 'update'],
    });
  }
  return out;
}
