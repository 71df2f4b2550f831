// Authorization for the embedded API server: a pure function of who is asking and what they ask.
//
// - admin: everything (system:masters).
// - controller: the RBAC-style rules the profile gives (nodeherd: src/api/controller-rules.ts).
// - node agent of node X: decided per request by the profile, like the Node authorizer does for
//   kubelets (nodeherd: src/profile/agent-authorization.ts); what its writes may change is
//   node-restriction.ts's to decide.
// - kubelet of node X: its Node and its heartbeat Lease (see authorizeKubelet).
// - everyone authenticated: discovery, OpenAPI, version and health paths, and self-reviews.
// - and, after these, what the cluster's RBAC objects grant (rbac-authorizer.ts), as kube chains its
//   Node and RBAC authorizers: for every identity but node agents, whose reads RBAC would widen beyond
//   their own Node, pods and Secrets (kube keeps kubelets to the Node authorizer likewise).

import type { PolicyRule, RequestVerb } from '../../util/kube-api-types.ts';
import type { Identity } from './identities.ts';

export type { PolicyRule, RequestVerb };

export interface ResourceAttributes {
  verb: RequestVerb;
  /** API group, '' for core. */
  group: string;
  /** Plural resource name, e.g. 'nodes'. */
  resource: string;
  subresource?: string;
  namespace?: string;
  /** Object name from the URL. */
  name?: string;
  /** Value of an exact `metadata.name=` field selector (list/watch). */
  fieldSelectorName?: string;
  /** Value of an exact `spec.nodeName=` field selector (pod list/watch). */
  fieldSelectorNodeName?: string;
  /** The object being created (or the full object of an update). */
  body?: unknown;
}

export interface NonResourceAttributes {
  /** Lower-case HTTP method, as Kubernetes names non-resource verbs ('get', 'head', 'post'…). */
  verb: string;
  path: string;
}

export type RequestAttributes = ResourceAttributes | NonResourceAttributes;

export type Decision = { allowed: true } | { allowed: false; reason: string };

export const NODE_LEASE_NAMESPACE = 'kube-node-lease';

export const READ: readonly RequestVerb[] = ['get', 'list', 'watch'];

/** What every authenticated identity may do (kubectl auth can-i, whoami). */
export const SELF_REVIEW_RULES: readonly PolicyRule[] = [
  {
    groups: ['authorization.k8s.io'],
    resources: ['selfsubjectaccessreviews', 'selfsubjectrulesreviews'],
    verbs: ['create'],
  },
  { groups: ['authentication.k8s.io'], resources: ['selfsubjectreviews'], verbs: ['create'] },
];

// Non-resource paths for any authenticated identity (Kubernetes' system:discovery and
// system:public-info-viewer roles).
const DISCOVERY_PATHS = ['/api', '/apis', '/openapi', '/version', '/healthz', '/livez', '/readyz'];
// Paths a client without credentials may read (Kubernetes allows these to system:anonymous).
const PUBLIC_PATHS = ['/version', '/healthz', '/livez', '/readyz'];

function underAny(path: string, prefixes: readonly string[]): boolean {
  const bare = path.split('?')[0] ?? '';
  return prefixes.some((prefix) => bare === prefix || bare.startsWith(`${prefix}/`));
}

/** Whether a request without credentials may read this path (health and version). */
export function allowsAnonymous(path: string, verb = 'get'): boolean {
  return isReadVerb(verb) && underAny(path, PUBLIC_PATHS);
}

function isReadVerb(verb: string): boolean {
  return verb === 'get' || verb === 'head';
}

export const ALLOW: Decision = { allowed: true };

export function deny(reason: string): Decision {
  return { allowed: false, reason };
}

function resourceKey(attrs: ResourceAttributes): string {
  return attrs.subresource ? `${attrs.resource}/${attrs.subresource}` : attrs.resource;
}

/** Whether an RBAC-style rule covers the request. */
export function ruleAllows(rule: PolicyRule, attrs: ResourceAttributes): boolean {
  const resource = resourceKey(attrs);
  return (
    rule.groups.includes(attrs.group) &&
    (rule.resources.includes('*') || rule.resources.includes(resource)) &&
    (rule.verbs.includes('*') || rule.verbs.includes(attrs.verb)) &&
    (rule.namespaces === undefined ||
      (attrs.namespace !== undefined && rule.namespaces.includes(attrs.namespace)))
  );
}

function isNonResource(attrs: RequestAttributes): attrs is NonResourceAttributes {
  return 'path' in attrs && typeof attrs.path === 'string';
}

export function describe(attrs: ResourceAttributes): string {
  const group = attrs.group ? `.${attrs.group}` : '';
  const name = attrs.name ? ` "${attrs.name}"` : '';
  const where = attrs.namespace ? ` in namespace "${attrs.namespace}"` : '';
  return `${attrs.verb} ${resourceKey(attrs)}${group}${name}${where}`;
}

/** What the application running on the server lets its own identities do (ApiServerProfile.authorization). */
export interface AuthorizationRules {
  /** Names the controller's role in denials, e.g. "nodeherd controller". */
  controllerRole: string;
  /** RBAC-style rules of the 'controller' identity. */
  controller: readonly PolicyRule[];
  /** Requests of node agents ('node' identities), decided per request. */
  agent(identity: Identity, attrs: ResourceAttributes): Decision;
  /** Why a SelfSubjectRulesReview of a node agent is incomplete: what its rules cannot say. */
  agentRulesIncomplete: string;
  /**
   * Node agents need the RBAC objects' grant too (the profile seeds them, bootstrapPolicy): what the
   * agent rules allow is then confined by the same RBAC a real cluster has, never widened by it.
   */
  agentsConfinedByRbac?: boolean;
  /** The cluster's RBAC objects, asked after the rules above deny (the server adds it). */
  rbac?: {
    authorize(identity: Identity, attrs: RequestAttributes): Decision;
    /** The RBAC PolicyRules (as stored) bound to the identity in a namespace, for rules reviews. */
    rulesFor(identity: Identity, namespace: string | undefined): Iterable<Record<string, unknown>>;
  };
}

/** No application: the controller and node agents may do nothing beyond what everyone may. */
export const NO_APPLICATION_RULES: AuthorizationRules = {
  controllerRole: 'controller',
  controller: [],
  agent: (identity, attrs) => deny(`no rule for node agents allows ${describe(attrs)} (${identity.name})`),
  agentRulesIncomplete: 'node agents have no rules on this server',
};

/** Decides whether `identity` may perform the request under the application's `rules`. */
export function authorize(identity: Identity, attrs: RequestAttributes, rules: AuthorizationRules): Decision {
  if (identity.kind === 'admin') return ALLOW;
  const decision = authorizeByKind(identity, attrs, rules);
  if (identity.kind === 'node')
    return decision.allowed ? confineAgentByRbac(identity, attrs, rules) : decision;
  if (decision.allowed || rules.rbac === undefined) return decision;
  return rules.rbac.authorize(identity, attrs).allowed ? ALLOW : decision;
}

/**
 * What the agent rules allowed a node agent, if the cluster's RBAC grants it too (when the profile asks
 * for that): an agent is confined by both, like an agent on a real cluster by deploy/'s RBAC.
 */
export function confineAgentByRbac(
  identity: Identity,
  attrs: RequestAttributes,
  rules: AuthorizationRules,
): Decision {
  if (!rules.agentsConfinedByRbac || rules.rbac === undefined || isNonResource(attrs)) return ALLOW;
  // What every authenticated identity may do (kube's system:basic-user) is not the agent's role's.
  if (SELF_REVIEW_RULES.some((rule) => ruleAllows(rule, attrs))) return ALLOW;
  return rules.rbac.authorize(identity, attrs).allowed
    ? ALLOW
    : deny(`no RBAC policy grants node agents ${describe(attrs)} (${identity.name})`);
}

function authorizeByKind(identity: Identity, attrs: RequestAttributes, rules: AuthorizationRules): Decision {
  if (isNonResource(attrs)) {
    if (isReadVerb(attrs.verb) && underAny(attrs.path, DISCOVERY_PATHS)) return ALLOW;
    return deny(`only discovery, OpenAPI, version and health paths may be read by ${identity.name}`);
  }
  if (SELF_REVIEW_RULES.some((rule) => ruleAllows(rule, attrs))) return ALLOW;
  switch (identity.kind) {
    case 'controller':
      return rules.controller.some((rule) => ruleAllows(rule, attrs))
        ? ALLOW
        : deny(`no rule of the ${rules.controllerRole} role allows ${describe(attrs)}`);
    case 'node':
      return rules.agent(identity, attrs);
    case 'kubelet':
      return authorizeKubelet(identity, attrs);
    case 'user':
      return deny(`no RBAC policy grants ${identity.name} ${describe(attrs)}`);
    default:
      return deny(`unknown identity kind ${JSON.stringify(identity.kind)}`);
  }
}

function objectName(body: unknown): string | undefined {
  const metadata = (body as { metadata?: { name?: unknown } } | undefined)?.metadata;
  return typeof metadata?.name === 'string' ? metadata.name : undefined;
}

// The object an Event is about: involvedObject in core/v1, regarding in events.k8s.io/v1.
export function eventSubject(
  group: string,
  body: unknown,
): { kind?: unknown; name?: unknown; namespace?: unknown } {
  const event = (body ?? {}) as Record<string, unknown>;
  const subject = group === 'events.k8s.io' ? event.regarding : event.involvedObject;
  return subject && typeof subject === 'object' ? (subject as Record<string, unknown>) : {};
}

// The name a read is confined to: from the URL or from an exact metadata.name field selector; both
// must agree when both are given.
function confinedName(attrs: ResourceAttributes): string | undefined {
  if (
    attrs.name !== undefined &&
    attrs.fieldSelectorName !== undefined &&
    attrs.name !== attrs.fieldSelectorName
  ) {
    return undefined;
  }
  return attrs.name ?? attrs.fieldSelectorName;
}

/** Get, list/watch (confined to X), update and patch of Node X and X/status; create X when `mayCreate`. */
export function ownNodeAccess(
  identity: Identity,
  attrs: ResourceAttributes,
  node: string,
  mayCreate: boolean,
): Decision {
  const own = `${identity.kind === 'kubelet' ? 'kubelet' : 'node agent'} ${identity.name} may only`;
  const { subresource, verb } = attrs;
  if (subresource !== undefined && subresource !== 'status') {
    return deny(`${own} use the status subresource of its Node, not nodes/${subresource}`);
  }
  switch (verb) {
    case 'get':
    case 'update':
    case 'patch':
      return attrs.name === node ? ALLOW : deny(`${own} ${verb} its own Node "${node}"`);
    case 'list':
    case 'watch':
      if (subresource !== undefined) return deny(`${own} ${verb} nodes, not nodes/${subresource}`);
      return confinedName(attrs) === node
        ? ALLOW
        : deny(`${own} ${verb} its own Node "${node}" (field selector metadata.name=${node})`);
    case 'create':
      if (!mayCreate) return deny(`node agents may not create Nodes: registering its Node is the kubelet's`);
      return subresource === undefined &&
        objectName(attrs.body) === node &&
        (attrs.name === undefined || attrs.name === node)
        ? ALLOW
        : deny(`${own} create its own Node "${node}"`);
    default:
      return deny(`${identity.kind === 'kubelet' ? 'kubelets' : 'node agents'} may not ${verb} Nodes`);
  }
}

/**
 * Kubelet of node X (kube's Node authorizer, reduced to what a simulated kubelet does): its Node X
 * (create, get, list/watch confined to X, update/patch X and X/status; node-restriction.ts keeps it
 * from node-restriction.kubernetes.io/ labels and nodeherd.io/ annotations), its heartbeat Lease X in
 * kube-node-lease, Events about X, and pods bound to X (list/watch with spec.nodeName=X).
 */
function authorizeKubelet(identity: Identity, attrs: ResourceAttributes): Decision {
  const node = identity.nodeName;
  if (node === undefined) return deny('kubelet identity without a node name');
  const own = `kubelet ${identity.name} may only`;
  const { group, resource, subresource, verb } = attrs;
  if (group === '' && resource === 'nodes') return ownNodeAccess(identity, attrs, node, true);
  if (group === 'coordination.k8s.io' && resource === 'leases' && subresource === undefined) {
    const ownLease =
      attrs.namespace === NODE_LEASE_NAMESPACE &&
      (verb === 'create'
        ? objectName(attrs.body) === node && (attrs.name === undefined || attrs.name === node)
        : (verb === 'get' || verb === 'update' || verb === 'patch') && attrs.name === node);
    return ownLease
      ? ALLOW
      : deny(`${own} get, create, update or patch its own lease "${node}" in ${NODE_LEASE_NAMESPACE}`);
  }
  if ((group === '' || group === 'events.k8s.io') && resource === 'events' && subresource === undefined) {
    const subject = eventSubject(group, attrs.body);
    return verb === 'create' && subject.kind === 'Node' && subject.name === node && !subject.namespace
      ? ALLOW
      : deny(`${own} create events about its own Node "${node}"`);
  }
  if (group === '' && resource === 'pods' && subresource === undefined) {
    if ((verb === 'list' || verb === 'watch') && attrs.fieldSelectorNodeName === node) return ALLOW;
    return deny(`${own} list or watch pods with the field selector spec.nodeName=${node}`);
  }
  return deny(`no rule for kubelets allows ${describe(attrs)}`);
}
