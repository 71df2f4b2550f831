// Like kube's Node authorizer and NodeRestriction for kubelets: the agent of node X may get or delete
// a pod bound to X (spec.nodeName), and only such a pod. The authorizer sees no stored object, so the
// request pipeline asks this check after a denial, loading the pod the request names. A pod that does
// not exist is let through to answer 404 (NodeRestriction does the same for deletes); the agent's
// local OTA API tells "unknown pod" (404) from "another node's pod" (403) that way. Since a DELETE's
// body is read after this decision, a pod can appear meanwhile: the delete is judged again on the
// stored pod it removes, inside the write (admitAgentPodWrite in node-restriction.ts).

import type { KubeObject } from '../storage/types.ts';
import type { Identity } from './identities.ts';

export interface PodRequest {
  verb: string;
  group: string;
  resource: string;
  subresource: string | undefined;
  namespace: string | undefined;
  name: string | undefined;
}

/** Whether the agent may get or delete the named pod; `load` reads the stored pod (only when needed). */
export function agentMayUseBoundPod(
  identity: Identity,
  request: PodRequest,
  load: (namespace: string, name: string) => KubeObject | undefined,
): boolean {
  if (identity.kind !== 'node' || identity.nodeName === undefined) return false;
  if (request.group !== '' || request.resource !== 'pods' || request.subresource !== undefined) return false;
  if (request.verb !== 'get' && request.verb !== 'delete') return false;
  if (request.namespace === undefined || request.name === undefined) return false;
  const pod = load(request.namespace, request.name);
  return pod === undefined || pod.spec?.nodeName === identity.nodeName;
}
