// Turns nodeherd's policy rules (src/api/controller-rules.ts, agent-cluster-rules.ts) into Kubernetes RBAC
// rules, so the manifests for a real cluster say exactly what the embedded server enforces.
// A rule restricted to namespaces becomes a Role in each of them; an unrestricted one a ClusterRole rule.

import type { PolicyRule } from '../util/kube-api-types.ts';

/** rbac.authorization.k8s.io/v1 PolicyRule. */
export interface RbacRule {
  apiGroups: string[];
  resources: string[];
  verbs: string[];
}

function toRbac(rule: PolicyRule): RbacRule {
  return { apiGroups: [...rule.groups], resources: [...rule.resources], verbs: [...rule.verbs] };
}

/** The rules that hold in every namespace and at cluster scope: a ClusterRole's rules. */
export function clusterWideRules(rules: readonly PolicyRule[]): RbacRule[] {
  return rules.filter((rule) => rule.namespaces === undefined).map(toRbac);
}

/** Namespace → the rules restricted to it: one Role per namespace, in first-mention order. */
export function namespacedRules(rules: readonly PolicyRule[]): Map<string, RbacRule[]> {
  const byNamespace = new Map<string, RbacRule[]>();
  for (const rule of rules) {
    for (const namespace of rule.namespaces ?? []) {
      const list = byNamespace.get(namespace) ?? [];
      list.push(toRbac(rule));
      byNamespace.set(namespace, list);
    }
  }
  return byNamespace;
}
