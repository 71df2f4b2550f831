// How a gate's Prometheus is reached: the credentials in the Secret its credentialsSecretRef names
// (a bearer token, or a username and password) and the CA to trust. One place reads them, for every
// kind that asks Prometheus; the credentials stay in the request header.

import { SECRETS_NAMESPACE } from '../../api/group.ts';
import type { Secret } from '../../kube/types.ts';
import type { PrometheusServerSpec } from './gate-check.ts';
import type { PrometheusCredentials } from './prometheus-client.ts';

export interface CredentialSources {
  secret(namespace: string, name: string): Secret | undefined;
}

function decode(secret: Secret, key: string): string | undefined {
  const data = secret.data?.[key];
  return data === undefined ? undefined : Buffer.from(data, 'base64').toString('utf8');
}

export type Access =
  | { ok: true; credentials: PrometheusCredentials; caPem?: string; version: string }
  | { ok: false; message: string };

/** The Secret's `token`, or `username` and `password`, and `ca.crt`. */
export function prometheusAccess(server: PrometheusServerSpec, sources: CredentialSources): Access {
  const ref = server.credentialsSecretRef;
  if (!ref) return { ok: true, credentials: { kind: 'none' }, version: '' };
  const where = `Secret ${ref.namespace}/${ref.name} (prometheus.credentialsSecretRef)`;
  // Only SECRETS_NAMESPACE, whatever a pool stored before the API refused other namespaces.
  if ((ref.namespace as string) !== SECRETS_NAMESPACE)
    return {
      ok: false,
      message: `${where} is not read: Secrets are read only in namespace ${SECRETS_NAMESPACE}`,
    };
  const secret = sources.secret(ref.namespace, ref.name);
  if (!secret) return { ok: false, message: `${where} not found` };
  const token = decode(secret, 'token');
  const username = decode(secret, 'username');
  const password = decode(secret, 'password');
  const caPem = decode(secret, 'ca.crt');
  const version = secret.metadata.resourceVersion ?? '';
  const ca = caPem ? { caPem } : {};
  if (token !== undefined && username !== undefined)
    return { ok: false, message: `${where} has both token and username: use one` };
  if (token !== undefined)
    return { ok: true, credentials: { kind: 'bearer', token: token.trim() }, version, ...ca };
  if (username !== undefined && password !== undefined)
    return { ok: true, credentials: { kind: 'basic', username, password }, version, ...ca };
  if (username !== undefined) return { ok: false, message: `${where} has username but no password` };
  if (caPem) return { ok: true, credentials: { kind: 'none' }, version, caPem };
  return { ok: false, message: `${where} has none of token, username and password, ca.crt` };
}
