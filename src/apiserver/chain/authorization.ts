// Whether the identity may do what the request asks. Non-resource paths: discovery and health for
// everyone authenticated. Resources: the authorizer's rules (authorizer.ts: the admin, the profile's
// controller and agent rules, kubelets), judged with the body of a create or update, since some rules
// read what the new object says (an Event's subject, a Node's name); a denial can still be overturned
// by a decision that needs stored objects (the profile's, e.g. the Secrets an agent's revisions
// reference; an agent's pods, node-bound-pods.ts). A server-side apply that would create its object
// needs the create permission too, judged on the applied configuration, as in kube. Denied is 403.

import { definedFields } from '../../util/defined-fields.ts';
import {
  type AuthorizationRules,
  authorize,
  confineAgentByRbac,
  type RequestAttributes,
  type ResourceAttributes,
} from '../auth/authorizer.ts';
import { forbiddenError } from '../auth/denials.ts';
import type { Identity } from '../auth/identities.ts';
import { agentMayUseBoundPod } from '../auth/node-bound-pods.ts';
import { decodeObject, mediaType } from '../http/body.ts';
import type { ResourceRequestInfo } from '../http/request-info.ts';
import { APPLY_PATCH, decodeApplyPatch } from '../patch/apply-patch.ts';
import type { ApiServerProfile, StoredObjectLookup } from '../profile.ts';
import type { ResourceDefinition } from '../registry/resource-definition.ts';
import type { ApiRequest, RequestStage } from './request-chain.ts';

export interface AuthorizationParts {
  rules: AuthorizationRules;
  /** The profile's last word on a request the rules denied. */
  allowsDespiteRules: ApiServerProfile['allowsDespiteRules'];
  /** Reads stored objects for the decisions that need them. */
  lookup: StoredObjectLookup;
  /** What a field selector pins (metadata.name, spec.nodeName): rules may allow only pinned lists. */
  fieldSelectorPins(fieldSelector: string | null): { name?: string; nodeName?: string };
}

export function authorization(parts: AuthorizationParts): RequestStage {
  return {
    name: 'authorization',
    async handle(request, next) {
      const identity = request.authenticated;
      if (!request.resource) {
        const info = request.info;
        const attrs = { verb: info.verb, path: request.url.pathname };
        const decision = authorize(identity, attrs, parts.rules);
        if (!decision.allowed) throw forbiddenError(identity, attrs, decision.reason);
        return next();
      }
      if (identity.kind !== 'admin') await authorizeResource(parts, request, identity);
      return next();
    },
  };
}

async function authorizeResource(
  parts: AuthorizationParts,
  request: ApiRequest,
  identity: Identity,
): Promise<void> {
  const { info, def } = request.resource!;
  const pins = parts.fieldSelectorPins(request.url.searchParams.get('fieldSelector'));
  const attrs: ResourceAttributes = {
    verb: info.verb,
    group: info.group,
    resource: info.resource,
    ...definedFields({
      subresource: info.subresource,
      namespace: info.namespace,
      name: info.name,
      fieldSelectorName: pins.name,
      fieldSelectorNodeName: pins.nodeName,
    }),
  };
  let parsed: unknown;
  if (info.verb === 'create' || info.verb === 'update') {
    const body = await request.body();
    try {
      parsed = decodeObject(body, request.req.headers['content-type']);
    } catch {
      parsed = undefined;
    }
  }
  const withBody = parsed !== undefined ? { ...attrs, body: parsed } : attrs;
  const decision = authorize(identity, withBody, parts.rules);
  if (
    !decision.allowed &&
    !parts.allowsDespiteRules?.(identity, info, parts.lookup) &&
    !agentMayUseBoundPod(identity, info, (ns, name) => parts.lookup('', 'v1', 'pods', ns, name))
  ) {
    throw forbiddenError(identity, withBody, decision.reason);
  }
  if (!decision.allowed) {
    // Overturned by a decision on stored objects (an agent's Secrets, its pods): RBAC still confines it.
    const confined = confineAgentByRbac(identity, withBody, parts.rules);
    if (!confined.allowed) throw forbiddenError(identity, withBody, confined.reason);
  }
  await authorizeApplyCreate(parts, request, identity, info, def, attrs);
}

/** A server-side apply to an object that does not exist creates it: that needs the create permission. */
async function authorizeApplyCreate(
  parts: AuthorizationParts,
  request: ApiRequest,
  identity: Identity,
  info: ResourceRequestInfo,
  def: ResourceDefinition,
  attrs: ResourceAttributes,
): Promise<void> {
  if (info.verb !== 'patch' || info.subresource !== undefined || info.name === undefined) return;
  if (mediaType(request.req.headers['content-type']) !== APPLY_PATCH) return;
  if (parts.lookup(def.group, def.version, def.resource, info.namespace, info.name)) return;
  const raw = await request.body();
  let parsed: unknown;
  try {
    parsed = decodeApplyPatch(raw);
  } catch {
    parsed = undefined;
  }
  const create: RequestAttributes = {
    ...attrs,
    verb: 'create' as const,
    ...(parsed !== undefined ? { body: parsed } : {}),
  };
  const decision = authorize(identity, create, parts.rules);
  if (!decision.allowed) throw forbiddenError(identity, create, decision.reason);
}
