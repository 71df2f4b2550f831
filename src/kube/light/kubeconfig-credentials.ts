// Reads the current context's server, inline CA and bearer token from a kubeconfig without loading
// the `yaml` package (≈5 MB of RSS on every node): JSON and the block-YAML subset that nodeherd and
// kubectl write are read directly. Only a file outside that subset pays for the full parser, and
// only through the asynchronous loader. Error messages never quote the file: it holds a credential.

import { readFileSync } from 'node:fs';
import { parseBlockYamlOrThrow, UnsupportedYamlError } from './block-yaml.ts';

export interface KubeconfigCredentials {
  server: string;
  caPem: string;
  token: string;
}

/** The file is readable but its content is outside what the light reader understands. */
export class KubeconfigFormatError extends Error {
  constructor(path: string, why: string) {
    super(`kubeconfig ${path}: ${why}`);
    this.name = 'KubeconfigFormatError';
  }
}

const SHAPE =
  'its current context needs a cluster with server and certificate-authority-data and a user with a token';

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
  return credentials;
}

/** Like readKubeconfigCredentialsSync, but falls back to the full YAML parser instead of failing. */
export async function loadKubeconfigCredentials(path: string): Promise<KubeconfigCredentials> {
  try {
    return readKubeconfigCredentialsSync(path);
  } catch (err) {
    if (!(err instanceof KubeconfigFormatError)) throw err;
  }
  const { parseKubeconfig } = await import('../kubeconfig-file.ts');
  const spec = parseKubeconfig(readFileSync(path, 'utf8'));
  if (!spec) throw new KubeconfigFormatError(path, SHAPE);
  return { server: spec.server, caPem: spec.caPem, token: spec.token };
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
  if (typeof server !== 'string' || typeof caData !== 'string' || typeof token !== 'string') return undefined;
  return { server, caPem: Buffer.from(caData, 'base64').toString('utf8'), token };
}
