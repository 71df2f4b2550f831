// Reads the current context's server, inline CA and bearer token (or token file) from a kubeconfig without loading
// the `yaml` package (≈5 MB of RSS on every node): JSON and the block-YAML subset that nodeherd and
// kubectl write are read directly. Only a file outside that subset pays for the full parser, and
// only through the asynchronous loader. Error messages never quote the file: it holds a credential.

import { readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { parseBlockYamlOrThrow, UnsupportedYamlError } from './block-yaml.ts';

/**
 * A bearer token, or the file it is kept in (a kubeconfig user's tokenFile, read again when it
 * changes: see token-source.ts).
 */
export type KubeconfigCredentials = { server: string; caPem: string } & (
  | { token: string; tokenFile?: never }
  | { tokenFile: string; token?: never }
);

/** The file is readable but its content is outside what the light reader understands. */
export class KubeconfigFormatError extends Error {
  constructor(path: string, why: string) {
    super(`kubeconfig ${path}: ${why}`);
    this.name = 'KubeconfigFormatError';
  }
}

const SHAPE =
  'its current context needs a cluster with server and certificate-authority-data and a user with a token or tokenFile';

/** Reads a kubeconfig synchronously; throws KubeconfigFormatError for YAML beyond the subset. */
export function readKubeconfigCredentialsSync(path: string): KubeconfigCredentials {
  const text = readFileSync(path, 'utf8');
  let config: unknown;
  try {
    config = parseLight(text);
  } catch (err) {
    if (err instanceof UnsupportedYamlError) {
      throw new KubeconfigFormatError(
        path,
        `uses YAML beyond the subset read without a YAML library (${err.message})`,
      );
    }
    throw new KubeconfigFormatError(path, 'is not valid JSON');
  }
  const credentials = credentialsFromKubeconfig(config);
  if (!credentials) throw new KubeconfigFormatError(path, SHAPE);
  return withTokenFileResolved(credentials, path);
}

/** Like readKubeconfigCredentialsSync, but falls back to the full YAML parser instead of failing. */
export async function loadKubeconfigCredentials(path: string): Promise<KubeconfigCredentials> {
  try {
    return readKubeconfigCredentialsSync(path);
  } catch (err) {
    if (!(err instanceof KubeconfigFormatError)) throw err;
  }
  const { parse } = await import('yaml');
  let config: unknown;
  try {
    config = parse(readFileSync(path, 'utf8'));
  } catch {
    throw new KubeconfigFormatError(path, 'is not valid YAML');
  }
  const credentials = credentialsFromKubeconfig(config);
  if (!credentials) throw new KubeconfigFormatError(path, SHAPE);
  return withTokenFileResolved(credentials, path);
}

/** A relative tokenFile names a file beside the kubeconfig, as client-go resolves it. */
function withTokenFileResolved(
  credentials: KubeconfigCredentials,
  kubeconfigPath: string,
): KubeconfigCredentials {
  if (credentials.tokenFile === undefined) return credentials;
  return { ...credentials, tokenFile: resolve(dirname(kubeconfigPath), credentials.tokenFile) };
}

function parseLight(text: string): unknown {
  // JSON is YAML too, and kubectl accepts JSON kubeconfigs.
  if (text.trimStart().startsWith('{')) return JSON.parse(text);
  return parseBlockYamlOrThrow(text);
}

// kubeconfig lists are [{ name, <field>: {...} }]; returns the <field> object of the named entry.
function findNamed(list: unknown, name: unknown, field: string): Record<string, unknown> | undefined {
  if (!Array.isArray(list)) return undefined;
  const entry = list.find((item) => item && typeof item === 'object' && item.name === name);
  const value = entry?.[field];
  return value && typeof value === 'object' ? (value as Record<string, unknown>) : undefined;
}

/** The same reading as parseKubeconfig in ../kubeconfig-file.ts, which cannot be imported without `yaml`. */
export function credentialsFromKubeconfig(config: unknown): KubeconfigCredentials | undefined {
  if (!config || typeof config !== 'object') return undefined;
  const root = config as Record<string, unknown>;
  const context = findNamed(root.contexts, root['current-context'], 'context');
  if (!context) return undefined;
  const cluster = findNamed(root.clusters, context.cluster, 'cluster');
  const user = findNamed(root.users, context.user, 'user');
  const server = cluster?.server;
  const caData = cluster?.['certificate-authority-data'];
  const token = user?.token;
  const tokenFile = user?.tokenFile;
  if (typeof server !== 'string' || typeof caData !== 'string') return undefined;
  const caPem = Buffer.from(caData, 'base64').toString('utf8');
  // Like client-go, an inline token wins over a tokenFile.
  if (typeof token === 'string' && token !== '') return { server, caPem, token };
  if (typeof tokenFile === 'string' && tokenFile !== '') return { server, caPem, tokenFile };
  return undefined;
}

/** Where the kubelet mounts a pod's ServiceAccount token and the cluster CA. */
export const IN_CLUSTER_SERVICE_ACCOUNT_DIR = '/var/run/secrets/kubernetes.io/serviceaccount';

/**
 * The credentials of a pod (client-go's rest.InClusterConfig): the API server from
 * KUBERNETES_SERVICE_HOST and _PORT, the CA and the ServiceAccount token the kubelet mounts. The token
 * is a file: the kubelet renews it before it expires, and the client reads it again when it changes.
 */
export function inClusterCredentials(
  env: Record<string, string | undefined> = process.env,
  directory = IN_CLUSTER_SERVICE_ACCOUNT_DIR,
): KubeconfigCredentials {
  const host = env.KUBERNETES_SERVICE_HOST;
  const port = env.KUBERNETES_SERVICE_PORT;
  if (!host || !port) {
    throw new Error('not in a cluster: KUBERNETES_SERVICE_HOST and KUBERNETES_SERVICE_PORT are not set');
  }
  const caPem = readFileSync(`${directory}/ca.crt`, 'utf8');
  const hostPart = host.includes(':') ? `[${host}]` : host;
  return { server: `https://${hostPart}:${port}`, caPem, tokenFile: `${directory}/token` };
}
