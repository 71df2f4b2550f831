// Admission by ValidatingAdmissionPolicies (kube's ValidatingAdmissionPolicy plugin): every write is
// judged, inside the write and with the stored and resulting objects, by each stored policy a stored
// ValidatingAdmissionPolicyBinding puts in force (cel/admission-policy.ts evaluates; policies compile once
// per stored object). A failed validation of a binding with `Deny` refuses the write with the code its
// reason names (403 Forbidden, 422 Invalid, ...). Writes of the policies and bindings themselves are not
// judged by them, so a bad policy can always be fixed. Applies to every identity, the admin included.

import type { Identity } from '../auth/identities.ts';
import {
  type AdmissionAttributes,
  denialMessage,
  denialStatus,
  evaluateAdmissionPolicy,
} from '../cel/admission-policy.ts';
import { ApiError } from '../errors.ts';
import type { AdmissionRequest } from '../objects/object-service.ts';
import { listPrefix, objectKey } from '../storage/keys.ts';
import type { Store } from '../storage/types.ts';
import { admissionStage } from './admission-stage.ts';
import type { RequestStage } from './request-chain.ts';

const GROUP = 'admissionregistration.k8s.io';
const BINDINGS = listPrefix(GROUP, 'validatingadmissionpolicybindings', undefined);

function attributesOf(write: AdmissionRequest, identity: Identity, store: Store): AdmissionAttributes {
  const { def } = write;
  const name = (write.object ?? write.oldObject)?.metadata?.name;
  const namespaceObject =
    write.namespace !== undefined
      ? store.get(objectKey('', 'namespaces', undefined, write.namespace))?.object
      : undefined;
  return {
    operation: write.operation,
    resource: { group: def.group, version: def.version, resource: def.resource },
    ...(write.subresource !== undefined ? { subResource: write.subresource } : {}),
    kind: { group: def.group, version: def.version, kind: def.kind },
    ...(typeof name === 'string' ? { name } : {}),
    ...(write.namespace !== undefined ? { namespace: write.namespace } : {}),
    object: write.object ?? null,
    oldObject: write.oldObject ?? null,
    userInfo: {
      username: identity.name,
      ...(identity.uid !== undefined ? { uid: identity.uid } : {}),
      groups: [...identity.groups],
      ...(identity.extra !== undefined
        ? { extra: Object.fromEntries(Object.entries(identity.extra).map(([k, v]) => [k, [...v]])) }
        : {}),
    },
    namespaceObject: namespaceObject ?? null,
    namespaced: def.namespaced,
  };
}

/** Throws the denial of the first binding whose policy refuses the write. */
export function admitByPolicies(write: AdmissionRequest, identity: Identity, store: Store): void {
  if (write.def.group === GROUP) return;
  const bindings = store.list(BINDINGS).items;
  if (bindings.length === 0) return;
  let attributes: AdmissionAttributes | undefined;
  for (const { object: binding } of bindings) {
    const policyName = binding.spec?.policyName;
    if (typeof policyName !== 'string') continue;
    const policy = store.get(objectKey(GROUP, 'validatingadmissionpolicies', undefined, policyName))?.object;
    if (!policy) continue;
    attributes ??= attributesOf(write, identity, store);
    const decision = evaluateAdmissionPolicy(policy, attributes, binding);
    const failure = decision.failures[0];
    if (!decision.allowed && failure) {
      const { code, reason } = denialStatus(failure);
      const name = attributes.name;
      throw new ApiError(code, reason as never, denialMessage(policyName, binding.metadata.name, failure), {
        ...(name !== undefined ? { name } : {}),
        group: write.def.group,
        kind: write.def.resource,
      });
    }
  }
}

export function admissionPolicies(store: Store): RequestStage {
  return admissionStage('admission policies', (request) => {
    const identity = request.authenticated;
    return (write) => admitByPolicies(write, identity, store);
  });
}
