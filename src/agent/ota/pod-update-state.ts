// What the agent's OTA API says about one pod of its node: which DaemonSet and revision it runs, and
// whether the controller marked an update available (the nodeherd.io/UpdateAvailable condition, whose
// message names the target revision as `revision <hash>`). A plain function of the pod object.

import { POD_UPDATE_AVAILABLE_CONDITION } from '../../api/node-protocol.ts';
import type { KubeObject } from '../../kube/light/types.ts';

export interface PodUpdateState {
  namespace: string;
  name: string;
  /** The DaemonSet controlling the pod, if any. */
  daemonSet: string | undefined;
  /** Its controller-revision-hash label. */
  revision: string | undefined;
  phase: string | undefined;
  ready: boolean;
  deleting: boolean;
  updateAvailable: boolean;
  /** The revision an upgrade leads to, while an update is available. */
  targetRevision: string | undefined;
  /** The condition's message, for people. */
  message: string | undefined;
}

interface Condition {
  type?: string;
  status?: string;
  message?: string;
}

function conditionsOf(pod: KubeObject): Condition[] {
  const status = pod.status as { conditions?: unknown } | undefined;
  return Array.isArray(status?.conditions) ? (status.conditions as Condition[]) : [];
}

export function podUpdateState(pod: KubeObject): PodUpdateState {
  const metadata = pod.metadata ?? {};
  const owners = (metadata.ownerReferences ?? []) as { kind?: string; name?: string; controller?: boolean }[];
  const owner = owners.find((o) => o.controller === true && o.kind === 'DaemonSet');
  const conditions = conditionsOf(pod);
  const update = conditions.find((c) => c.type === POD_UPDATE_AVAILABLE_CONDITION);
  const updateAvailable = update?.status === 'True';
  const target = updateAvailable ? /\brevision (\S+)/.exec(update?.message ?? '')?.[1] : undefined;
  return {
    namespace: metadata.namespace ?? '',
    name: metadata.name ?? '',
    daemonSet: owner?.name,
    revision: metadata.labels?.['controller-revision-hash'],
    phase: (pod.status as { phase?: string } | undefined)?.phase,
    ready: conditions.some((c) => c.type === 'Ready' && c.status === 'True'),
    deleting: metadata.deletionTimestamp !== undefined,
    updateAvailable,
    targetRevision: target,
    message: update?.message,
  };
}
