// The one kubeconfig reader: the current context's server, inline CA and credentials (a bearer token,
// a token file read again when it rotates, or a client certificate and key, inline or as files),
// without loading the `yaml` package (≈5 MB of RSS on every node): JSON and the block-YAML subset that
// nodeherd and kubectl write are read directly. Only a file outside that subset pays for the full
// parser, and only through the asynchronous loader. Error messages never quote the file: it holds a
// credential. kubeconfig-file.ts reads the files it writes through currentContext() below.

import { readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { parseBlockYamlOrThrow, UnsupportedYamlError } from './light/block-yaml.ts';

/**
 * A bearer token, or the file it is kept in (a kubeconfig user's tokenFile, read again when it
 * changes: see token-source.ts), or a client certificate with its key (PEM).
 */
export type KubeconfigCredentials = { server: string; caPem: string } & (
  | { token: string; tokenFile?: never; clientCertPem?: never; clientKeyPem?: never }
  | { tokenFile: string; token?: never; clientCertPem?: never; clientKeyPem?: never }
  | { clientCertPem: string; clientKeyPem: string; token?: never; tokenFile?: never }
);

/** The file is readable but its content is outside what the light reader understands. */
export class KubeconfigFormatError extends Error {
  constructor(path: string, why: string) {
    super(`kubeconfig ${path}: ${why}`);
    this.name = 'KubeconfigFormatError';
  }
}

const SHAPE =
  'its current context needs a cluster with server and certificate-authority-data and a user with a token, a tokenFile, or a client certificate and key';

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
  const credentials = credentialsFromKubeconfig(config, dirname(path));
  if (!credentials) throw new KubeconfigFormatError(path, SHAPE);
  return credentials;
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
  const credentials = credentialsFromKubeconfig(config, dirname(path));
  if (!credentials) throw new KubeconfigFormatError(path, SHAPE);
  return credentials;
}

/** Parses a kubeconfig's text: JSON, or the block-YAML subset (UnsupportedYamlError beyond it). */
export function parseLight(text: string): unknown {
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

export interface CurrentContext {
  contextName: string;
  context: Record<string, unknown>;
  cluster: Record<string, unknown> | undefined;
  user: Record<string, unknown> | undefined;
}

/** The current context of a parsed kubeconfig with its cluster and user entries. */
export function currentContext(config: unknown): CurrentContext | undefined {
  if (!config || typeof config !== 'object') return undefined;
  const root = config as Record<string, unknown>;
  const contextName = root['current-context'];
  const context = findNamed(root.contexts, contextName, 'context');
  if (!context) return undefined;
  return {
    contextName: String(contextName),
    context,
    cluster: findNamed(root.clusters, context.cluster, 'cluster'),
    user: findNamed(root.users, context.user, 'user'),
  };
}

/**
 * The credentials of the current context of a parsed kubeconfig. Files it names (tokenFile,
 * client-certificate, client-key) are taken relative to `baseDir`, the kubeconfig's folder, as
 * client-go resolves them; certificate and key files are read here, a tokenFile on every request.
 */
export function credentialsFromKubeconfig(config: unknown, baseDir = '.'): KubeconfigCredentials | undefined {
  const current = currentContext(config);
  if (!current) return undefined;
  const { cluster, user } = current;
  const server = cluster?.server;
  const caData = cluster?.['certificate-authority-data'];
  if (typeof server !== 'string' || typeof caData !== 'string') return undefined;
  const caPem = Buffer.from(caData, 'base64').toString('utf8');
  const token = user?.token;
  const tokenFile = user?.tokenFile;
  // Like client-go, an inline token wins over a tokenFile.
  if (typeof token === 'string' && token !== '') return { server, caPem, token };
  if (typeof tokenFile === 'string' && tokenFile !== '')
    return { server, caPem, tokenFile: resolve(baseDir, tokenFile) };
  const clientCertPem = pemOf(user, 'client-certificate', baseDir);
  const clientKeyPem = pemOf(user, 'client-key', baseDir);
  if (clientCertPem !== undefined && clientKeyPem !== undefined)
    return { server, caPem, clientCertPem, clientKeyPem };
  return undefined;
}

// `<field>-data` (base64 PEM) wins over `<field>` (a file), as in client-go.
function pemOf(
  user: Record<string, unknown> | undefined,
  field: string,
  baseDir: string,
): string | undefined {
  const data = user?.[`${field}-data`];
  if (typeof data === 'string' && data !== '') return Buffer.from(data, 'base64').toString('utf8');
  const file = user?.[field];
  if (typeof file === 'string' && file !== '') return readFileSync(resolve(baseDir, file), 'utf8');
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
