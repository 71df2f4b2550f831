// Blocking pods (kured's --blocking-pod-selector): pods the selector picks that still run on the nodes
// a batch would take. While there are any, the batch waits (a hold, never a failure).

import { matchesLabelSelector } from '../../api/label-selector.ts';
import type { LabelSelector } from '../../api/types.ts';
import type { Pod } from '../../kube/types.ts';
import type { ClusterGateKind } from './gate-kind.ts';

const DONE_PHASES = new Set(['Succeeded', 'Failed']);

/** "namespace/name on node" of each blocking pod, or undefined when none blocks. */
export function blockingPodsMessage(
  nodes: readonly string[],
  podsOn: (node: string) => readonly Pod[],
  selector: LabelSelector,
): string | undefined {
  const found: string[] = [];
  for (const node of nodes) {
    for (const pod of podsOn(node)) {
      if (DONE_PHASES.has(pod.status?.phase ?? '')) continue;
      if (!matchesLabelSelector(selector, pod.metadata.labels)) continue;
      found.push(`${pod.metadata.namespace ?? ''}/${pod.metadata.name} on ${node}`);
    }
  }
  if (found.length === 0) return undefined;
  const shown = found.slice(0, 5).join(', ');
  return `blocking pods run on the nodes the next batch would take: ${shown}${found.length > 5 ? ` and ${found.length - 5} more` : ''}`;
}

export const blockingPods: ClusterGateKind<LabelSelector> = {
  asks: 'cluster',
  spec: (gate) => gate.blockingPodSelector,
  check(selector, { starting, podsOn }) {
    const message = blockingPodsMessage(starting, podsOn, selector);
    return message ? [{ state: 'hold', reason: 'BlockingPods', message }] : [];
  },
};
