// Hands each identity its credential as a kubeconfig file. Because the token store keeps only
// hashes, that kubeconfig is where a token lives: a kubeconfig whose token still authenticates as
// the identity is kept (rewritten only if the server URL, CA or names changed, e.g. a new port);
// otherwise a token is issued (created, or rotated when the old one is lost) and the file written.

import { join } from 'node:path';
import {
  DEFAULT_CLUSTER_NAME,
  type KubeconfigSpec,
  readKubeconfigFile,
  writeKubeconfigFile,
} from '../../kube/kubeconfig-file.ts';
import type { Identity, IdentityKind } from './identities.ts';
import type { TokenStore } from './tokens.ts';

export const ADMIN_KUBECONFIG_FILE = 'kubeconfig';

/** Where `nodeherd up` keeps the admin kubeconfig of a data dir. */
export function adminKubeconfigPath(dataDir: string): string {
  return join(dataDir, ADMIN_KUBECONFIG_FILE);
}

export interface CredentialRequest {
  kind: IdentityKind;
  nodeName?: string;
  /** Kubeconfig file to keep the credential in. */
  path: string;
  server: string;
  caPem: string;
  clusterName?: string;
  contextName?: string;
  namespace?: string;
  /** Owner of the written file, e.g. when it is placed in a container's root filesystem. */
  uid?: number;
  gid?: number;
}

export interface Credential {
  identity: Identity;
  token: string;
  /** Whether the kubeconfig file was (re)written. */
  written: boolean;
  /** Whether a new token was issued (the identity was created or its old token was lost). */
  issued: boolean;
}

function sameSpec(a: KubeconfigSpec, b: KubeconfigSpec): boolean {
  return (
    a.server === b.server &&
    a.caPem === b.caPem &&
    a.token === b.token &&
    a.clusterName === b.clusterName &&
    a.userName === b.userName &&
    a.contextName === b.contextName &&
    a.namespace === b.namespace
  );
}

/** Ensures `request.path` holds a working kubeconfig for the identity; returns its token. */
export async function ensureCredential(store: TokenStore, request: CredentialRequest): Promise<Credential> {
  const existing = await readKubeconfigFile(request.path);
  const holder = existing ? store.authenticateToken(existing.token) : undefined;
  let identity: Identity;
  let token: string;
  let issued = false;
  if (existing && holder && holder.kind === request.kind && holder.nodeName === request.nodeName) {
    identity = holder;
    token = existing.token;
  } else {
    const ensured = await store.ensureIdentity(request.kind, request.nodeName);
    identity = ensured.identity;
    token = ensured.token ?? (await store.rotate(request.kind, request.nodeName)).token;
    issued = true;
  }
  const clusterName = request.clusterName ?? DEFAULT_CLUSTER_NAME;
  const wanted: KubeconfigSpec = {
    server: request.server,
    caPem: request.caPem,
    token,
    clusterName,
    userName: identity.name,
    contextName: request.contextName ?? clusterName,
    ...(request.namespace !== undefined ? { namespace: request.namespace } : {}),
  };
  const written = !existing || !sameSpec(existing, wanted);
  if (written) {
    await writeKubeconfigFile(request.path, wanted, {
      ...(request.uid !== undefined ? { uid: request.uid } : {}),
      ...(request.gid !== undefined ? { gid: request.gid } : {}),
    });
  }
  return { identity, token, written, issued };
}
