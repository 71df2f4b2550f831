// The few shapes of Kubernetes objects this client needs to know; everything else passes through as
// plain JSON for the caller to type.

import type { ObjectMeta } from '../../util/kube-api-types.ts';

export interface KubeObject {
  apiVersion?: string;
  kind?: string;
  /** As on the wire: a bookmark's object carries only its resourceVersion. */
  metadata?: Partial<ObjectMeta>;
  [key: string]: unknown;
}

/** A list response; T is the caller's object type (this file's or ../types.ts's). */
export interface KubeList<T = KubeObject> {
  apiVersion?: string;
  kind?: string;
  metadata: { resourceVersion?: string; continue?: string; remainingItemCount?: number };
  items: T[];
}

export type WatchEventType = 'ADDED' | 'MODIFIED' | 'DELETED' | 'BOOKMARK' | 'ERROR';

/** A change seen by a watch; BOOKMARK and ERROR events are handled by the watch itself. */
export interface WatchEvent<T = KubeObject> {
  type: 'ADDED' | 'MODIFIED' | 'DELETED';
  object: T;
}

/** merge: RFC 7386 JSON merge patch; strategic: kube's strategic merge patch (built-in kinds); json: RFC 6902. */
export type PatchType = 'merge' | 'strategic' | 'json';

export const PATCH_CONTENT_TYPES: Record<PatchType, string> = {
  merge: 'application/merge-patch+json',
  strategic: 'application/strategic-merge-patch+json',
  json: 'application/json-patch+json',
};

/** metav1.DeleteOptions, sent as the DELETE body. */
export interface DeleteOptions {
  /** v1 / DeleteOptions; filled in when left out. */
  apiVersion?: string;
  kind?: string;
  gracePeriodSeconds?: number;
  propagationPolicy?: 'Orphan' | 'Background' | 'Foreground';
  preconditions?: { uid?: string; resourceVersion?: string };
  dryRun?: string[];
}

/** Query parameters; undefined values are left out. */
export type QueryParams = Record<string, string | number | boolean | undefined>;
