// Admission for writes of RBAC objects: no one grants, through a Role, ClusterRole or binding, what they
// do not hold themselves unless the authorizer allows them `escalate` (roles) or `bind` (bindings), as
// kube's RBAC registry checks (auth/rbac-escalation.ts). Judged inside the write, on the object stored.

import type { Decision, RequestAttributes } from '../auth/authorizer.ts';
import type { Identity } from '../auth/identities.ts';
import { RBAC_GROUP } from '../auth/rbac-authorizer.ts';
import { admitRbacWrite } from '../auth/rbac-escalation.ts';
import type { StoredObjectLookup } from '../profile.ts';
import { admissionStage } from './admission-stage.ts';
import { refuseUnlessAllowed } from './refuse-write.ts';
import type { RequestStage } from './request-chain.ts';

export function rbacEscalation(
  authorize: (identity: Identity, attrs: RequestAttributes) => Decision,
  lookup: StoredObjectLookup,
): RequestStage {
  return admissionStage('RBAC escalation', (request) => {
    const identity = request.authenticated;
    if (request.resource?.def.group !== RBAC_GROUP || identity.kind === 'admin') return undefined;
    return (write) => {
      if (write.def.group !== RBAC_GROUP) return;
      const decision = admitRbacWrite(
        identity,
        {
          operation: write.operation,
          resource: write.def.resource,
          namespace: write.namespace,
          object: write.object,
        },
        authorize,
        (kind, namespace, name) =>
          lookup(RBAC_GROUP, 'v1', kind === 'Role' ? 'roles' : 'clusterroles', namespace, name),
      );
      refuseUnlessAllowed(write, decision);
    };
  });
}
