// The controller's and the CLI's client: the shared transport (https-transport.ts: one
// keep-alive agent, so a rollout that patches hundreds of Nodes does not pay a TLS handshake per
// request) with credentials from the official client's KubeConfig, which understands every form a
// kubeconfig may take (certificates, tokens, exec plugins, in-cluster accounts) — the one place the
// official client earns its memory. Objects stay plain wire JSON everywhere (lists, watch events,
// write responses), so caches never mix shapes.

import type { KubeConfig } from '@kubernetes/client-node';
import { KubeConfigCredentials } from './credential-source.ts';
import { HttpsTransport } from './https-transport.ts';
import {
  KubeWatch,
  type WatchHandle,
  type WatchHandlers,
  type WatchOptions,
  type WatchQuery,
} from './kube-watch.ts';
import { withQuery } from './light/api-paths.ts';
import {
  type KubeObject as LightObject,
  PATCH_CONTENT_TYPES,
  type PatchType,
  type QueryParams as Query,
} from './light/types.ts';
import { type KubeVerb, RequestCounters } from './request-counters.ts';
import type { KubeList, KubeObject } from './types.ts';

export interface KubeClientOptions {
  /** Timeout of ordinary requests (not watches); default 30 s. */
  requestTimeoutMs?: number;
  /** Parallel connections to the API server; default 32. */
  maxSockets?: number;
  /** How long credentials from the kubeconfig are reused before asking it again (tokens rotate); default 60 s. */
  credentialsTtlMs?: number;
  userAgent?: string;
}

const VERBS: Record<string, KubeVerb> = {
  GET: 'get',
  POST: 'create',
  PUT: 'update',
  PATCH: 'patch',
  DELETE: 'delete',
};

export class KubeClient {
  readonly config: KubeConfig;
  readonly server: URL;
  private readonly transport: HttpsTransport;
  private readonly counters = new RequestCounters();

  constructor(config: KubeConfig, options: KubeClientOptions = {}) {
    const cluster = config.getCurrentCluster();
    if (!cluster) throw new Error('the kubeconfig names no cluster for its current context');
    this.config = config;
    this.server = new URL(cluster.server);
    const maxSockets = options.maxSockets ?? 32;
    this.transport = new HttpsTransport(
      {
        server: cluster.server,
        requestTimeoutMs: options.requestTimeoutMs ?? 30_000,
        userAgent: options.userAgent ?? 'nodeherd-controller',
        maxSockets,
        maxFreeSockets: maxSockets,
      },
      this.counters,
      new KubeConfigCredentials(config, options.credentialsTtlMs ?? 60_000),
    );
  }

  get<T>(path: string, query?: Query): Promise<T> {
    return this.request<T>('GET', withQuery(path, query));
  }

  list<T extends KubeObject>(path: string, query?: Query): Promise<KubeList<T>> {
    return this.request<KubeList<T>>('GET', withQuery(path, query));
  }

  create<T>(path: string, body: unknown, query?: Query): Promise<T> {
    return this.request<T>('POST', withQuery(path, query), body);
  }

  replace<T>(path: string, body: unknown, query?: Query): Promise<T> {
    return this.request<T>('PUT', withQuery(path, query), body);
  }

  patch<T>(path: string, body: unknown, type: PatchType = 'merge', query?: Query): Promise<T> {
    return this.request<T>('PATCH', withQuery(path, query), body, PATCH_CONTENT_TYPES[type]);
  }

  delete<T = unknown>(path: string, body?: unknown, query?: Query): Promise<T> {
    return this.request<T>('DELETE', withQuery(path, query), body);
  }

  /** Opens a watch (NDJSON stream) on a collection; events arrive until the handle is done. */
  watch<T extends KubeObject>(
    path: string,
    query: WatchQuery,
    handlers: WatchHandlers<T & LightObject>,
    options?: WatchOptions,
  ): WatchHandle {
    return new KubeWatch<T & LightObject>(this.transport, this.counters, path, query, handlers, options);
  }

  /** Closes idle keep-alive connections (tests and shutdown). */
  close(): void {
    this.transport.close();
  }

  request<T>(method: string, path: string, body?: unknown, contentType?: string): Promise<T> {
    this.counters.request(VERBS[method] ?? 'get');
    const pathname = new URL(path, this.server).pathname;
    return this.transport.json<T>(method, path, body, contentType, `${method} ${pathname}`);
  }
}
