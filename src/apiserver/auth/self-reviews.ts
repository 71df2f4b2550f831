// The reviews a client asks about itself, answered from the embedded authorizer for the requesting
// identity (nothing is stored): `kubectl auth can-i` (SelfSubjectAccessReview, and with --list
// SelfSubjectRulesReview) and `kubectl auth whoami` (SelfSubjectReview). And the two a component asks
// about others, for delegated authentication and authorization (TokenReview, SubjectAccessReview; who
// may ask is the authorizer's rules' business, as system:auth-delegator's in kube): the controller's
// /metrics asks them as controller-runtime's metrics filters do.

import { invalid as invalidError, type StatusCause } from '../errors.ts';
import type { KubeObject } from '../storage/types.ts';
import {
  type AuthorizationRules,
  authorize,
  type PolicyRule,
  type RequestAttributes,
  type RequestVerb,
  SELF_REVIEW_RULES,
} from './authorizer.ts';
import type { Identities, Identity } from './identities.ts';

export const REVIEW_RESOURCES = [
  { group: 'authentication.k8s.io', resource: 'tokenreviews' },
  { group: 'authorization.k8s.io', resource: 'subjectaccessreviews' },
  { group: 'authorization.k8s.io', resource: 'selfsubjectaccessreviews' },
  { group: 'authorization.k8s.io', resource: 'selfsubjectrulesreviews' },
  { group: 'authentication.k8s.io', resource: 'selfsubjectreviews' },
] as const;

export function isSelfReview(group: string, resource: string): boolean {
  return REVIEW_RESOURCES.some((r) => r.group === group && r.resource === resource);
}

const text = (v: unknown): string => (typeof v === 'string' ? v : '');

/** Non-resource URLs every authenticated identity may read (system:discovery, system:public-info-viewer). */
const DISCOVERY_URLS = [
  '/api',
  '/api/*',
  '/apis',
  '/apis/*',
  '/openapi',
  '/openapi/*',
  '/version',
  '/version/',
  '/healthz',
  '/livez',
  '/readyz',
];

function invalidReview(kind: string, causes: StatusCause[]): never {
  throw invalidError({ group: 'authorization.k8s.io', resource: '', kind, name: '' }, causes);
}

/** SelfSubjectAccessReview: the authorizer's decision for the requester on the attributes asked about. */
export function selfSubjectAccessReview(
  identity: Identity,
  review: KubeObject,
  rules: AuthorizationRules,
): KubeObject {
  const spec: KubeObject = review.spec ?? {};
  const resourceAttributes: KubeObject | undefined = spec.resourceAttributes ?? undefined;
  const nonResourceAttributes: KubeObject | undefined = spec.nonResourceAttributes ?? undefined;
  if ((resourceAttributes === undefined) === (nonResourceAttributes === undefined)) {
    invalidReview('SelfSubjectAccessReview', [
      {
        type: 'FieldValueInvalid',
        field: 'spec.resourceAttributes',
        message: `Invalid value: ${JSON.stringify(spec)}: exactly one of nonResourceAttributes or resourceAttributes must be specified`,
      },
    ]);
  }
  let attrs: RequestAttributes;
  if (resourceAttributes) {
    const a = resourceAttributes;
    attrs = {
      verb: text(a.verb) as RequestVerb,
      group: text(a.group),
      resource: text(a.resource),
      ...(text(a.subresource) ? { subresource: text(a.subresource) } : {}),
      ...(text(a.namespace) ? { namespace: text(a.namespace) } : {}),
      ...(text(a.name) ? { name: text(a.name) } : {}),
    };
  } else {
    attrs = { verb: text(nonResourceAttributes!.verb), path: text(nonResourceAttributes!.path) };
  }
  const decision = allowedFor(identity, attrs, rules);
  return {
    kind: 'SelfSubjectAccessReview',
    apiVersion: text(review.apiVersion) || 'authorization.k8s.io/v1',
    metadata: { creationTimestamp: null, ...(review.metadata ?? {}) },
    spec,
    status: { allowed: decision.allowed },
  };
}

/**
 * The authorizer's decision. A denial carries no reason, as kube's RBAC authorizer gives none when no
 * rule matches (so `kubectl auth can-i` prints a bare "no", as against a cluster); a refused request
 * itself still gets a 403 naming the rule.
 */
function allowedFor(
  identity: Identity,
  attrs: RequestAttributes,
  rules: AuthorizationRules,
): { allowed: boolean; reason: string } {
  return { allowed: authorize(identity, attrs, rules).allowed, reason: '' };
}

function resourceRule(rule: PolicyRule): KubeObject {
  return { verbs: [...rule.verbs], apiGroups: [...rule.groups], resources: [...rule.resources] };
}

/**
 * SelfSubjectRulesReview: what the requester may do in a namespace. The admin's and the controller's
 * permissions are rules; a node agent's depend on the object (its own Node, its Leases, the Secrets
 * its revisions reference), which rules cannot say: like kube for a webhook authorizer, the answer
 * lists what is expressible and sets incomplete.
 */
export function selfSubjectRulesReview(
  identity: Identity,
  review: KubeObject,
  authorization: AuthorizationRules,
): KubeObject {
  const namespace = text(review.spec?.namespace);
  if (namespace === '') {
    invalidReview('SelfSubjectRulesReview', [
      { type: 'FieldValueRequired', field: 'spec.namespace', message: 'Required value' },
    ]);
  }
  const status: KubeObject = { resourceRules: [], nonResourceRules: [], incomplete: false };
  if (identity.kind === 'admin') {
    status.resourceRules = [{ verbs: ['*'], apiGroups: ['*'], resources: ['*'] }];
    status.nonResourceRules = [{ verbs: ['*'], nonResourceURLs: ['*'] }];
  } else {
    const rules: PolicyRule[] = [...SELF_REVIEW_RULES];
    if (identity.kind === 'controller') {
      rules.push(
        ...authorization.controller.filter(
          (r) => r.namespaces === undefined || r.namespaces.includes(namespace),
        ),
      );
    } else if (identity.kind !== 'user') {
      status.incomplete = true;
      status.evaluationError = authorization.agentRulesIncomplete;
    }
    status.resourceRules = rules.map(resourceRule);
    status.nonResourceRules = [{ verbs: ['get'], nonResourceURLs: DISCOVERY_URLS }];
    if (identity.kind !== 'node' && authorization.rbac) {
      // What the cluster's RBAC objects add, as kube's RBAC authorizer lists it.
      for (const rule of authorization.rbac.rulesFor(identity, namespace)) {
        const urls = Array.isArray(rule.nonResourceURLs) ? rule.nonResourceURLs : [];
        if (urls.length > 0) {
          status.nonResourceRules.push({ verbs: rule.verbs ?? [], nonResourceURLs: urls });
        } else {
          const entry = {
            verbs: rule.verbs ?? [],
            apiGroups: rule.apiGroups ?? [],
            resources: rule.resources ?? [],
            ...(Array.isArray(rule.resourceNames) && rule.resourceNames.length > 0
              ? { resourceNames: rule.resourceNames }
              : {}),
          };
          // The seeded RBAC of the controller repeats its rules in code: list each rule once.
          const text = JSON.stringify(entry);
          if (!status.resourceRules.some((r: unknown) => JSON.stringify(r) === text)) {
            status.resourceRules.push(entry);
          }
        }
      }
    }
  }
  return {
    kind: 'SelfSubjectRulesReview',
    apiVersion: text(review.apiVersion) || 'authorization.k8s.io/v1',
    metadata: { creationTimestamp: null },
    spec: review.spec ?? {},
    status,
  };
}

/** SelfSubjectReview: who the server thinks the requester is. */
export function selfSubjectReview(identity: Identity, apiVersion: string): KubeObject {
  return {
    kind: 'SelfSubjectReview',
    apiVersion,
    metadata: { creationTimestamp: null },
    status: {
      userInfo: {
        username: identity.name,
        ...(identity.uid !== undefined ? { uid: identity.uid } : {}),
        groups: [...identity.groups],
        ...(identity.extra !== undefined ? { extra: identity.extra } : {}),
      },
    },
  };
}

/** TokenReview: who holds spec.token (the token is never echoed back). */
export function tokenReview(
  review: KubeObject,
  apiVersion: string,
  authenticate: (token: string) => Identity | undefined,
): KubeObject {
  const token = text(review.spec?.token);
  if (token === '') {
    throw invalidError({ group: 'authentication.k8s.io', resource: '', kind: 'TokenReview', name: '' }, [
      { type: 'FieldValueRequired', field: 'spec.token', message: 'Required value' },
    ]);
  }
  const identity = authenticate(token);
  const audiences = Array.isArray(review.spec?.audiences) ? review.spec.audiences : undefined;
  return {
    kind: 'TokenReview',
    apiVersion,
    metadata: { creationTimestamp: null },
    spec: audiences ? { audiences } : {},
    status: identity
      ? {
          authenticated: true,
          user: { username: identity.name, groups: [...identity.groups] },
          ...(audiences ? { audiences } : {}),
        }
      : { authenticated: false, error: 'invalid bearer token' },
  };
}

/** SubjectAccessReview: the authorizer's decision for spec.user and spec.groups on the attributes asked about. */
export function subjectAccessReview(
  review: KubeObject,
  apiVersion: string,
  identities: Identities,
  rules: AuthorizationRules,
): KubeObject {
  const spec: KubeObject = review.spec ?? {};
  const user = text(spec.user);
  const groups: string[] = Array.isArray(spec.groups)
    ? spec.groups.filter((g: unknown) => typeof g === 'string')
    : [];
  if (user === '' && groups.length === 0) {
    invalidReview('SubjectAccessReview', [
      {
        type: 'FieldValueRequired',
        field: 'spec.user',
        message: 'Required value: at least one of user or group must be specified',
      },
    ]);
  }
  // The decision for the attributes, by the same code as a SelfSubjectAccessReview's (which checks them).
  const identity = identities.ofUser(user, groups);
  const attributes = {
    ...(spec.resourceAttributes != null ? { resourceAttributes: spec.resourceAttributes } : {}),
    ...(spec.nonResourceAttributes != null ? { nonResourceAttributes: spec.nonResourceAttributes } : {}),
  };
  const asked = selfSubjectAccessReview(identity, { ...review, apiVersion, spec: attributes }, rules);
  return {
    kind: 'SubjectAccessReview',
    apiVersion,
    metadata: { creationTimestamp: null },
    spec,
    status: { allowed: asked.status.allowed === true },
  };
}
