// Parses a request path into what kube-apiserver calls RequestInfo: which resource, which verb.
// Kept separate so authorization and routing agree on one reading of the URL.

import type { Verb } from '../registry/resource-definition.ts';
import { queryBool } from './query-params.ts';

export interface ResourceRequestInfo {
  isResourceRequest: true;
  verb: Verb;
  /** 'api' for the core group, 'apis' otherwise. */
  prefix: 'api' | 'apis';
  group: string;
  version: string;
  namespace: string | undefined;
  resource: string;
  name: string | undefined;
  subresource: string | undefined;
}

export interface NonResourceRequestInfo {
  isResourceRequest: false;
  verb: string;
  path: string;
}

export type RequestInfo = ResourceRequestInfo | NonResourceRequestInfo;

const decode = (segment: string): string => {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
};

/**
 * Reads /api/v1/..., /apis/<group>/<version>/... including the legacy /watch/ prefix and
 * namespaces/<ns>/<resource> forms. Anything shorter (discovery documents) is non-resource.
 */
export function parseRequestInfo(method: string, pathname: string, query: URLSearchParams): RequestInfo {
  const lower = method.toUpperCase();
  const parts = pathname
    .split('/')
    .filter((p) => p !== '')
    .map(decode);
  const nonResource: NonResourceRequestInfo = {
    isResourceRequest: false,
    verb: lower.toLowerCase(),
    path: pathname,
  };

  let prefix: 'api' | 'apis';
  let group = '';
  let version: string;
  let rest: string[];
  if (parts[0] === 'api' && parts.length >= 3) {
    prefix = 'api';
    version = parts[1]!;
    rest = parts.slice(2);
  } else if (parts[0] === 'apis' && parts.length >= 4) {
    prefix = 'apis';
    group = parts[1]!;
    version = parts[2]!;
    rest = parts.slice(3);
  } else {
    return nonResource;
  }

  let legacyWatch = false;
  if (rest[0] === 'watch') {
    legacyWatch = true;
    rest = rest.slice(1);
  }

  let namespace: string | undefined;
  // namespaces/<ns>/status and namespaces/<ns>/finalize are subresources of the namespace itself.
  const namespaceSubresource =
    rest[0] === 'namespaces' && rest.length === 3 && (rest[2] === 'status' || rest[2] === 'finalize');
  if (rest[0] === 'namespaces' && rest.length >= 3 && !namespaceSubresource) {
    namespace = rest[1];
    rest = rest.slice(2);
  }
  const [resource, name, subresource, ...extra] = rest;
  if (!resource || extra.length > 0) return nonResource;

  // GET /api/v1/namespaces/<ns> reads the namespace itself.
  let info: ResourceRequestInfo = {
    isResourceRequest: true,
    verb: 'get',
    prefix,
    group,
    version,
    namespace,
    resource,
    name,
    subresource,
  };
  if (namespace !== undefined && rest.length === 0) {
    info = { ...info, namespace: undefined, resource: 'namespaces', name: namespace };
  }

  const wantsWatch = legacyWatch || queryBool(query, 'watch');
  switch (lower) {
    case 'GET':
    case 'HEAD':
      info.verb = info.name === undefined ? (wantsWatch ? 'watch' : 'list') : wantsWatch ? 'watch' : 'get';
      break;
    case 'POST':
      info.verb = 'create';
      break;
    case 'PUT':
      info.verb = 'update';
      break;
    case 'PATCH':
      info.verb = 'patch';
      break;
    case 'DELETE':
      info.verb = info.name === undefined ? 'deletecollection' : 'delete';
      break;
    default:
      return nonResource;
  }
  return info;
}

// Storage keys live with storage; re-exported for the handlers that list by prefix.
export { listPrefix, objectKey } from '../storage/keys.ts';
