// The RBAC authorizer, as kube-apiserver's (plugin/pkg/auth/authorizer/rbac): a request is allowed when
// a rule of a role bound to the requester covers it. ClusterRoleBindings grant their ClusterRole's
// rules everywhere; a RoleBinding grants its Role's (or a ClusterRole's) rules in its own namespace.
// A subject is a User (by name), a Group (one of the requester's groups) or a ServiceAccount
// (system:serviceaccount:<namespace>:<name>, the namespace defaulting to the binding's). A rule covers
// a request when its verbs, apiGroups, resources (`*`, `resource`, `resource/subresource`,
// `*/subresource`) and resourceNames match, or, for a non-resource request, its verbs and
// nonResourceURLs (`*`, exact, or a `prefix*`). Roles and bindings are read from the store on each
// question: they take effect on the next request, as kube's informers do a moment later. A
// ClusterRole's aggregated rules are its `rules`, kept current by controllers/clusterrole-aggregation.ts.

import { listPrefix, objectKey } from '../storage/keys.ts';
import type { KubeObject, Store } from '../storage/types.ts';
import type { Decision, RequestAttributes, ResourceAttributes } from './authorizer.ts';
import type { Identity } from './identities.ts';

export const RBAC_GROUP = 'rbac.authorization.k8s.io';

interface Rule {
  [field: string]: unknown;
  verbs?: unknown;
  apiGroups?: unknown;
  resources?: unknown;
  resourceNames?: unknown;
  nonResourceURLs?: unknown;
}

function list(value: unknown): string[] {
  return Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string') : [];
}

function isResource(attrs: RequestAttributes): attrs is ResourceAttributes {
  return !('path' in attrs && typeof (attrs as { path?: unknown }).path === 'string');
}

/** Whether one PolicyRule covers the request (kube's RuleAllows). */
export function rbacRuleAllows(rule: Rule, attrs: RequestAttributes): boolean {
  const verbs = list(rule.verbs);
  if (!verbs.includes('*') && !verbs.includes(attrs.verb)) return false;
  if (!isResource(attrs)) {
    return list(rule.nonResourceURLs).some(
      (url) =>
        url === '*' || url === attrs.path || (url.endsWith('*') && attrs.path.startsWith(url.slice(0, -1))),
    );
  }
  const groups = list(rule.apiGroups);
  if (!groups.includes('*') && !groups.includes(attrs.group)) return false;
  const combined = attrs.subresource ? `${attrs.resource}/${attrs.subresource}` : attrs.resource;
  const resourceMatches = list(rule.resources).some(
    (r) => r === '*' || r === combined || (attrs.subresource !== undefined && r === `*/${attrs.subresource}`),
  );
  if (!resourceMatches) return false;
  const names = list(rule.resourceNames);
  return names.length === 0 || (attrs.name !== undefined && names.includes(attrs.name));
}

/** Whether a binding's subject names the identity (kube's appliesToUser). */
export function subjectApplies(subject: KubeObject, identity: Identity, bindingNamespace: string): boolean {
  switch (subject?.kind) {
    case 'User':
      return subject.name === identity.name;
    case 'Group':
      return identity.groups.includes(subject.name);
    case 'ServiceAccount': {
      const namespace = subject.namespace || bindingNamespace;
      return identity.name === `system:serviceaccount:${namespace}:${subject.name}`;
    }
    default:
      return false;
  }
}

/** Reads roles and bindings from the store and decides requests as kube's RBAC authorizer. */
export class RbacAuthorizer {
  readonly #store: Store;

  constructor(store: Store) {
    this.#store = store;
  }

  #list(resource: string, namespace?: string): KubeObject[] {
    return this.#store.list(listPrefix(RBAC_GROUP, resource, namespace)).items.map((item) => item.object);
  }

  #rulesOf(ref: KubeObject | undefined, namespace: string | undefined): Rule[] {
    if (!ref || ref.apiGroup !== RBAC_GROUP || typeof ref.name !== 'string') return [];
    const role =
      ref.kind === 'ClusterRole'
        ? this.#store.get(objectKey(RBAC_GROUP, 'clusterroles', undefined, ref.name))
        : ref.kind === 'Role' && namespace !== undefined
          ? this.#store.get(objectKey(RBAC_GROUP, 'roles', namespace, ref.name))
          : undefined;
    const rules = role?.object.rules;
    return Array.isArray(rules) ? rules : [];
  }

  /** Each rule that applies to the identity in `namespace` (cluster-wide rules only when undefined). */
  *rulesFor(identity: Identity, namespace: string | undefined): Generator<Rule> {
    for (const binding of this.#list('clusterrolebindings')) {
      const subjects: KubeObject[] = Array.isArray(binding.subjects) ? binding.subjects : [];
      if (!subjects.some((s) => subjectApplies(s, identity, ''))) continue;
      yield* this.#rulesOf(binding.roleRef, undefined);
    }
    if (namespace === undefined || namespace === '') return;
    for (const binding of this.#list('rolebindings', namespace)) {
      const subjects: KubeObject[] = Array.isArray(binding.subjects) ? binding.subjects : [];
      if (!subjects.some((s) => subjectApplies(s, identity, namespace))) continue;
      yield* this.#rulesOf(binding.roleRef, namespace);
    }
  }

  /** Allowed when a rule bound to the identity covers the request; else a denial naming RBAC. */
  authorize(identity: Identity, attrs: RequestAttributes): Decision {
    const namespace = isResource(attrs) ? attrs.namespace : undefined;
    for (const rule of this.rulesFor(identity, namespace)) {
      if (rbacRuleAllows(rule, attrs)) return { allowed: true };
    }
    return { allowed: false, reason: 'no RBAC policy matched' };
  }
}
