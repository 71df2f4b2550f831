// meta.k8s.io PartialObjectMetadata(List): an object reduced to its metadata, which clients ask for
// with `Accept: application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1` (metadata informers,
// the garbage collector, kubectl for some calls) and which Table rows carry by default.

import type { KubeObject } from '../storage/types.ts';
import { jsonClone } from './json-value.ts';

export type MetaGroupVersion = 'meta.k8s.io/v1' | 'meta.k8s.io/v1beta1';

export function toPartialObjectMetadata(
  object: KubeObject,
  apiVersion: MetaGroupVersion = 'meta.k8s.io/v1',
): KubeObject {
  return { kind: 'PartialObjectMetadata', apiVersion, metadata: jsonClone(object.metadata ?? {}) };
}

export interface ListMeta {
  resourceVersion?: string;
  continue?: string;
  remainingItemCount?: number;
}

/** ListMeta as kube serializes it: empty continue omitted. */
export function listMetadata(meta: ListMeta): ListMeta {
  const out: ListMeta = {};
  if (meta.resourceVersion !== undefined) out.resourceVersion = meta.resourceVersion;
  if (meta.continue) out.continue = meta.continue;
  if (meta.remainingItemCount !== undefined) out.remainingItemCount = meta.remainingItemCount;
  return out;
}

export function toPartialObjectMetadataList(
  items: readonly KubeObject[],
  meta: ListMeta,
  apiVersion: MetaGroupVersion = 'meta.k8s.io/v1',
): KubeObject {
  return {
    kind: 'PartialObjectMetadataList',
    apiVersion,
    metadata: listMetadata(meta),
    items: items.map((item) => toPartialObjectMetadata(item, apiVersion)),
  };
}
