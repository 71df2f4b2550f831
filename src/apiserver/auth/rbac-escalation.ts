// Kube's RBAC escalation check (pkg/registry/rbac: ConfirmNoEscalation, BindingAuthorized): writing a
// Role or ClusterRole needs either the `escalate` verb on it or every permission it grants; writing a
// RoleBinding or ClusterRoleBinding needs either the `bind` verb on the role it names or every
// permission that role grants (in the binding's namespace, or cluster-wide). Without it, whoever may
// write RBAC objects could grant themselves anything. A permission is held when the authorizer allows
// it: a rule's wildcard only when the requester's own rules have that wildcard, as kube's covers() has.

import type { KubeObject } from '../storage/types.ts';
import type { Decision, RequestAttributes, RequestVerb } from './authorizer.ts';
import type { Identity } from './identities.ts';
import { RBAC_GROUP } from './rbac-authorizer.ts';

export interface EscalationWrite {
  operation: 'CREATE' | 'UPDATE' | 'DELETE';
  resource: string;
  namespace: string | undefined;
  object: KubeObject | undefined;
}

type Authorize = (identity: Identity, attrs: RequestAttributes) => Decision;

function strings(value: unknown): string[] {
  return Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string') : [];
}

/** The first permission of `rule` the identity does not hold, described; undefined when it holds all. */
function missingPermission(
  identity: Identity,
  rule: KubeObject,
  namespace: string | undefined,
  authorize: Authorize,
): string | undefined {
  const verbs = strings(rule.verbs);
  const urls = strings(rule.nonResourceURLs);
  if (urls.length > 0) {
    for (const verb of verbs) {
      for (const path of urls) {
        if (!authorize(identity, { verb, path }).allowed) return `${verb} on non-resource URL ${path}`;
      }
    }
    return undefined;
  }
  const names = strings(rule.resourceNames);
  for (const group of strings(rule.apiGroups)) {
    for (const combined of strings(rule.resources)) {
      const [resource = '', subresource] = combined.split('/', 2);
      for (const verb of verbs) {
        for (const name of names.length > 0 ? names : [undefined]) {
          const attrs = {
            verb: verb as RequestVerb,
            group,
            resource,
            ...(subresource !== undefined ? { subresource } : {}),
            ...(namespace !== undefined ? { namespace } : {}),
            ...(name !== undefined ? { name } : {}),
          };
          if (!authorize(identity, attrs).allowed) {
            const where = namespace !== undefined ? ` in namespace "${namespace}"` : ' cluster-wide';
            return `${verb} ${combined}${group ? `.${group}` : ''}${name !== undefined ? ` "${name}"` : ''}${where}`;
          }
        }
      }
    }
  }
  return undefined;
}

function missingOfRules(
  identity: Identity,
  rules: unknown,
  namespace: string | undefined,
  authorize: Authorize,
): string | undefined {
  for (const rule of Array.isArray(rules) ? rules : []) {
    if (!rule || typeof rule !== 'object') continue;
    const missing = missingPermission(identity, rule, namespace, authorize);
    if (missing !== undefined) return missing;
  }
  return undefined;
}

/**
 * Whether the identity may make this write of an RBAC object without escalating. `lookupRole` reads a
 * stored Role (with a namespace) or ClusterRole (without).
 */
export function admitRbacWrite(
  identity: Identity,
  write: EscalationWrite,
  authorize: Authorize,
  lookupRole: (
    kind: 'Role' | 'ClusterRole',
    namespace: string | undefined,
    name: string,
  ) => KubeObject | undefined,
): Decision {
  const obj = write.object;
  if (write.operation === 'DELETE' || !obj || identity.kind === 'admin') return { allowed: true };
  const name = String(obj.metadata?.name ?? '');
  switch (write.resource) {
    case 'roles':
    case 'clusterroles': {
      const namespace = write.resource === 'roles' ? write.namespace : undefined;
      const escalate = {
        verb: 'escalate' as const,
        group: RBAC_GROUP,
        resource: write.resource,
        name,
        ...(namespace ? { namespace } : {}),
      };
      if (authorize(identity, escalate).allowed) return { allowed: true };
      const missing = missingOfRules(identity, obj.rules, namespace, authorize);
      return missing === undefined
        ? { allowed: true }
        : {
            allowed: false,
            reason: `user "${identity.name}" is attempting to grant RBAC permissions not currently held: ${missing}`,
          };
    }
    case 'rolebindings':
    case 'clusterrolebindings': {
      const ref: KubeObject = obj.roleRef ?? {};
      const kind: 'Role' | 'ClusterRole' = ref.kind === 'Role' ? 'Role' : 'ClusterRole';
      const namespace = write.resource === 'rolebindings' ? write.namespace : undefined;
      const bind = {
        verb: 'bind' as const,
        group: RBAC_GROUP,
        resource: kind === 'Role' ? 'roles' : 'clusterroles',
        name: String(ref.name ?? ''),
        ...(namespace ? { namespace } : {}),
      };
      if (authorize(identity, bind).allowed) return { allowed: true };
      const role = lookupRole(kind, kind === 'Role' ? namespace : undefined, String(ref.name ?? ''));
      if (!role) {
        return {
          allowed: false,
          reason: `${kind} "${String(ref.name)}" not found and no bind permission on it`,
        };
      }
      const missing = missingOfRules(identity, role.rules, namespace, authorize);
      return missing === undefined
        ? { allowed: true }
        : {
            allowed: false,
            reason: `user "${identity.name}" is attempting to grant RBAC permissions not currently held: ${missing}`,
          };
    }
    default:
      return { allowed: true };
  }
}
