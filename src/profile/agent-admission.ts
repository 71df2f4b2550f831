// What a nodeherd agent's writes may change on the embedded API server: the profile's half of the
// NodeRestriction admission (src/apiserver/auth/node-restriction.ts).
//
// Agent of node X:
// - Node X: only the annotations of the agent protocol (AGENT_ANNOTATIONS), the desired revision only
//   as a copy of the available one (OTA pull), and in status only its own conditions
//   (AGENT_CONDITIONS: NodeConfigReady and ConfigDrift). Never
//   labels, spec (taints, unschedulable), finalizers or owners: those decide which pool and hence
//   which Secrets the node gets, and belong to the kubelet and the administrator.
// - Serial slot Leases in namespace nodeherd: take (create, or update to itself as holder) only a slot
//   of the pool its Node's serial gate names, which the controller writes; renew and release (clear
//   the holder, or delete) only a slot it holds. Nothing else, least of all the leader Lease.
//
// deploy/agent's ValidatingAdmissionPolicy (src/api/agent-admission-policy.ts) says the same in CEL
// for real clusters; test/profile/node-credentials.test.ts runs one table of attempts through both.

import { GROUP } from '../api/group.ts';
import {
  AGENT_ANNOTATIONS,
  AGENT_CONDITIONS,
  AVAILABLE_REVISION_ANNOTATION,
  DESIRED_REVISION_ANNOTATION,
  SERIAL_GATE_ANNOTATION,
  SERIAL_LEASE_NAMESPACE,
  SERIAL_POOL_LABEL,
  serialLeaseName,
} from '../api/node-protocol.ts';
import type { Decision } from '../apiserver/auth/authorizer.ts';
import {
  type AdmissionAttributes,
  ALLOW,
  changedKeys,
  deny,
  mapOf,
  type NodeAdmissionRules,
} from '../apiserver/auth/node-restriction.ts';
import type { KubeObject } from '../apiserver/storage/types.ts';
import { jsonEqual } from '../util/json-equal.ts';

/** Annotation prefix of nodeherd's protocol: never the kubelet's to write. */
export const NODEHERD_ANNOTATION_PREFIX = `${GROUP}/`;
/** Every Serial slot Lease's name starts so: serialLeaseName(pool, slot) is `${prefix}<pool>-<slot>`. */
export const SERIAL_LEASE_PREFIX = serialLeaseName('', 0).slice(0, -2);

export const NODEHERD_NODE_ADMISSION: NodeAdmissionRules = {
  agent(node, attrs, ownNode) {
    if (attrs.group === '' && attrs.resource === 'nodes') return admitAgentNodeWrite(node, attrs);
    if (
      attrs.group === 'coordination.k8s.io' &&
      attrs.resource === 'leases' &&
      attrs.namespace === SERIAL_LEASE_NAMESPACE
    ) {
      return admitAgentSlotLease(node, attrs, ownNode);
    }
    return ALLOW;
  },
  reservedAnnotations: [{ prefix: NODEHERD_ANNOTATION_PREFIX, owner: 'the nodeherd agent and controller' }],
};

const orEmptyList = (value: unknown): unknown => (Array.isArray(value) ? value : []);

function conditionsExcept(status: KubeObject, types: readonly string[]): unknown[] {
  return (Array.isArray(status.conditions) ? status.conditions : []).filter(
    (condition: { type?: unknown }) => !types.includes(condition?.type as string),
  );
}

function withoutKey(map: KubeObject, key: string): KubeObject {
  const { [key]: _dropped, ...rest } = map;
  return rest;
}

function admitAgentNodeWrite(node: string, attrs: AdmissionAttributes): Decision {
  const { object, oldObject } = attrs;
  if (attrs.operation !== 'UPDATE' || !object || !oldObject) {
    return deny(`a node agent may not ${attrs.operation.toLowerCase()} Nodes`);
  }
  const meta = mapOf(object.metadata) as KubeObject;
  const oldMeta = mapOf(oldObject.metadata) as KubeObject;
  if (!jsonEqual(mapOf(meta.labels), mapOf(oldMeta.labels))) {
    return deny(`node agent of "${node}" may not change the labels of its Node`);
  }
  if (
    !jsonEqual(orEmptyList(meta.finalizers), orEmptyList(oldMeta.finalizers)) ||
    !jsonEqual(orEmptyList(meta.ownerReferences), orEmptyList(oldMeta.ownerReferences))
  ) {
    return deny(`node agent of "${node}" may not change the finalizers or owners of its Node`);
  }
  if (!jsonEqual(mapOf(object.spec), mapOf(oldObject.spec))) {
    return deny(`node agent of "${node}" may not change the spec of its Node (taints, unschedulable)`);
  }
  const annotations = mapOf(meta.annotations);
  const oldAnnotations = mapOf(oldMeta.annotations);
  for (const key of changedKeys(oldAnnotations, annotations)) {
    if (AGENT_ANNOTATIONS.includes(key)) continue;
    const available = oldAnnotations[AVAILABLE_REVISION_ANNOTATION];
    if (key === DESIRED_REVISION_ANNOTATION && available && annotations[key] === available) continue;
    return deny(
      key === DESIRED_REVISION_ANNOTATION
        ? `node agent of "${node}" may set ${DESIRED_REVISION_ANNOTATION} only to its Node's ${AVAILABLE_REVISION_ANNOTATION}`
        : `node agent of "${node}" may only write the annotations ${AGENT_ANNOTATIONS.join(', ')} of its Node, not ${key}`,
    );
  }
  const status = mapOf(object.status) as KubeObject;
  const oldStatus = mapOf(oldObject.status) as KubeObject;
  if (
    !jsonEqual(withoutKey(status, 'conditions'), withoutKey(oldStatus, 'conditions')) ||
    !jsonEqual(conditionsExcept(status, AGENT_CONDITIONS), conditionsExcept(oldStatus, AGENT_CONDITIONS))
  ) {
    return deny(
      `node agent of "${node}" may only change the ${AGENT_CONDITIONS.join(' and ')} conditions in the status of its Node`,
    );
  }
  return ALLOW;
}

/** The slot index when `lease` is a Serial slot Lease of `pool` (name and label agree), else undefined. */
function slotOf(lease: KubeObject | undefined, pool: string): number | undefined {
  const name = lease?.metadata?.name;
  if (typeof name !== 'string' || mapOf(lease?.metadata?.labels)[SERIAL_POOL_LABEL] !== pool)
    return undefined;
  const prefix = serialLeaseName(pool, 0).slice(0, -1);
  const rest = name.startsWith(prefix) ? name.slice(prefix.length) : '';
  return /^(0|[1-9][0-9]*)$/.test(rest) ? Number(rest) : undefined;
}

/** Whether `lease` is a Serial slot Lease at all: its name is the slot name of its pool label. */
function isSlotLease(lease: KubeObject | undefined): boolean {
  const pool = mapOf(lease?.metadata?.labels)[SERIAL_POOL_LABEL];
  return typeof pool === 'string' && pool !== '' && slotOf(lease, pool) !== undefined;
}

function holderOf(lease: KubeObject | undefined): string {
  const holder = lease?.spec?.holderIdentity;
  return typeof holder === 'string' ? holder : '';
}

/** The gate the controller wrote on the Node: which pool's slots, how many. */
function gateOf(node: KubeObject | undefined): { pool: string; slots: number } | undefined {
  const text = mapOf(node?.metadata?.annotations)[SERIAL_GATE_ANNOTATION];
  if (!text) return undefined;
  try {
    const gate = JSON.parse(text) as { pool?: unknown; slots?: unknown };
    return typeof gate.pool === 'string' && typeof gate.slots === 'number'
      ? { pool: gate.pool, slots: gate.slots }
      : undefined;
  } catch {
    return undefined;
  }
}

function admitAgentSlotLease(
  node: string,
  attrs: AdmissionAttributes,
  ownNode: () => KubeObject | undefined,
): Decision {
  const { object, oldObject } = attrs;
  const who = `node agent of "${node}"`;
  const holds = oldObject !== undefined && holderOf(oldObject) === node;
  if (attrs.operation === 'DELETE') {
    return isSlotLease(oldObject) && holds
      ? ALLOW
      : deny(`${who} may only delete a Serial slot Lease it holds`);
  }
  if (!isSlotLease(object) || (oldObject !== undefined && !isSlotLease(oldObject))) {
    return deny(
      `${who} may only write Serial slot Leases (${SERIAL_LEASE_PREFIX}<pool>-<slot>, labelled ${SERIAL_POOL_LABEL}=<pool>)`,
    );
  }
  const holder = holderOf(object);
  if (holds && jsonEqual(object?.metadata?.labels, oldObject?.metadata?.labels)) {
    // Renewing or releasing a slot it holds needs no gate: the controller may have lifted it already.
    return holder === node || holder === ''
      ? ALLOW
      : deny(`${who} may not hand its Serial slot to "${holder}"`);
  }
  if (holder !== node) return deny(`${who} may only take a Serial slot in its own name, not "${holder}"`);
  const gate = gateOf(ownNode());
  const slot = gate ? slotOf(object, gate.pool) : undefined;
  if (!gate || slot === undefined || slot >= gate.slots) {
    return deny(
      gate
        ? `${who} may only take slots 0..${gate.slots - 1} of pool "${gate.pool}" (its Node's ${SERIAL_GATE_ANNOTATION})`
        : `${who} may take a Serial slot only while its Node carries ${SERIAL_GATE_ANNOTATION}`,
    );
  }
  return ALLOW;
}
