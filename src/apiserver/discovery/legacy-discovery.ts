// The classic (unaggregated) discovery documents: /api, /apis, /apis/<group>, /api/v1 and
// /apis/<group>/<version>. client-go asks for aggregated discovery first and falls back to these
// whenever the response is plain application/json.

import type { GroupVersions, ResourceRegistry } from '../registry/resource-registry.ts';
import { subresourcesOf } from './subresources.ts';

export interface GroupVersionForDiscovery {
  groupVersion: string;
  version: string;
}

export interface APIGroup {
  name: string;
  versions: GroupVersionForDiscovery[];
  preferredVersion: GroupVersionForDiscovery;
}

export interface APIResource {
  name: string;
  singularName: string;
  namespaced: boolean;
  group?: string;
  version?: string;
  kind: string;
  verbs: string[];
  shortNames?: string[];
  categories?: string[];
}

const gv = (group: string, version: string): GroupVersionForDiscovery => ({
  groupVersion: group ? `${group}/${version}` : version,
  version,
});

function toAPIGroup(g: GroupVersions): APIGroup {
  return {
    name: g.group,
    versions: g.versions.map((v) => gv(g.group, v)),
    preferredVersion: gv(g.group, g.preferredVersion),
  };
}

/** GET /api. serverAddress ("host:port") is what clients inside 0.0.0.0/0 should use, if known. */
export function apiVersions(registry: ResourceRegistry, serverAddress?: string) {
  const core = registry.groups().find((g) => g.group === '');
  return {
    kind: 'APIVersions',
    versions: core?.versions ?? [],
    serverAddressByClientCIDRs: serverAddress ? [{ clientCIDR: '0.0.0.0/0', serverAddress }] : [],
  };
}

/** GET /apis: every named group (the core group lives under /api). */
export function apiGroupList(registry: ResourceRegistry) {
  return {
    kind: 'APIGroupList',
    apiVersion: 'v1',
    groups: registry
      .groups()
      .filter((g) => g.group !== '')
      .map(toAPIGroup),
  };
}

/** GET /apis/<group>, or undefined when the group is not served. */
export function apiGroup(registry: ResourceRegistry, group: string) {
  const found = registry.groups().find((g) => g.group === group && group !== '');
  return found ? { kind: 'APIGroup', apiVersion: 'v1', ...toAPIGroup(found) } : undefined;
}

/** GET /api/v1 or /apis/<group>/<version>, or undefined when that group-version is not served. */
export function apiResourceList(registry: ResourceRegistry, group: string, version: string) {
  const defs = registry.resources(group, version);
  if (defs.length === 0) return undefined;
  const resources: APIResource[] = [];
  for (const def of defs) {
    resources.push({
      name: def.resource,
      singularName: def.singular,
      namespaced: def.namespaced,
      kind: def.kind,
      verbs: [...def.verbs],
      ...(def.shortNames.length > 0 ? { shortNames: [...def.shortNames] } : {}),
      ...(def.categories.length > 0 ? { categories: [...def.categories] } : {}),
    });
    for (const sub of subresourcesOf(def)) {
      resources.push({
        name: `${def.resource}/${sub.name}`,
        singularName: '',
        namespaced: def.namespaced,
        // group/version appear only when the subresource answers with another group-version's kind.
        ...(sub.group !== def.group || sub.version !== def.version
          ? { group: sub.group, version: sub.version }
          : {}),
        kind: sub.kind,
        verbs: [...sub.verbs],
      });
    }
  }
  return {
    kind: 'APIResourceList',
    apiVersion: 'v1',
    groupVersion: gv(group, version).groupVersion,
    resources,
  };
}
