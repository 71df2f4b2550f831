// Which nodes a DaemonSet's pods belong on, and whether a node is Ready: the updater and the
// simulated DaemonSet controller must agree on both.

import { isReady } from '../../kube/conditions.ts';
import type { Node } from '../../kube/types.ts';
import type { DaemonSet } from './daemonset-types.ts';

/**
 * Whether the DaemonSet should run a pod on the node: the node exists (not being deleted) and its
 * labels satisfy the template's nodeSelector. Taints and node affinity are not modelled.
 */
export function shouldRunOn(daemonSet: DaemonSet, node: Node): boolean {
  if (node.metadata.deletionTimestamp !== undefined) return false;
  const selector = daemonSet.spec?.template?.spec?.nodeSelector ?? {};
  const labels = node.metadata.labels ?? {};
  return Object.entries(selector).every(([key, value]) => labels[key] === value);
}

export function isNodeReady(node: Node | undefined): boolean {
  return isReady(node);
}
