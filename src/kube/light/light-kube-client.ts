// A minimal Kubernetes API client for the node agent, built on node:https only. The official client
// costs ~85 MB of RSS on every node; the agent needs a handful of verbs on a few objects, so this
// speaks the wire protocol directly: JSON bodies, Status errors, NDJSON watches.

import { HttpsTransport, type HttpsTransportOptions } from '../https-transport.ts';
import type { KubeStatus } from '../kube-error.ts';
import {
  KubeWatch,
  type WatchHandle,
  type WatchHandlers,
  type WatchOptions,
  type WatchQuery,
} from '../kube-watch.ts';
import {
  inClusterCredentials,
  loadKubeconfigCredentials,
  readKubeconfigCredentialsSync,
} from '../kubeconfig-credentials.ts';
import { type KubeVerb, RequestCounters, type RequestCountsSnapshot } from '../request-counters.ts';
import { withQuery } from './api-paths.ts';
import {
  type DeleteOptions,
  type KubeList,
  type KubeObject,
  PATCH_CONTENT_TYPES,
  type PatchType,
  type QueryParams,
} from './types.ts';

export type LightKubeClientOptions = HttpsTransportOptions;

/** Options other than where to connect and as whom. */
export type ClientTuning = Omit<
  LightKubeClientOptions,
  'server' | 'caPem' | 'token' | 'tokenFile' | 'clientCertPem' | 'clientKeyPem'
>;

export interface ListQuery {
  fieldSelector?: string;
  labelSelector?: string;
  limit?: number;
  continue?: string;
  resourceVersion?: string;
  resourceVersionMatch?: string;
}

const JSON_TYPE = 'application/json';

export class LightKubeClient {
  private readonly transport: HttpsTransport;
  private readonly counters = new RequestCounters();

  constructor(options: LightKubeClientOptions) {
    this.transport = new HttpsTransport(options, this.counters);
  }

  /**
   * A client for the current context of a kubeconfig with an inline CA and a bearer token, a token
   * file (read again when it changes: a rotated token is used without a restart) or a client certificate. Reads JSON
   * and the block YAML nodeherd and kubectl write without a YAML library; throws KubeconfigFormatError
   * for anything fancier (use loadKubeconfig then).
   */
  static fromKubeconfig(path: string, options: ClientTuning = {}): LightKubeClient {
    return new LightKubeClient({ ...options, ...readKubeconfigCredentialsSync(path) });
  }

  /** Like fromKubeconfig, but loads the full YAML parser for a file outside the light subset. */
  static async loadKubeconfig(path: string, options: ClientTuning = {}): Promise<LightKubeClient> {
    return new LightKubeClient({ ...options, ...(await loadKubeconfigCredentials(path)) });
  }

  /** A client of a pod: its ServiceAccount token (re-read on rotation) and the cluster CA. */
  static inCluster(options: ClientTuning = {}, env?: Record<string, string | undefined>): LightKubeClient {
    return new LightKubeClient({ ...options, ...inClusterCredentials(env) });
  }

  /** The API server's origin (scheme, host and port). */
  get server(): string {
    return this.transport.server.origin;
  }

  get<T extends KubeObject = KubeObject>(path: string, query?: QueryParams): Promise<T> {
    return this.call<T>('get', 'GET', withQuery(path, query));
  }

  list<T extends KubeObject = KubeObject>(path: string, query: ListQuery = {}): Promise<KubeList<T>> {
    return this.call<KubeList<T>>('list', 'GET', withQuery(path, { ...query }));
  }

  /** POST to a collection. */
  create<T extends KubeObject = KubeObject>(path: string, body: unknown, query?: QueryParams): Promise<T> {
    return this.call<T>('create', 'POST', withQuery(path, query), body, JSON_TYPE);
  }

  /** PUT of a whole object; carries metadata.resourceVersion for optimistic concurrency (409 when stale). */
  update<T extends KubeObject = KubeObject>(path: string, body: unknown, query?: QueryParams): Promise<T> {
    return this.call<T>('update', 'PUT', withQuery(path, query), body, JSON_TYPE);
  }

  /** PATCH with a merge (default), strategic merge, or JSON (RFC 6902, body is an array) patch. */
  patch<T extends KubeObject = KubeObject>(
    path: string,
    body: unknown,
    type: PatchType = 'merge',
    query?: QueryParams,
  ): Promise<T> {
    return this.call<T>('patch', 'PATCH', withQuery(path, query), body, PATCH_CONTENT_TYPES[type]);
  }

  /** DELETE; returns the object (it may linger with finalizers) or a Success Status. */
  delete<T extends KubeObject = KubeObject>(
    path: string,
    options?: DeleteOptions,
    query?: QueryParams,
  ): Promise<T | KubeStatus> {
    const body = options ? { apiVersion: 'v1', kind: 'DeleteOptions', ...options } : undefined;
    return this.call<T | KubeStatus>(
      'delete',
      'DELETE',
      withQuery(path, query),
      body,
      body ? JSON_TYPE : undefined,
    );
  }

  /** Opens one watch on a collection; see KubeWatch for how it ends. */
  watch<T extends KubeObject = KubeObject>(
    path: string,
    query: WatchQuery,
    handlers: WatchHandlers<T>,
    options?: WatchOptions,
  ): WatchHandle {
    return new KubeWatch<T>(this.transport, this.counters, path, query, handlers, options);
  }

  /** Requests and responses so far (for metrics and benchmarks). */
  stats(): RequestCountsSnapshot {
    return this.counters.snapshot();
  }

  /** Closes idle pooled connections; open watches are torn down. */
  close(): void {
    this.transport.close();
  }

  private call<T>(
    verb: KubeVerb,
    method: string,
    path: string,
    body?: unknown,
    contentType?: string,
  ): Promise<T> {
    this.counters.request(verb);
    return this.transport.json<T>(method, path, contentType === undefined ? undefined : body, contentType);
  }
}
