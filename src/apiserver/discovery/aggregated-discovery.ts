// Aggregated discovery (apidiscovery.k8s.io/v2, GA in 1.30): all groups, versions and resources of
// /api or /apis in one document, so kubectl needs two requests instead of one per group-version.
// Served only when the client's Accept asks for it; otherwise the legacy documents answer.

import type { ResourceRegistry } from '../registry/resource-registry.ts';
import { subresourcesOf } from './subresources.ts';

export const AGGREGATED_DISCOVERY_CONTENT_TYPE =
  'application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList';

/**
 * Whether an Accept header asks for the v2 aggregated document. client-go sends
 * "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList,...,application/json".
 */
export function acceptsAggregatedDiscovery(accept: string | undefined): boolean {
  if (!accept) return false;
  return accept.split(',').some((range) => {
    const params = new Map(
      range
        .split(';')
        .slice(1)
        .map((p) => p.trim().split('=') as [string, string]),
    );
    const type = range.split(';')[0]!.trim();
    return (
      (type === 'application/json' || type === '*/*') &&
      params.get('g') === 'apidiscovery.k8s.io' &&
      params.get('v') === 'v2' &&
      params.get('as') === 'APIGroupDiscoveryList' &&
      params.get('q') !== '0'
    );
  });
}

/** The APIGroupDiscoveryList served at /api (prefix 'api', core group only) or /apis (named groups). */
export function aggregatedDiscovery(registry: ResourceRegistry, prefix: 'api' | 'apis') {
  const groups = registry.groups().filter((g) => (prefix === 'api' ? g.group === '' : g.group !== ''));
  return {
    kind: 'APIGroupDiscoveryList',
    apiVersion: 'apidiscovery.k8s.io/v2',
    metadata: {},
    items: groups.map((g) => ({
      metadata: { ...(g.group ? { name: g.group } : {}), creationTimestamp: null },
      versions: g.versions.map((version) => ({
        version,
        resources: registry.resources(g.group, version).map((def) => {
          const subresources = subresourcesOf(def).map((sub) => ({
            subresource: sub.name,
            responseKind: { group: sub.group, version: sub.version, kind: sub.kind },
            verbs: [...sub.verbs],
          }));
          return {
            resource: def.resource,
            responseKind: { group: def.group, version: def.version, kind: def.kind },
            scope: def.namespaced ? 'Namespaced' : 'Cluster',
            singularResource: def.singular,
            verbs: [...def.verbs],
            ...(def.shortNames.length > 0 ? { shortNames: [...def.shortNames] } : {}),
            ...(def.categories.length > 0 ? { categories: [...def.categories] } : {}),
            ...(subresources.length > 0 ? { subresources } : {}),
          };
        }),
        freshness: 'Current',
      })),
    })),
  };
}
