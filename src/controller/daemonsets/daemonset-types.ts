// The wire shapes of apps/v1 DaemonSets and ControllerRevisions, and the daemon pods they own, as far
// as the DaemonSet updater (and the simulated DaemonSet controller) read them. Plain JSON, as served.

import { readyCondition } from '../../kube/conditions.ts';
import type { KubeObject, Pod } from '../../kube/types.ts';

/** Label on ControllerRevisions and pods: the hash of the pod template they were made from. */
export const CONTROLLER_REVISION_HASH_LABEL = 'controller-revision-hash';
/** Label on daemon pods: the DaemonSet generation their template came from (kept for kubectl). */
export const POD_TEMPLATE_GENERATION_LABEL = 'pod-template-generation';

export interface PodTemplate {
  metadata?: { labels?: Record<string, string>; annotations?: Record<string, string> };
  spec?: { nodeSelector?: Record<string, string>; [key: string]: unknown };
}

export interface DaemonSet extends KubeObject {
  spec?: {
    selector?: { matchLabels?: Record<string, string> };
    template?: PodTemplate;
    updateStrategy?: {
      type?: string;
      rollingUpdate?: { maxUnavailable?: number | string; maxSurge?: number | string };
    };
    minReadySeconds?: number;
    revisionHistoryLimit?: number;
  };
  status?: {
    desiredNumberScheduled?: number;
    currentNumberScheduled?: number;
    numberMisscheduled?: number;
    numberReady?: number;
    numberAvailable?: number;
    numberUnavailable?: number;
    updatedNumberScheduled?: number;
    observedGeneration?: number;
  };
}

export interface ControllerRevision extends KubeObject {
  revision: number;
  data?: { spec?: { template?: PodTemplate } };
}

/** A daemon pod as the updater reads it (the node it is bound to and its conditions). */
export interface DaemonPod extends Pod {
  spec?: Pod['spec'] & { nodeName?: string };
  status?: {
    phase?: string;
    conditions?: {
      type: string;
      status: 'True' | 'False' | 'Unknown';
      reason?: string;
      message?: string;
      lastTransitionTime?: string;
    }[];
  };
}

/** Whether the object's controlling owner is this DaemonSet (by uid, as Kubernetes matches it). */
export function isControlledBy(object: KubeObject, owner: KubeObject): boolean {
  const uid = owner.metadata.uid;
  return (
    uid !== undefined &&
    (object.metadata.ownerReferences ?? []).some((ref) => ref.controller === true && ref.uid === uid)
  );
}

/** namespace/name of the DaemonSet controlling the object, if any (by name; the uid is checked later). */
export function controllingDaemonSet(object: KubeObject): string | undefined {
  const ref = (object.metadata.ownerReferences ?? []).find(
    (r) => r.controller === true && r.kind === 'DaemonSet',
  );
  return ref ? `${object.metadata.namespace ?? ''}/${ref.name}` : undefined;
}

/**
 * The DaemonSet's current ControllerRevision: the highest revision it controls, as Kubernetes'
 * DaemonSet controller picks it (an older template re-applied gets its revision bumped to the top).
 */
export function currentRevisionOf(
  daemonSet: DaemonSet,
  revisions: readonly ControllerRevision[],
): ControllerRevision | undefined {
  let current: ControllerRevision | undefined;
  for (const revision of revisions) {
    if (!isControlledBy(revision, daemonSet)) continue;
    if (!current || revision.revision > current.revision) current = revision;
  }
  return current;
}

export function revisionHashOf(object: KubeObject): string | undefined {
  return object.metadata.labels?.[CONTROLLER_REVISION_HASH_LABEL];
}

/** Ready=True, not being deleted, and Ready for at least minReadySeconds (when `now` is given). */
export function isPodAvailable(pod: DaemonPod, minReadySeconds = 0, now = Date.now()): boolean {
  if (pod.metadata.deletionTimestamp !== undefined) return false;
  const ready = readyCondition(pod);
  if (ready?.status !== 'True') return false;
  if (minReadySeconds <= 0) return true;
  const since = Date.parse(ready.lastTransitionTime ?? '');
  return Number.isNaN(since) || since + minReadySeconds * 1000 <= now;
}

/** For a Ready pod still inside minReadySeconds: how long until it counts as available. */
export function msUntilAvailable(pod: DaemonPod, minReadySeconds: number, now: number): number | undefined {
  if (minReadySeconds <= 0 || !isPodAvailable(pod, 0, now) || isPodAvailable(pod, minReadySeconds, now)) {
    return undefined;
  }
  const ready = readyCondition(pod);
  return Date.parse(ready?.lastTransitionTime ?? '') + minReadySeconds * 1000 - now;
}
