// Which pods a drain evicts, like `kubectl drain --ignore-daemonsets --delete-emptydir-data`: not
// mirror (static) pods, not DaemonSet pods (they would come right back and they are node-level
// agents), not pods that already finished. Pods being deleted are waited for, except on a NotReady
// node, where no kubelet will ever confirm their end.

import { matchesLabelSelector } from '../../api/label-selector.ts';
import type { LabelSelector } from '../../api/types.ts';
import { MIRROR_POD_ANNOTATION } from '../../kube/informer.ts';
import type { Pod } from '../../kube/types.ts';

export { MIRROR_POD_ANNOTATION };

export interface DrainWork {
  /** Pods to evict now. */
  evict: Pod[];
  /** Pods already terminating, to wait for. */
  terminating: Pod[];
}

function isDaemonSetPod(pod: Pod): boolean {
  return (pod.metadata.ownerReferences ?? []).some((o) => o.controller && o.kind === 'DaemonSet');
}

/** `skip`: pods the pool's drain leaves alone (spec.drain.skipPodSelector): neither evicted nor waited for. */
export function drainWork(pods: readonly Pod[], nodeReady: boolean, skip?: LabelSelector): DrainWork {
  const work: DrainWork = { evict: [], terminating: [] };
  for (const pod of pods) {
    if (pod.metadata.annotations?.[MIRROR_POD_ANNOTATION] !== undefined) continue;
    if (isDaemonSetPod(pod)) continue;
    if (skip && matchesLabelSelector(skip, pod.metadata.labels)) continue;
    const phase = pod.status?.phase;
    if (phase === 'Succeeded' || phase === 'Failed') continue;
    if (pod.metadata.deletionTimestamp !== undefined) {
      if (nodeReady) work.terminating.push(pod);
      continue;
    }
    work.evict.push(pod);
  }
  return work;
}
