// The controller's and the CLI's client: the one API client (api-client.ts) over the shared transport
// (one keep-alive agent, so a rollout that patches hundreds of Nodes does not pay a TLS handshake per
// request) with credentials from the official client's KubeConfig, which understands every form a
// kubeconfig may take (certificates, tokens, exec plugins, in-cluster accounts) — the one place the
// official client earns its memory — or, for the controller, from the light reader when the kubeconfig
// needs no more (cluster-config.ts). Objects stay plain wire JSON everywhere (lists, watch events,
// write responses), so caches never mix shapes.

import { ApiClient } from './api-client.ts';
import { type ClusterConfig, isLightClusterConfig } from './cluster-config.ts';
import { KubeConfigCredentials } from './credential-source.ts';
import { HttpsTransport } from './https-transport.ts';
import type { QueryParams } from './light/types.ts';

export interface KubeClientOptions {
  /** Timeout of ordinary requests (not watches); default 30 s. */
  requestTimeoutMs?: number;
  /** Parallel connections to the API server; default 32. */
  maxSockets?: number;
  /** How long credentials from the kubeconfig are reused before asking it again (tokens rotate); default 60 s. */
  credentialsTtlMs?: number;
  userAgent?: string;
}

export class KubeClient extends ApiClient {
  readonly config: ClusterConfig;
  readonly server: URL;

  constructor(config: ClusterConfig, options: KubeClientOptions = {}) {
    const server = isLightClusterConfig(config)
      ? config.credentials.server
      : config.getCurrentCluster()?.server;
    if (server === undefined) throw new Error('the kubeconfig names no cluster for its current context');
    const maxSockets = options.maxSockets ?? 32;
    const tuning = {
      server,
      requestTimeoutMs: options.requestTimeoutMs ?? 30_000,
      userAgent: options.userAgent ?? 'nodeherd-controller',
      maxSockets,
      maxFreeSockets: maxSockets,
    };
    super(
      (counters) =>
        isLightClusterConfig(config)
          ? new HttpsTransport({ ...tuning, ...config.credentials }, counters)
          : new HttpsTransport(
              tuning,
              counters,
              new KubeConfigCredentials(config, options.credentialsTtlMs ?? 60_000),
            ),
      true,
    );
    this.config = config;
    this.server = new URL(server);
  }

  /** PUT of a whole object (the name the controller's callers use for update). */
  replace<T>(path: string, body: unknown, query?: QueryParams): Promise<T> {
    return this.update<T>(path, body, query);
  }
}
