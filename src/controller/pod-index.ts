// Pods by the node they are bound to, kept from the pod informer's events: drains and health gates
// look at one node's pods without scanning every pod of the cluster.

import { matchesLabelSelector } from '../api/label-selector.ts';
import type { LabelSelector } from '../api/types.ts';
import { isReady } from '../kube/conditions.ts';
import type { Pod } from '../kube/types.ts';

function key(pod: Pod): string {
  return `${pod.metadata.namespace ?? ''}/${pod.metadata.name}`;
}

export class PodIndex {
  private readonly byNode = new Map<string, Map<string, Pod>>();

  update(pod: Pod, old: Pod | undefined): void {
    if (old?.spec?.nodeName && old.spec.nodeName !== pod.spec?.nodeName) this.remove(old);
    const node = pod.spec?.nodeName;
    if (!node) return;
    let pods = this.byNode.get(node);
    if (!pods) {
      pods = new Map();
      this.byNode.set(node, pods);
    }
    pods.set(key(pod), pod);
  }

  remove(pod: Pod): void {
    const node = pod.spec?.nodeName;
    if (!node) return;
    const pods = this.byNode.get(node);
    pods?.delete(key(pod));
    if (pods?.size === 0) this.byNode.delete(node);
  }

  on(node: string): Pod[] {
    return [...(this.byNode.get(node)?.values() ?? [])];
  }

  /** The pods the selector picks on the node are all Ready (true when there are none). */
  allReady(node: string, selector: LabelSelector): boolean {
    for (const pod of this.byNode.get(node)?.values() ?? []) {
      if (!matchesLabelSelector(selector, pod.metadata.labels)) continue;
      if (pod.status?.phase === 'Succeeded') continue;
      const ready = pod.metadata.deletionTimestamp === undefined && isReady(pod);
      if (!ready) return false;
    }
    return true;
  }
}
