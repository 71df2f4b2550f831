// TokenRequest (POST /api/v1/namespaces/<ns>/serviceaccounts/<name>/token, authentication.k8s.io/v1)
// and the check of a token on each request, both with kube-apiserver's rules: the ServiceAccount must
// exist; a token may be bound to a Pod or a Node (and is then valid only while that object exists
// with the same uid); a pod's token carries the Node the pod is scheduled on. Signing and claim checks
// are in service-account-tokens.ts; this file knows the objects.

import { ApiError, invalid, notFound, type StatusCause } from '../errors.ts';
import type { KubeObject } from '../storage/types.ts';
import {
  DEFAULT_EXPIRATION_SECONDS,
  MAX_EXPIRATION_SECONDS,
  MIN_EXPIRATION_SECONDS,
  type ObjectRef,
  type ServiceAccountTokenIssuer,
  type ServiceAccountUser,
} from './service-account-tokens.ts';

export const BOUND_OBJECT_KINDS = ['Pod', 'Node'] as const;

/** Reads the stored objects a token names (undefined: no such object). */
export interface BoundObjectLookup {
  serviceAccount(namespace: string, name: string): KubeObject | undefined;
  pod(namespace: string, name: string): KubeObject | undefined;
  node(name: string): KubeObject | undefined;
}

const TOKEN_REQUEST_REF = {
  group: 'authentication.k8s.io',
  resource: 'tokenrequests',
  kind: 'TokenRequest',
};

interface TokenRequestSpec {
  audiences?: unknown;
  expirationSeconds?: unknown;
  boundObjectRef?: { kind?: unknown; apiVersion?: unknown; name?: unknown; uid?: unknown } | null;
}

function refOf(object: KubeObject): ObjectRef {
  return { name: object.metadata.name, uid: String(object.metadata.uid ?? '') };
}

/** Handles a TokenRequest for ServiceAccount `name` in `namespace`; returns the TokenRequest answered (201). */
export function requestToken(
  issuer: ServiceAccountTokenIssuer,
  lookup: BoundObjectLookup,
  namespace: string,
  name: string,
  body: KubeObject,
  now = Math.floor(Date.now() / 1000),
): KubeObject {
  const ref = { ...TOKEN_REQUEST_REF, name };
  if (body.kind !== undefined && body.kind !== 'TokenRequest') {
    throw new ApiError(
      400,
      'BadRequest',
      `a TokenRequest is expected, got kind ${JSON.stringify(body.kind)}`,
    );
  }
  const spec = ((body as { spec?: TokenRequestSpec }).spec ?? {}) as TokenRequestSpec;
  const causes: StatusCause[] = [];

  let audiences: string[] = [...issuer.apiAudiences];
  if (spec.audiences !== undefined && spec.audiences !== null) {
    if (!Array.isArray(spec.audiences) || spec.audiences.some((a) => typeof a !== 'string' || a === '')) {
      causes.push({ field: 'spec.audiences', message: 'must be a list of non-empty strings' });
    } else if (spec.audiences.length > 0) {
      audiences = spec.audiences as string[];
    }
  }

  let expirationSeconds = DEFAULT_EXPIRATION_SECONDS;
  if (spec.expirationSeconds !== undefined && spec.expirationSeconds !== null) {
    const value = spec.expirationSeconds;
    if (typeof value !== 'number' || !Number.isInteger(value)) {
      causes.push({
        field: 'spec.expirationSeconds',
        message: `Invalid value: ${JSON.stringify(value)}: must be an integer`,
      });
    } else if (value < MIN_EXPIRATION_SECONDS) {
      causes.push({
        field: 'spec.expirationSeconds',
        message: `Invalid value: ${value}: may not specify a duration less than 10 minutes`,
      });
    } else if (value > MAX_EXPIRATION_SECONDS) {
      causes.push({
        field: 'spec.expirationSeconds',
        message: `Invalid value: ${value}: may not specify a duration larger than 2^32 seconds`,
      });
    } else {
      expirationSeconds = value;
    }
  }

  const bound = spec.boundObjectRef ?? undefined;
  if (bound !== undefined) {
    if (!BOUND_OBJECT_KINDS.includes(bound.kind as (typeof BOUND_OBJECT_KINDS)[number])) {
      causes.push({
        field: 'spec.boundObjectRef.kind',
        type: 'FieldValueNotSupported',
        message: `Unsupported value: ${JSON.stringify(bound.kind)}: supported values: ${BOUND_OBJECT_KINDS.map((k) => `"${k}"`).join(', ')}`,
      });
    }
    if (bound.apiVersion !== undefined && bound.apiVersion !== 'v1') {
      causes.push({
        field: 'spec.boundObjectRef.apiVersion',
        message: `Invalid value: ${JSON.stringify(bound.apiVersion)}: must be v1`,
      });
    }
    if (typeof bound.name !== 'string' || bound.name === '') {
      causes.push({
        field: 'spec.boundObjectRef.name',
        type: 'FieldValueRequired',
        message: 'Required value',
      });
    }
    if (bound.uid !== undefined && typeof bound.uid !== 'string') {
      causes.push({ field: 'spec.boundObjectRef.uid', message: 'must be a string' });
    }
  }
  if (causes.length > 0) throw invalid(ref, causes);

  const account = lookup.serviceAccount(namespace, name);
  if (!account) throw notFound({ group: '', resource: 'serviceaccounts', kind: 'ServiceAccount', name });

  let pod: ObjectRef | undefined;
  let node: ObjectRef | undefined;
  if (bound !== undefined) {
    const boundName = bound.name as string;
    const object = bound.kind === 'Pod' ? lookup.pod(namespace, boundName) : lookup.node(boundName);
    if (!object) {
      const resource = bound.kind === 'Pod' ? 'pods' : 'nodes';
      throw notFound({ group: '', resource, kind: String(bound.kind), name: boundName });
    }
    if (typeof bound.uid === 'string' && bound.uid !== '' && bound.uid !== object.metadata.uid) {
      throw new ApiError(
        409,
        'Conflict',
        `the UID in the bound object reference (${bound.uid}) does not match the UID in record. The object might have been deleted and then recreated`,
      );
    }
    if (bound.kind === 'Pod') {
      const podSpec = (object as { spec?: { serviceAccountName?: string; nodeName?: string } }).spec;
      const podAccount = podSpec?.serviceAccountName || 'default';
      if (podAccount !== name) {
        throw new ApiError(
          400,
          'BadRequest',
          `cannot bind a token of service account ${name} to pod ${boundName}, which runs as ${podAccount}`,
        );
      }
      pod = refOf(object);
      // A scheduled pod's token names its Node (kube 1.30+, ServiceAccountTokenPodNodeInfo).
      const nodeName = podSpec?.nodeName;
      if (nodeName) {
        const nodeObject = lookup.node(nodeName);
        node = nodeObject ? refOf(nodeObject) : { name: nodeName, uid: '' };
      }
    } else {
      node = refOf(object);
    }
  }

  const { token, claims } = issuer.issue({
    namespace,
    serviceaccount: refOf(account),
    ...(pod ? { pod } : {}),
    ...(node ? { node } : {}),
    audiences,
    expirationSeconds,
    now,
  });
  return {
    apiVersion: 'authentication.k8s.io/v1',
    kind: 'TokenRequest',
    metadata: {
      name,
      namespace,
      creationTimestamp: new Date(now * 1000).toISOString().replace(/\.\d{3}Z$/, 'Z'),
    },
    spec: {
      audiences,
      expirationSeconds,
      boundObjectRef:
        bound === undefined
          ? null
          : { kind: bound.kind, apiVersion: 'v1', name: bound.name, uid: bound.uid ?? (pod ?? node)!.uid },
    },
    status: {
      token,
      expirationTimestamp: new Date(claims.exp * 1000).toISOString().replace(/\.\d{3}Z$/, 'Z'),
    },
  };
}

/**
 * The user of a ServiceAccount token, or undefined when the token is not valid now: what the issuer
 * checks, and then, as kube does, that the ServiceAccount and the bound Pod or Node still exist with
 * the uids the token names.
 */
export function authenticateServiceAccountToken(
  issuer: ServiceAccountTokenIssuer,
  lookup: BoundObjectLookup,
  token: string,
  now?: number,
): ServiceAccountUser | undefined {
  const user = issuer.authenticate(token, now);
  if (!user) return undefined;
  const kube = user.claims['kubernetes.io'];
  const account = lookup.serviceAccount(kube.namespace, kube.serviceaccount.name);
  if (!account || account.metadata.uid !== kube.serviceaccount.uid) return undefined;
  if (kube.pod) {
    const pod = lookup.pod(kube.namespace, kube.pod.name);
    if (!pod || pod.metadata.uid !== kube.pod.uid) return undefined;
    const nodeName = (pod as { spec?: { nodeName?: string } }).spec?.nodeName;
    if (kube.node && nodeName !== kube.node.name) return undefined;
  } else if (kube.node) {
    const node = lookup.node(kube.node.name);
    if (!node || node.metadata.uid !== kube.node.uid) return undefined;
  }
  return user;
}
