// The one Kubernetes API client: the verbs every component uses (get, list, create, update, patch,
// delete, watch) as JSON over the shared transport (https-transport.ts), with request counts for
// metrics. What differs between components is only where the credentials come from, so the agent's
// LightKubeClient (light/light-kube-client.ts: a kubeconfig read without a YAML library, a pod's token)
// and the controller's KubeClient (kube-client.ts: the official KubeConfig) are constructors of it.

import type { HttpsTransport } from './https-transport.ts';
import { type KubeStatus, kubeErrorFromResponse } from './kube-error.ts';
import {
  KubeWatch,
  type WatchHandle,
  type WatchHandlers,
  type WatchOptions,
  type WatchQuery,
} from './kube-watch.ts';
import { withQuery } from './light/api-paths.ts';
import {
  type DeleteOptions,
  type KubeList,
  type KubeObject,
  PATCH_CONTENT_TYPES,
  type PatchType,
  type QueryParams,
} from './light/types.ts';
import { type KubeVerb, RequestCounters, type RequestCountsSnapshot } from './request-counters.ts';

export interface ListQuery {
  fieldSelector?: string;
  labelSelector?: string;
  limit?: number;
  continue?: string;
  resourceVersion?: string;
  resourceVersionMatch?: string;
}

const JSON_TYPE = 'application/json';

export class ApiClient {
  protected readonly transport: HttpsTransport;
  protected readonly counters = new RequestCounters();
  /** Error messages start with "METHOD /path: " (what the CLI's messages are built from). */
  private readonly namedErrors: boolean;

  protected constructor(transport: (counters: RequestCounters) => HttpsTransport, namedErrors = false) {
    this.transport = transport(this.counters);
    this.namedErrors = namedErrors;
  }

  get<T = KubeObject>(path: string, query?: QueryParams): Promise<T> {
    return this.call<T>('get', 'GET', withQuery(path, query));
  }

  list<T = KubeObject>(path: string, query: ListQuery | QueryParams = {}): Promise<KubeList<T>> {
    return this.call<KubeList<T>>('list', 'GET', withQuery(path, { ...query }));
  }

  /** POST to a collection. */
  create<T = KubeObject>(path: string, body: unknown, query?: QueryParams): Promise<T> {
    return this.call<T>('create', 'POST', withQuery(path, query), body, JSON_TYPE);
  }

  /** PUT of a whole object; carries metadata.resourceVersion for optimistic concurrency (409 when stale). */
  update<T = KubeObject>(path: string, body: unknown, query?: QueryParams): Promise<T> {
    return this.call<T>('update', 'PUT', withQuery(path, query), body, JSON_TYPE);
  }

  /** PATCH with a merge (default), strategic merge, or JSON (RFC 6902, body is an array) patch. */
  patch<T = KubeObject>(
    path: string,
    body: unknown,
    type: PatchType = 'merge',
    query?: QueryParams,
  ): Promise<T> {
    return this.call<T>('patch', 'PATCH', withQuery(path, query), body, PATCH_CONTENT_TYPES[type]);
  }

  /** DELETE; returns the object (it may linger with finalizers) or a Success Status. */
  delete<T = KubeObject>(
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
  watch<T = KubeObject>(
    path: string,
    query: WatchQuery,
    handlers: WatchHandlers<T>,
    options?: WatchOptions,
  ): WatchHandle {
    return new KubeWatch<T>(this.transport, this.counters, path, query, handlers, options);
  }

  /**
   * GET of a non-resource path that answers text (`/readyz?verbose`, `/metrics`); a non-2xx answer
   * throws as the JSON calls do.
   */
  async getText(path: string): Promise<string> {
    this.counters.request('get');
    const response = await this.transport.send('GET', path, undefined, true);
    if (response.status < 200 || response.status > 299)
      throw kubeErrorFromResponse(
        response.status,
        response.text,
        this.namedErrors ? `GET ${path}` : undefined,
      );
    return response.text;
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
    const context = this.namedErrors ? `${method} ${path.split('?')[0]}` : undefined;
    return this.transport.json<T>(
      method,
      path,
      contentType === undefined ? undefined : body,
      contentType,
      context,
    );
  }
}
