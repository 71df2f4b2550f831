// What a DELETE answers once the object is gone, per kind, as kube's registries do: stores built with
// ReturnDeletedObject=true (pods, namespaces, service accounts — pkg/registry/core/*/storage — and every
// custom resource, apiextensions-apiserver's customresource/etcd.go) answer the deleted object; every
// other built-in store (ConfigMaps, Secrets, Events, Leases, Nodes, DaemonSets, PDBs, ...) answers a
// Status. An object kept by finalizers is answered as the object (with its deletionTimestamp) by all.

import type { ResourceDefinition } from '../registry/resource-definition.ts';
import type { KubeObject } from '../storage/types.ts';

const RETURN_DELETED_OBJECT = new Set(['/pods', '/namespaces', '/serviceaccounts']);

export function returnsDeletedObject(def: ResourceDefinition): boolean {
  return !def.builtin || RETURN_DELETED_OBJECT.has(`${def.group}/${def.resource}`);
}

/** genericregistry.Store's finalizeDelete: Success with the name, group, resource and uid. */
export function deletedStatus(def: ResourceDefinition, object: KubeObject): KubeObject {
  const details: KubeObject = { name: object.metadata?.name };
  if (def.group !== '') details.group = def.group;
  details.kind = def.resource;
  if (object.metadata?.uid) details.uid = object.metadata.uid;
  return { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Success', details };
}
