// The Status errors the server answers with when authentication or authorization fails, worded
// like the real API server's so kubectl prints familiar messages. Nothing here echoes a token.

import { ApiError, forbidden } from '../errors.ts';
import type { RequestAttributes } from './authorizer.ts';
import type { Identity } from './identities.ts';

/** 401: no credentials, or credentials that match no identity. */
export function unauthorizedError(): ApiError {
  return new ApiError(401, 'Unauthorized', 'Unauthorized');
}

/** 403 for a request the authorizer denied, carrying its reason. */
export function forbiddenError(identity: Identity, attrs: RequestAttributes, reason: string): ApiError {
  if ('path' in attrs) {
    return new ApiError(
      403,
      'Forbidden',
      `forbidden: User "${identity.name}" cannot ${attrs.verb} path "${attrs.path}": ${reason}`,
    );
  }
  const resource = attrs.subresource ? `${attrs.resource}/${attrs.subresource}` : attrs.resource;
  return forbidden(
    identity.name,
    attrs.verb,
    { group: attrs.group, resource, ...(attrs.name !== undefined ? { name: attrs.name } : {}) },
    reason,
  );
}

/** 403 for a write admission refused (node-restriction.ts), worded like kube's admission denials. */
export function admissionDenied(
  ref: { group: string; resource: string; name: string | undefined },
  reason: string,
): ApiError {
  const what = ref.group ? `${ref.resource}.${ref.group}` : ref.resource;
  const named = ref.name ? ` "${ref.name}"` : '';
  return new ApiError(403, 'Forbidden', `${what}${named} is forbidden: ${reason}`, {
    ...(ref.name !== undefined ? { name: ref.name } : {}),
    group: ref.group,
    kind: ref.resource,
  });
}
