// A kubeconfig file holding one cluster, one bearer-token user and one context joining them: the
// form nodeherd hands to kubectl, the controller and every node agent. The CA is inlined
// (certificate-authority-data) so the file stays valid when copied to another machine or container.

import { mkdirSync, readFileSync } from 'node:fs';
import { mkdir, readFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { parse, stringify } from 'yaml';
import { writeFileAtomic, writeFileAtomicSync } from '../util/atomic-write.ts';
import { currentContext } from './kubeconfig-credentials.ts';

export interface KubeconfigSpec {
  /** API server URL, e.g. https://127.0.0.1:6443. */
  server: string;
  /** PEM of the CA that signed the server's serving certificate. */
  caPem: string;
  /** Bearer token of the user. */
  token: string;
  clusterName?: string;
  userName?: string;
  /** Defaults to the cluster name. */
  contextName?: string;
  /** Default namespace of the context. */
  namespace?: string;
}

export interface KubeconfigWriteOptions {
  uid?: number;
  gid?: number;
}

export const DEFAULT_CLUSTER_NAME = 'nodeherd';
export const DEFAULT_USER_NAME = 'nodeherd-admin';

/** Renders the kubeconfig YAML. */
export function renderKubeconfig(spec: KubeconfigSpec): string {
  const clusterName = spec.clusterName ?? DEFAULT_CLUSTER_NAME;
  const userName = spec.userName ?? DEFAULT_USER_NAME;
  const contextName = spec.contextName ?? clusterName;
  const config = {
    apiVersion: 'v1',
    kind: 'Config',
    preferences: {},
    clusters: [
      {
        name: clusterName,
        cluster: {
          server: spec.server,
          'certificate-authority-data': Buffer.from(spec.caPem, 'utf8').toString('base64'),
        },
      },
    ],
    users: [{ name: userName, user: { token: spec.token } }],
    contexts: [
      {
        name: contextName,
        context: {
          cluster: clusterName,
          user: userName,
          ...(spec.namespace ? { namespace: spec.namespace } : {}),
        },
      },
    ],
    'current-context': contextName,
  };
  return stringify(config, { lineWidth: 0 });
}

/** Writes the kubeconfig atomically with mode 0600 (it holds a credential), creating its directory. */
export async function writeKubeconfigFile(
  path: string,
  spec: KubeconfigSpec,
  options: KubeconfigWriteOptions = {},
): Promise<void> {
  await mkdir(dirname(path), { recursive: true, mode: 0o700 });
  await writeFileAtomic(path, renderKubeconfig(spec), { mode: 0o600, ...options });
}

/** Blocking variant of writeKubeconfigFile. */
export function writeKubeconfigFileSync(
  path: string,
  spec: KubeconfigSpec,
  options: KubeconfigWriteOptions = {},
): void {
  mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
  writeFileAtomicSync(path, renderKubeconfig(spec), { mode: 0o600, ...options });
}

/**
 * Reads back the current context of a kubeconfig in the shape this module writes. Returns undefined
 * when the file is missing or does not use an inline CA and a bearer token.
 */
export function parseKubeconfig(text: string): KubeconfigSpec | undefined {
  let config: unknown;
  try {
    config = parse(text);
  } catch {
    return undefined;
  }
  const current = currentContext(config);
  if (!current) return undefined;
  const { contextName, context, cluster, user } = current;
  const server = cluster?.server;
  const caData = cluster?.['certificate-authority-data'];
  const token = user?.token;
  if (typeof server !== 'string' || typeof caData !== 'string' || typeof token !== 'string') return undefined;
  return {
    server,
    caPem: Buffer.from(caData, 'base64').toString('utf8'),
    token,
    clusterName: String(context.cluster),
    userName: String(context.user),
    contextName,
    ...(typeof context.namespace === 'string' ? { namespace: context.namespace } : {}),
  };
}

function isMissing(error: unknown): boolean {
  return (error as NodeJS.ErrnoException).code === 'ENOENT';
}

/** Reads a kubeconfig written by writeKubeconfigFile; undefined if absent or of another shape. */
export async function readKubeconfigFile(path: string): Promise<KubeconfigSpec | undefined> {
  try {
    return parseKubeconfig(await readFile(path, 'utf8'));
  } catch (error) {
    if (isMissing(error)) return undefined;
    throw error;
  }
}

/** Blocking variant of readKubeconfigFile. */
export function readKubeconfigFileSync(path: string): KubeconfigSpec | undefined {
  try {
    return parseKubeconfig(readFileSync(path, 'utf8'));
  } catch (error) {
    if (isMissing(error)) return undefined;
    throw error;
  }
}
