// Workload objects for drain tests: Running, Ready pods bound to a simulated node (a DaemonSet's, or
// with emptyDir data, when asked) and PodDisruptionBudgets over them, in the default namespace,
// through the admin client of the embedded API server (its disruption controller judges evictions).

import type { KubeClient } from '../../src/kube/kube-client.ts';
import { isKubeError } from '../../src/kube/kube-error.ts';

const PODS = '/api/v1/namespaces/default/pods';
const BUDGETS = '/apis/policy/v1/namespaces/default/poddisruptionbudgets';

export interface PodOptions {
  /** Its labels; `{ app: name }` unless given. */
  labels?: Record<string, string>;
  /** Owned by a DaemonSet (a drain leaves it). */
  daemonSet?: boolean;
  /** With an emptyDir volume (a drain with deleteEmptyDirData false refuses it). */
  emptyDir?: boolean;
  image?: string;
}

/** A pod bound to `node`, its status Running and Ready (no kubelet runs it). */
export async function runningPod(
  admin: KubeClient,
  name: string,
  node: string,
  options: PodOptions = {},
): Promise<void> {
  await admin.create(PODS, {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      name,
      labels: options.labels ?? { app: name },
      ...(options.daemonSet
        ? {
            ownerReferences: [
              { apiVersion: 'apps/v1', kind: 'DaemonSet', name: 'agent', uid: 'ds-uid', controller: true },
            ],
          }
        : {}),
    },
    spec: {
      nodeName: node,
      containers: [{ name: 'main', image: options.image ?? 'registry.example/web:1' }],
      ...(options.emptyDir ? { volumes: [{ name: 'scratch', emptyDir: {} }] } : {}),
    },
  });
  await admin.patch(
    `${PODS}/${name}/status`,
    { status: { phase: 'Running', conditions: [{ type: 'Ready', status: 'True' }] } },
    'merge',
  );
}

/** The names of the pods bound to `node`, sorted. */
export async function podsOn(admin: KubeClient, node: string): Promise<string[]> {
  const list = await admin.list<never>(PODS, { fieldSelector: `spec.nodeName=${node}` });
  return (list.items as { metadata: { name: string } }[]).map((p) => p.metadata.name).sort();
}

/**
 * A PodDisruptionBudget `name` over the pods labelled app=`app` (`name` unless given), keeping
 * `minAvailable`; an existing one gets the new minAvailable.
 */
export async function disruptionBudget(
  admin: KubeClient,
  name: string,
  minAvailable = 1,
  app = name,
): Promise<void> {
  const body = {
    apiVersion: 'policy/v1',
    kind: 'PodDisruptionBudget',
    metadata: { name },
    spec: { minAvailable, selector: { matchLabels: { app } } },
  };
  try {
    await admin.create(BUDGETS, body);
  } catch (err) {
    if (!isKubeError(err, 409)) throw err;
    await admin.patch(`${BUDGETS}/${name}`, { spec: { minAvailable } });
  }
}

export async function deleteBudget(admin: KubeClient, name: string): Promise<void> {
  await admin.delete(`${BUDGETS}/${name}`);
}
