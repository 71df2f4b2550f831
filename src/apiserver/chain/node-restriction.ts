// Admission for node identities, like kube's NodeRestriction: what an agent's or kubelet's writes may
// change, judged with the stored and the resulting object (after patches), inside the write
// (node-restriction.ts in auth/ has the rules; the profile adds its own for agents). An admission stage
// adds a check to the request; the object service runs every check on each write the request makes.

import {
  type AdmissionAttributes,
  admitNodeIdentity,
  NO_NODE_ADMISSION_RULES,
  type NodeAdmissionRules,
} from '../auth/node-restriction.ts';
import type { StoredObjectLookup } from '../profile.ts';
import { admissionStage } from './admission-stage.ts';
import { refuseUnlessAllowed } from './refuse-write.ts';
import type { RequestStage } from './request-chain.ts';

export function nodeRestriction(
  rules: NodeAdmissionRules | undefined,
  lookup: StoredObjectLookup,
): RequestStage {
  return admissionStage('node restriction', (request) => {
    const identity = request.authenticated;
    if ((identity.kind !== 'node' && identity.kind !== 'kubelet') || identity.nodeName === undefined) {
      return undefined;
    }
    const nodeName = identity.nodeName;
    return (write) => {
      const attrs: AdmissionAttributes = {
        operation: write.operation,
        group: write.def.group,
        resource: write.def.resource,
        subresource: write.subresource,
        namespace: write.namespace,
        object: write.object,
        oldObject: write.oldObject,
      };
      const decision = admitNodeIdentity(
        identity,
        attrs,
        () => lookup('', 'v1', 'nodes', undefined, nodeName),
        rules ?? NO_NODE_ADMISSION_RULES,
      );
      refuseUnlessAllowed(write, decision);
    };
  });
}
