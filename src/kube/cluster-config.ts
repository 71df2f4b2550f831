// How the controller reaches its cluster. The kubeconfigs a controller meets almost always (a pod's
// ServiceAccount, or a file with a bearer token, a token file or a client certificate) are read by the
// light reader (kubeconfig-credentials.ts), so the controller never loads @kubernetes/client-node: its
// configuration module pulls in undici, the generated API models, the auth providers and proxies,
// ~18 MB of RSS for the life of the process (issue 17). Anything else (exec plugins, auth providers,
// proxies, TLS settings, another context, several files in $KUBECONFIG) goes to the official client,
// loaded only then.

import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { KubeConfig } from '@kubernetes/client-node';
import type { KubeConfigOptions } from './kube-config.ts';
import {
  credentialsFromKubeconfig,
  currentContext,
  IN_CLUSTER_SERVICE_ACCOUNT_DIR,
  inClusterCredentials,
  type KubeconfigCredentials,
  parseLight,
} from './kubeconfig-credentials.ts';

/** Credentials the light reader understood, and where they came from. */
export interface LightClusterConfig {
  readonly credentials: KubeconfigCredentials;
  /** The kubeconfig file, or `in-cluster`. */
  readonly source: string;
  /** The current context's name and its user's, as a kubeconfig names them (for messages). */
  readonly contextName?: string;
  readonly userName?: string;
}

/** What KubeClient is built from: the official KubeConfig, or what the light reader read. */
export type ClusterConfig = KubeConfig | LightClusterConfig;

export function isLightClusterConfig(config: ClusterConfig): config is LightClusterConfig {
  return 'credentials' in config && 'source' in config;
}

// What the light reader uses of a cluster and of a user; any other field changes how to connect.
const LIGHT_CLUSTER_FIELDS = new Set(['server', 'certificate-authority-data']);
const LIGHT_USER_FIELDS = new Set([
  'token',
  'tokenFile',
  'client-certificate',
  'client-certificate-data',
  'client-key',
  'client-key-data',
]);

/**
 * The kubeconfig file client-node's loadFromDefault would read: the flag's, a single $KUBECONFIG, or
 * ~/.kube/config when it exists; null when it would merge several files; undefined when there is none.
 */
function kubeconfigPath(options: KubeConfigOptions, env: NodeJS.ProcessEnv): string | null | undefined {
  if (options.kubeconfig) return options.kubeconfig;
  const fromEnv = env.KUBECONFIG;
  if (fromEnv) return fromEnv.includes(':') ? null : fromEnv;
  // node:os only here: the agent names its kubeconfig and never loads it (issue 17, idle RSS).
  const os = process.getBuiltinModule('node:os') as typeof import('node:os');
  const home = join(os.homedir(), '.kube', 'config');
  return existsSync(home) ? home : undefined;
}

/** The file's credentials when the light reader understands all of its current context. */
function lightFromFile(path: string): LightClusterConfig | undefined {
  let config: unknown;
  try {
    config = parseLight(readFileSync(path, 'utf8'));
  } catch {
    return undefined; // unreadable or beyond the YAML subset: the official client says why
  }
  const current = currentContext(config);
  if (!current?.cluster || !current.user) return undefined;
  if (Object.keys(current.cluster).some((field) => !LIGHT_CLUSTER_FIELDS.has(field))) return undefined;
  if (Object.keys(current.user).some((field) => !LIGHT_USER_FIELDS.has(field))) return undefined;
  try {
    const credentials = credentialsFromKubeconfig(config, dirname(path));
    // The light transport speaks TLS only; a plain-HTTP test server goes through the official client.
    if (!credentials?.server.startsWith('https://')) return undefined;
    const userName = current.context.user;
    return {
      credentials,
      source: path,
      contextName: current.contextName,
      ...(typeof userName === 'string' ? { userName } : {}),
    };
  } catch {
    return undefined; // a certificate file that cannot be read: the official client says why
  }
}

/**
 * Loads the controller's and the CLI's cluster configuration: the light reader's when it understands
 * it, else the official client's (loadKubeConfig, with its errors), loaded for the purpose.
 */
export async function loadClusterConfig(
  options: KubeConfigOptions = {},
  env: NodeJS.ProcessEnv = process.env,
  serviceAccountDir = IN_CLUSTER_SERVICE_ACCOUNT_DIR,
): Promise<ClusterConfig> {
  if (options.context === undefined) {
    const path = kubeconfigPath(options, env);
    const light =
      typeof path === 'string'
        ? lightFromFile(path)
        : path === undefined &&
            env.KUBERNETES_SERVICE_HOST &&
            env.KUBERNETES_SERVICE_PORT &&
            existsSync(join(serviceAccountDir, 'token'))
          ? { credentials: inClusterCredentials(env, serviceAccountDir), source: 'in-cluster' }
          : undefined;
    if (light) return light;
  }
  const { loadKubeConfig } = await import('./kube-config.ts');
  return loadKubeConfig(options);
}
