// Admission for node identities, like kube's NodeRestriction plugin: the authorizer (authorizer.ts)
// decides from the request alone that the agent (or kubelet) of node X may write its own Node or a
// Lease; this decides, seeing the stored object and the one that would be stored, whether what the
// write changes is theirs to change. It runs after patches are applied and defaults filled in, so a
// patch, an update and a create are judged alike.
//
// Kubelet of node X: its Node, except labels under node-restriction.kubernetes.io/ (which an
// administrator sets so that a node cannot move itself, as in kube) and the annotations the profile
// reserves (nodeherd: nodeherd.io/, the agent's and the controller's).
// Agent of node X: what the profile's NodeAdmissionRules.agent decides (nodeherd:
// src/profile/agent-admission.ts).

import type { KubeObject } from '../storage/types.ts';
import type { Decision } from './authorizer.ts';
import type { Identity } from './identities.ts';

/** Label prefix only administrators may set on Nodes (kube's NodeRestriction reserves it likewise). */
export const NODE_RESTRICTION_LABEL_PREFIX = 'node-restriction.kubernetes.io/';
export interface AdmissionAttributes {
  operation: 'CREATE' | 'UPDATE' | 'DELETE';
  group: string;
  resource: string;
  subresource: string | undefined;
  namespace: string | undefined;
  /** The object as it would be stored (CREATE, UPDATE). */
  object: KubeObject | undefined;
  /** The stored object (UPDATE, DELETE). */
  oldObject: KubeObject | undefined;
}

/** What the application's node agents may change, and which Node annotations kubelets may not. */
export interface NodeAdmissionRules {
  /** Decides a write by the agent of `node`; ALLOW for what it does not restrict. */
  agent(node: string, attrs: AdmissionAttributes, ownNode: () => KubeObject | undefined): Decision;
  /** Annotation prefixes on Nodes that are not the kubelet's to write, and whose they are. */
  reservedAnnotations: { prefix: string; owner: string }[];
}

/** No application: agents are not restricted beyond the authorizer, kubelets only by kube's rules. */
export const NO_NODE_ADMISSION_RULES: NodeAdmissionRules = {
  agent: () => ALLOW,
  reservedAnnotations: [],
};

export const ALLOW: Decision = { allowed: true };
export const deny = (reason: string): Decision => ({ allowed: false, reason });

type StringMap = Record<string, string>;

export function mapOf(value: unknown): StringMap {
  return value && typeof value === 'object' && !Array.isArray(value) ? (value as StringMap) : {};
}

/** Keys whose values differ between two maps (added, removed or changed). */
export function changedKeys(before: StringMap, after: StringMap): string[] {
  const keys = new Set([...Object.keys(before), ...Object.keys(after)]);
  return [...keys].filter((key) => before[key] !== after[key]);
}

/** Decides a write by a node identity (agent or kubelet); other identities are not restricted here. */
export function admitNodeIdentity(
  identity: Identity,
  attrs: AdmissionAttributes,
  ownNode: () => KubeObject | undefined,
  rules: NodeAdmissionRules,
): Decision {
  if (identity.nodeName === undefined) return ALLOW;
  const isNodes = attrs.group === '' && attrs.resource === 'nodes';
  if (identity.kind === 'node') {
    const pod = admitAgentPodWrite(identity.nodeName, attrs);
    return pod.allowed ? rules.agent(identity.nodeName, attrs, ownNode) : pod;
  }
  if (identity.kind === 'kubelet' && isNodes) return admitKubeletNodeWrite(attrs, rules);
  return ALLOW;
}

/**
 * The pods an agent may delete are those bound to its node (node-bound-pods.ts lets the authorizer
 * pass a pod that does not exist yet, to answer 404): judged here again on the stored object the
 * delete removes, inside the store's write, as NodeRestriction judges a kubelet's pod delete. The
 * delete then removes exactly that revision (compare-and-swap), so a pod created or replaced after
 * authorization is never removed on the strength of a decision made without it.
 */
function admitAgentPodWrite(node: string, attrs: AdmissionAttributes): Decision {
  if (attrs.group !== '' || attrs.resource !== 'pods') return ALLOW;
  const bound = (attrs.oldObject?.spec as { nodeName?: unknown } | undefined)?.nodeName;
  if (attrs.operation === 'DELETE' && attrs.subresource === undefined && bound === node) return ALLOW;
  return deny(
    `node agent of ${node} may only delete pods bound to its node; this pod is ${
      typeof bound === 'string' ? `bound to node "${bound}"` : 'bound to no node'
    }`,
  );
}

function admitKubeletNodeWrite(attrs: AdmissionAttributes, rules: NodeAdmissionRules): Decision {
  const { object, oldObject } = attrs;
  if (attrs.operation === 'DELETE') return deny('a kubelet may not delete Nodes');
  const labels = mapOf(object?.metadata?.labels);
  const oldLabels = mapOf(oldObject?.metadata?.labels);
  const restricted = changedKeys(oldLabels, labels).find((key) =>
    key.startsWith(NODE_RESTRICTION_LABEL_PREFIX),
  );
  if (restricted !== undefined) {
    return deny(
      `a kubelet may not set label ${restricted}: ${NODE_RESTRICTION_LABEL_PREFIX} labels are the administrator's`,
    );
  }
  const annotations = mapOf(object?.metadata?.annotations);
  const oldAnnotations = mapOf(oldObject?.metadata?.annotations);
  for (const key of changedKeys(oldAnnotations, annotations)) {
    const reserved = rules.reservedAnnotations.find(({ prefix }) => key.startsWith(prefix));
    if (reserved) return deny(`a kubelet may not write annotation ${key}: it belongs to ${reserved.owner}`);
  }
  return ALLOW;
}
