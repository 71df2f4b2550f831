// Kubernetes Status errors. Every failure the API server returns is one of these, rendered as a
// metav1.Status body with the HTTP code and reason a real API server would use.

import type { StatusCause } from '../util/kube-api-types.ts';

export type { StatusCause };

export interface StatusDetails {
  name?: string;
  group?: string;
  kind?: string;
  uid?: string;
  causes?: StatusCause[];
  retryAfterSeconds?: number;
}

export type StatusReason =
  | 'BadRequest'
  | 'Unauthorized'
  | 'Forbidden'
  | 'NotFound'
  | 'AlreadyExists'
  | 'Conflict'
  | 'Gone'
  | 'Expired'
  | 'Invalid'
  | 'MethodNotAllowed'
  | 'NotAcceptable'
  | 'RequestEntityTooLarge'
  | 'UnsupportedMediaType'
  | 'TooManyRequests'
  | 'InternalError'
  | 'ServiceUnavailable'
  | 'Timeout'
  | 'InsufficientStorage';

export class ApiError extends Error {
  readonly code: number;
  readonly reason: StatusReason;
  readonly details: StatusDetails | undefined;

  constructor(code: number, reason: StatusReason, message: string, details?: StatusDetails) {
    super(message);
    this.code = code;
    this.reason = reason;
    this.details = details;
  }

  toStatus(): Record<string, unknown> {
    return {
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message: this.message,
      reason: this.reason,
      ...(this.details ? { details: wireDetails(this.details) } : {}),
      code: this.code,
    };
  }
}

function wireDetails(details: StatusDetails): Record<string, unknown> {
  if (!details.causes) return { ...details };
  return {
    ...details,
    causes: details.causes.map((c) => ({
      ...(c.type !== undefined ? { reason: c.type } : {}),
      message: c.message,
      ...(c.field !== undefined ? { field: c.field } : {}),
    })),
  };
}

/** Identifies an object in messages the way the real API server does: `widgets.example.com "foo"`. */
export interface ResourceRef {
  group: string;
  resource: string;
  kind: string;
  name: string;
}

function qualified(ref: ResourceRef): string {
  return ref.group ? `${ref.resource}.${ref.group}` : ref.resource;
}

export function notFound(ref: ResourceRef): ApiError {
  return new ApiError(404, 'NotFound', `${qualified(ref)} "${ref.name}" not found`, {
    name: ref.name,
    group: ref.group,
    kind: ref.resource,
  });
}

export function alreadyExists(ref: ResourceRef): ApiError {
  return new ApiError(409, 'AlreadyExists', `${qualified(ref)} "${ref.name}" already exists`, {
    name: ref.name,
    group: ref.group,
    kind: ref.resource,
  });
}

export function conflict(ref: ResourceRef): ApiError {
  return new ApiError(
    409,
    'Conflict',
    `Operation cannot be fulfilled on ${qualified(ref)} "${ref.name}": the object has been modified; please apply your changes to the latest version and try again`,
    { name: ref.name, group: ref.group, kind: ref.resource },
  );
}

/** kube's wording: `NodeConfig.nodeherd.io "x" is invalid: [a, b]` (one cause without brackets, duplicates dropped). */
export function invalid(ref: ResourceRef, causes: StatusCause[]): ApiError {
  const texts = [...new Set(causes.map((c) => (c.field ? `${c.field}: ${c.message}` : c.message)))];
  const summary = texts.length === 1 ? texts[0]! : `[${texts.join(', ')}]`;
  const kind = ref.group ? `${ref.kind}.${ref.group}` : ref.kind;
  return new ApiError(422, 'Invalid', `${kind} "${ref.name}" is invalid: ${summary}`, {
    name: ref.name,
    group: ref.group,
    kind: ref.kind,
    causes: causes.map((c) => ({ type: c.type ?? 'FieldValueInvalid', message: c.message, field: c.field })),
  });
}

/**
 * 413 for an object larger than the store keeps (1.5 MiB, etcd's limit). kube-apiserver passes etcd's
 * message through ("etcdserver: request is too large"), with 413 in the versions that map it (some
 * answered 500); 413 RequestEntityTooLarge is what kube answers for every other over-size request.
 */
export function objectTooLarge(): ApiError {
  return new ApiError(413, 'RequestEntityTooLarge', 'etcdserver: request is too large');
}

/**
 * 507 for a write refused because the store is at its quota (etcd's NOSPACE alarm). kube-apiserver
 * passes etcd's "etcdserver: mvcc: database space exceeded" through as a 500 InternalError, which reads
 * like a bug in the server; 507 Insufficient Storage says what it is, keeps etcd's words, and, being a
 * 5xx without Retry-After, is not retried at once by clients (docs/apiserver.md, Storage bounds).
 */
export function storageQuotaExceeded(message: string): ApiError {
  return new ApiError(507, 'InsufficientStorage', message);
}

export function badRequest(message: string): ApiError {
  return new ApiError(400, 'BadRequest', message);
}

export function expired(message: string): ApiError {
  return new ApiError(410, 'Expired', message);
}

export function forbidden(user: string, verb: string, ref: Partial<ResourceRef>, why?: string): ApiError {
  const what = ref.resource ? (ref.group ? `${ref.resource}.${ref.group}` : ref.resource) : 'resource';
  const named = ref.name ? ` "${ref.name}"` : '';
  const reason = why ? `: ${why}` : '';
  return new ApiError(
    403,
    'Forbidden',
    `${what}${named} is forbidden: User "${user}" cannot ${verb} resource "${ref.resource ?? ''}" in API group "${ref.group ?? ''}"${reason}`,
    { name: ref.name, group: ref.group, kind: ref.resource },
  );
}
