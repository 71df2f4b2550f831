// JSON over HTTPS to the API server, authenticated by the official client's KubeConfig (certificates,
// tokens, exec plugins, in-cluster accounts all work). Requests go through one keep-alive agent, so a
// rollout that patches hundreds of Nodes does not pay a TLS handshake per request. Objects stay plain
// wire JSON everywhere (lists, watch events, write responses), so caches never mix shapes.

import http from 'node:http';
import https from 'node:https';
import type { KubeConfig } from '@kubernetes/client-node';
import { KubeError, kubeErrorFromResponse } from './kube-error.ts';
import { withQuery } from './light/api-paths.ts';
import {
  KubeWatch,
  type WatchHandle,
  type WatchHandlers,
  type WatchOptions,
  type WatchQuery,
  type WatchTransport,
} from './light/kube-watch.ts';
import { RequestCounters } from './light/request-counters.ts';
import {
  type KubeObject as LightObject,
  PATCH_CONTENT_TYPES,
  type PatchType,
  type QueryParams as Query,
} from './light/types.ts';
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

interface Prepared {
  options: https.RequestOptions;
  expiresAt: number;
}

export class KubeClient {
  readonly config: KubeConfig;
  readonly server: URL;
  private readonly requestTimeoutMs: number;
  private readonly maxSockets: number;
  private readonly credentialsTtlMs: number;
  private readonly userAgent: string;
  private prepared: Prepared | undefined;
  private preparing: Promise<Prepared> | undefined;
  private agent: http.Agent | undefined;
  private agentKey = '';
  private readonly counters = new RequestCounters();

  constructor(config: KubeConfig, options: KubeClientOptions = {}) {
    const cluster = config.getCurrentCluster();
    if (!cluster) throw new Error('the kubeconfig names no cluster for its current context');
    this.config = config;
    this.server = new URL(cluster.server);
    this.requestTimeoutMs = options.requestTimeoutMs ?? 30_000;
    this.maxSockets = options.maxSockets ?? 32;
    this.credentialsTtlMs = options.credentialsTtlMs ?? 60_000;
    this.userAgent = options.userAgent ?? 'nodeherd-controller';
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
  async watch<T extends KubeObject>(
    path: string,
    query: WatchQuery,
    handlers: WatchHandlers<T & LightObject>,
    options?: WatchOptions,
  ): Promise<WatchHandle> {
    const prepared = await this.prepare();
    const transport: WatchTransport = {
      stream: (streamPath) => {
        const url = new URL(streamPath, this.server);
        const headers = {
          ...(prepared.options.headers as http.OutgoingHttpHeaders),
          Accept: 'application/json',
        };
        const request = (this.server.protocol === 'http:' ? http : https).request(url, {
          ...prepared.options,
          method: 'GET',
          headers,
        });
        const response = new Promise<http.IncomingMessage>((resolve, reject) => {
          request.once('response', resolve);
          request.on('error', reject);
        });
        response.catch(() => {});
        request.end();
        return { request, response };
      },
      redact: (text) => text,
    };
    return new KubeWatch<T & LightObject>(transport, this.counters, path, query, handlers, options);
  }

  /** Closes idle keep-alive connections (tests and shutdown). */
  close(): void {
    this.agent?.destroy();
    this.agent = undefined;
    this.agentKey = '';
    this.prepared = undefined;
  }

  async request<T>(method: string, path: string, body?: unknown, contentType?: string): Promise<T> {
    const prepared = await this.prepare();
    const payload = body === undefined ? undefined : Buffer.from(JSON.stringify(body));
    const url = new URL(path, this.server);
    const transport = this.server.protocol === 'http:' ? http : https;
    return new Promise<T>((resolve, reject) => {
      const headers: http.OutgoingHttpHeaders = {
        ...(prepared.options.headers as http.OutgoingHttpHeaders),
        Accept: 'application/json',
      };
      if (payload) {
        headers['Content-Type'] = contentType ?? 'application/json';
        headers['Content-Length'] = payload.length;
      }
      const req = transport.request(url, { ...prepared.options, method, headers }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('error', reject);
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          const status = res.statusCode ?? 0;
          if (status < 200 || status >= 300) {
            reject(kubeErrorFromResponse(status, text, `${method} ${url.pathname}`));
            return;
          }
          try {
            resolve((text ? JSON.parse(text) : undefined) as T);
          } catch (err) {
            reject(new KubeError(status, 'InvalidResponse', `${method} ${url.pathname}: ${String(err)}`));
          }
        });
      });
      req.setTimeout(this.requestTimeoutMs, () => {
        req.destroy(
          new KubeError(0, 'Timeout', `${method} ${url.pathname}: no answer in ${this.requestTimeoutMs} ms`),
        );
      });
      req.on('error', reject);
      req.end(payload);
    });
  }

  // Credentials are taken from the kubeconfig again after credentialsTtlMs, so rotated tokens and
  // certificates are picked up; the keep-alive agent is replaced only when the TLS material changes.
  private prepare(): Promise<Prepared> {
    const now = Date.now();
    if (this.prepared && this.prepared.expiresAt > now) return Promise.resolve(this.prepared);
    if (!this.preparing) {
      this.preparing = this.load()
        .then((prepared) => {
          this.prepared = prepared;
          return prepared;
        })
        .finally(() => {
          this.preparing = undefined;
        });
    }
    return this.preparing;
  }

  private async load(): Promise<Prepared> {
    const options: https.RequestOptions = { headers: { 'User-Agent': this.userAgent } };
    await this.config.applyToHTTPSOptions(options);
    if (!this.config.getCurrentCluster()?.proxyUrl) options.agent = this.keepAliveAgent(options);
    return { options, expiresAt: Date.now() + this.credentialsTtlMs };
  }

  private keepAliveAgent(options: https.RequestOptions): http.Agent {
    const tls = {
      ca: options.ca,
      cert: options.cert,
      key: options.key,
      pfx: options.pfx,
      passphrase: options.passphrase,
      servername: options.servername,
      ...(options.rejectUnauthorized !== undefined ? { rejectUnauthorized: options.rejectUnauthorized } : {}),
    };
    const key = JSON.stringify(tls, (_k, v) => (Buffer.isBuffer(v) ? v.toString('base64') : v));
    if (!this.agent || key !== this.agentKey) {
      this.agent?.destroy();
      const common = { keepAlive: true, maxSockets: this.maxSockets, maxFreeSockets: this.maxSockets };
      this.agent =
        this.server.protocol === 'http:' ? new http.Agent(common) : new https.Agent({ ...common, ...tls });
      this.agentKey = key;
    }
    return this.agent;
  }
}
