// The nodeherd.io/UpdateAvailable pod condition of OTA DaemonSets: True on a pod whose template is
// not the DaemonSet's current revision (its message names the target revision hash, which the agent's
// local API shows the node's owner), False once the pod is current. Pods that never had it are left
// alone, so a fleet of current pods costs no writes. When a DaemonSet stops being OTA, a True condition
// is withdrawn (False), so the agent no longer offers an upgrade nobody manages.

import { POD_UPDATE_AVAILABLE_CONDITION } from '../../api/node-protocol.ts';
import type { DaemonPod } from './daemonset-types.ts';

export interface UpdateAvailableCondition {
  type: typeof POD_UPDATE_AVAILABLE_CONDITION;
  status: 'True' | 'False';
  reason: string;
  message: string;
}

/** The message format the agent parses: it must keep naming the hash as `revision <hash>`. */
function updateAvailableMessage(daemonSet: string, targetHash: string): string {
  return `revision ${targetHash} of DaemonSet ${daemonSet} is available; upgrade through the node agent's API`;
}

/** The condition the pod should carry, or undefined when it should be left as it is. */
export function desiredUpdateCondition(
  pod: DaemonPod,
  outdated: boolean,
  daemonSet: string,
  targetHash: string,
): UpdateAvailableCondition | undefined {
  const existing = pod.status?.conditions?.find((c) => c.type === POD_UPDATE_AVAILABLE_CONDITION);
  const wanted: UpdateAvailableCondition = outdated
    ? {
        type: POD_UPDATE_AVAILABLE_CONDITION,
        status: 'True',
        reason: 'NewRevision',
        message: updateAvailableMessage(daemonSet, targetHash),
      }
    : {
        type: POD_UPDATE_AVAILABLE_CONDITION,
        status: 'False',
        reason: 'UpToDate',
        message: `the pod runs revision ${targetHash}, the current one of DaemonSet ${daemonSet}`,
      };
  if (!outdated && (existing === undefined || existing.status === 'False')) return undefined;
  if (existing?.status === wanted.status && existing.message === wanted.message) return undefined;
  return wanted;
}

/** For a DaemonSet that is not (or no longer) OTA: False in place of a True condition, else nothing. */
export function withdrawnUpdateCondition(
  pod: DaemonPod,
  daemonSet: string,
): UpdateAvailableCondition | undefined {
  const existing = pod.status?.conditions?.find((c) => c.type === POD_UPDATE_AVAILABLE_CONDITION);
  if (existing?.status !== 'True') return undefined;
  return {
    type: POD_UPDATE_AVAILABLE_CONDITION,
    status: 'False',
    reason: 'NotOverTheAir',
    message: `DaemonSet ${daemonSet} is no longer updated over the air`,
  };
}
