// The connection to one API server, for every client: a keep-alive agent trusting only the cluster's
// CA, the credentials of each request from a CredentialSource (credential-source.ts: the agent's token
// or certificate, or the official KubeConfig's), JSON calls and whole-body requests with a timeout,
// and streamed requests for watches. Tokens are kept private and scrubbed from any text that reaches
// an error.

import {
  type ClientRequest,
  Agent as HttpAgent,
  request as httpRequest,
  type IncomingMessage,
} from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import { createSecureContext } from 'node:tls';
import { type CredentialSource, StaticCredentials, type TlsMaterial } from './credential-source.ts';
import { KubeError, kubeErrorFromResponse } from './kube-error.ts';
import { PATCH_CONTENT_TYPES } from './light/types.ts';
import type { RequestCounters } from './request-counters.ts';

/** How the transport pools connections and times requests out. */
export interface ConnectionTuning {
  /** Limit for a whole request/response exchange other than a watch (default 30 s). */
  requestTimeoutMs?: number;
  userAgent?: string;
  /** Parallel connections (default: unbounded); idle ones kept: maxFreeSockets (default 2). */
  maxSockets?: number;
  maxFreeSockets?: number;
}

/** The light client's form: where to connect, a CA, and a token, token file or client certificate. */
export interface HttpsTransportOptions extends ConnectionTuning {
  /** API server URL, e.g. https://127.0.0.1:6443 (a path prefix is kept). */
  server: string;
  /** PEM of the CA that signed the server's certificate; nothing else is trusted. */
  caPem: string;
  /** The bearer token; or tokenFile, a file holding it that is read again when it changes. */
  token?: string;
  tokenFile?: string;
  /** A client certificate and its key (PEM), instead of a token. */
  clientCertPem?: string;
  clientKeyPem?: string;
}

export interface BufferedResponse {
  status: number;
  text: string;
  /** The server's Retry-After in seconds, when it sent a valid one (with a 429 or a 5xx). */
  retryAfterSeconds?: number;
}

export interface StreamedRequest {
  /** Tears the request down (before or after its response arrived). */
  abort(): void;
  /** Resolves when response headers arrive; rejects if the request fails before that. */
  response: Promise<IncomingMessage>;
}

/** A response larger than this is refused rather than buffered (the agent reads single objects). */
const MAX_BUFFERED_RESPONSE_BYTES = 128 * 1024 * 1024;
const REDACTED = '[redacted]';
/**
 * How long an idle pooled connection is kept: below the 90 s after which kube-apiserver (its HTTP/1.1
 * IdleTimeout) and the embedded server (keepAliveTimeout) close one. In a request it is only the
 * socket's inactivity timer, which nothing here listens to: requests set their own timeout.
 */
export const IDLE_CONNECTION_TIMEOUT_MS = 60_000;
const JSON_TYPE = 'application/json';
/**
 * How often a request the server turned away with Retry-After is sent again, and the longest wait
 * honoured, as client-go does (10 retries; its default Retry-After ceiling is far above a minute, but
 * no caller here waits longer than its own request timeout for one answer).
 */
export const MAX_RETRY_AFTER_RETRIES = 10;
const MAX_RETRY_AFTER_SECONDS = 60;

export class HttpsTransport {
  readonly server: URL;
  readonly #credentials: CredentialSource;
  private readonly basePath: string;
  private readonly requestTimeoutMs: number;
  private readonly userAgent: string;
  private readonly tuning: ConnectionTuning;
  private readonly counters: RequestCounters;
  private readonly staleConnectionFailures = new WeakSet<Error>();
  private agent: HttpAgent | undefined;
  private agentTls: TlsMaterial | undefined;
  /** The pooled agent's TLS options (its SecureContext), which a one-off fresh connection uses too. */
  private agentTlsOptions: ReturnType<typeof secured> | undefined;

  /** The light client's form: a CA and a token, token file or client certificate. */
  constructor(options: HttpsTransportOptions, counters: RequestCounters);
  /** Any credential source (the official KubeConfig's, for one). */
  constructor(
    options: { server: string } & ConnectionTuning,
    counters: RequestCounters,
    credentials: CredentialSource,
  );
  constructor(
    options: ({ server: string } & ConnectionTuning) | HttpsTransportOptions,
    counters: RequestCounters,
    credentials?: CredentialSource,
  ) {
    const server = new URL(options.server);
    // A static CA and token only make sense over TLS; a KubeConfig may name a plain-HTTP test server.
    if (server.protocol !== 'https:' && (credentials === undefined || server.protocol !== 'http:'))
      throw new Error(`API server URL must use https: ${server.origin}`);
    this.#credentials = credentials ?? new StaticCredentials(options as HttpsTransportOptions);
    this.server = server;
    this.basePath = server.pathname.replace(/\/+$/, '');
    this.requestTimeoutMs = options.requestTimeoutMs ?? 30_000;
    this.userAgent = options.userAgent ?? 'nodeherd-light-client';
    this.tuning = options;
    this.counters = counters;
  }

  /**
   * One API call with a JSON body and a JSON answer: a non-2xx answer is a KubeError (its message
   * prefixed with `errorContext` when given). Idempotent requests survive a stale pooled connection;
   * a 401 after the credentials changed (a rotated token file) is sent once more, since the refused
   * request never acted.
   */
  async json<T>(
    method: string,
    path: string,
    body?: unknown,
    contentType = JSON_TYPE,
    errorContext?: string,
  ): Promise<T> {
    const payload = body === undefined ? undefined : { contentType, data: JSON.stringify(body) };
    // Sending these twice leaves the same state; a POST or a JSON patch could apply twice.
    const idempotent =
      method === 'GET' ||
      method === 'PUT' ||
      method === 'DELETE' ||
      contentType === PATCH_CONTENT_TYPES.merge ||
      contentType === PATCH_CONTENT_TYPES.strategic;
    let response = await this.send(method, path, payload, idempotent);
    if (response.status === 401 && this.refreshToken()) {
      this.counters.retry();
      response = await this.send(method, path, payload, idempotent);
    }
    for (let retries = 0; retries < MAX_RETRY_AFTER_RETRIES; retries++) {
      const wait = retryAfterWait(response, idempotent);
      if (wait === undefined) break;
      this.counters.retry();
      await new Promise((resolve) => setTimeout(resolve, wait));
      response = await this.send(method, path, payload, idempotent);
    }
    if (response.status < 200 || response.status > 299)
      throw kubeErrorFromResponse(response.status, response.text, errorContext);
    if (response.text === '') return undefined as T;
    try {
      return JSON.parse(response.text) as T;
    } catch {
      throw new KubeError(
        response.status,
        'InvalidResponse',
        `${method} ${path}: HTTP ${response.status} with a body that is not JSON`,
      );
    }
  }

  /**
   * Sends a request and reads the whole response body. An idempotent request that fails on a pooled
   * connection before any answer is sent once more on a new connection of its own: the server may have
   * closed the idle connection just as the request went out (Node's keep-alive race), so the request
   * never arrived. Not on another pooled one: connections idle since the same moment were closed by
   * the same timer, and a client whose event loop runs late has not yet read the server's close of any.
   */
  async send(
    method: string,
    path: string,
    body?: { contentType: string; data: string },
    idempotent = false,
  ): Promise<BufferedResponse> {
    try {
      return await this.sendOnce(method, path, body);
    } catch (err) {
      if (!idempotent || !this.staleConnectionFailures.has(err as Error)) throw err;
      this.counters.retry();
      return this.sendOnce(method, path, body, true);
    }
  }

  private async sendOnce(
    method: string,
    path: string,
    body?: { contentType: string; data: string },
    freshConnection = false,
  ): Promise<BufferedResponse> {
    const data = body === undefined ? undefined : Buffer.from(body.data, 'utf8');
    const req = await this.open(method, path, body?.contentType, data?.length, freshConnection);
    return new Promise<BufferedResponse>((resolve, reject) => {
      let answered = false;
      req.setTimeout(this.requestTimeoutMs, () => {
        req.destroy(
          new KubeError(
            0,
            'Timeout',
            `${method} ${this.server.origin}${path} timed out after ${this.requestTimeoutMs} ms`,
          ),
        );
      });
      req.on('error', (err: NodeJS.ErrnoException) => {
        this.counters.transportFailure();
        if (!answered && req.reusedSocket && (err.code === 'ECONNRESET' || err.code === 'EPIPE')) {
          this.staleConnectionFailures.add(err);
        }
        reject(err);
      });
      req.on('response', (res) => {
        answered = true;
        this.counters.response(res.statusCode ?? 0);
        const chunks: Buffer[] = [];
        let size = 0;
        res.on('data', (chunk: Buffer) => {
          size += chunk.length;
          this.counters.bytes(chunk.length);
          if (size > MAX_BUFFERED_RESPONSE_BYTES) {
            req.destroy(
              new Error(`response to ${method} ${path} exceeds ${MAX_BUFFERED_RESPONSE_BYTES} bytes`),
            );
            return;
          }
          chunks.push(chunk);
        });
        res.on('end', () => {
          const retryAfterSeconds = parseRetryAfter(res.headers['retry-after']);
          resolve({
            status: res.statusCode ?? 0,
            text: this.redact(Buffer.concat(chunks, size).toString('utf8')),
            ...(retryAfterSeconds === undefined ? {} : { retryAfterSeconds }),
          });
        });
        // A connection lost mid-body errors the response, not the request.
        res.on('error', reject);
      });
      req.end(data);
    });
  }

  /** Opens a GET whose response body the caller reads as a stream (a watch). No timeout is set here. */
  stream(path: string): StreamedRequest {
    let aborted = false;
    let req: ClientRequest | undefined;
    const response = this.open('GET', path).then(
      (opened) =>
        new Promise<IncomingMessage>((resolve, reject) => {
          req = opened;
          let answered = false;
          opened.once('response', (res) => {
            answered = true;
            this.counters.response(res.statusCode ?? 0);
            resolve(res);
          });
          opened.on('error', (err) => {
            if (!answered) this.counters.transportFailure();
            reject(err);
          });
          if (aborted) opened.destroy();
          opened.end();
        }),
    );
    // Keep an early failure from becoming an unhandled rejection if the caller aborts first.
    response.catch(() => {});
    return {
      abort: () => {
        aborted = true;
        req?.destroy();
      },
      response,
    };
  }

  /** Replaces any occurrence of a secret in text that may end up in an error or a log. */
  redact(text: string): string {
    let out = text;
    for (const secret of this.#credentials.secrets()) {
      if (secret !== '' && out.includes(secret)) out = out.split(secret).join(REDACTED);
    }
    return out;
  }

  /**
   * After a 401: reads the credentials again at once. True when they changed, so the request that
   * was refused is worth sending once more (a rotation the stat check had not seen yet).
   */
  refreshToken(): boolean {
    return this.#credentials.refresh();
  }

  /** Closes pooled sockets; in-flight requests are destroyed. */
  close(): void {
    this.agent?.destroy();
    this.agent = undefined;
    this.agentTls = undefined;
    this.agentTlsOptions = undefined;
  }

  private async open(
    method: string,
    path: string,
    contentType?: string,
    contentLength?: number,
    freshConnection = false,
  ): Promise<ClientRequest> {
    if (!path.startsWith('/')) throw new Error(`request path must start with '/': ${path}`);
    const credentials = await this.#credentials.current();
    const headers: Record<string, string> = {
      Accept: 'application/json',
      'User-Agent': this.userAgent,
      ...credentials.headers,
    };
    if (contentType !== undefined) headers['Content-Type'] = contentType;
    // Explicit: Node sends a DELETE body neither chunked nor with a length, so the server would read
    // the body as the start of the next request.
    if (contentLength !== undefined) headers['Content-Length'] = String(contentLength);
    const secure = this.server.protocol === 'https:';
    const req = (secure ? httpsRequest : httpRequest)({
      // A fresh connection: a one-off agent (agent: false) with the pool's SecureContext. A caller's
      // agent (a proxy's) is used as it is.
      ...(credentials.agent
        ? { agent: credentials.agent }
        : freshConnection
          ? { agent: false, ...(secure ? this.pooledTlsOptions(credentials.tls) : {}) }
          : { agent: this.pooledAgent(credentials.tls) }),
      protocol: this.server.protocol,
      hostname: this.server.hostname.replace(/^\[|\]$/g, ''),
      port: this.server.port === '' ? (secure ? 443 : 80) : Number(this.server.port),
      method,
      path: `${this.basePath}${path}`,
      headers,
    });
    // The agent marks a pooled socket before handing it over.
    req.once('socket', () => {
      if (!req.reusedSocket) this.counters.connection();
    });
    return req;
  }

  // One keep-alive agent while the TLS material stays the same (rotated certificates replace it).
  // One idle socket is enough for an agent that makes a request every few minutes; LIFO reuse keeps
  // the warm one. Idle sockets close after IDLE_CONNECTION_TIMEOUT_MS, or a second before the server's
  // Keep-Alive timeout if it announces a shorter one: Node applies that hint only when the agent has a
  // timeout of its own, and without one kept idle sockets until the server closed them, racing
  // every request that picked one up at that moment.
  // The CA, certificate and key go into one SecureContext for the agent's lifetime: given as plain
  // options, every new connection (each watch is one) parses them into a context of its own again.
  private pooledAgent(tls: TlsMaterial): HttpAgent {
    if (this.agent && (tls === this.agentTls || sameTls(tls, this.agentTls))) return this.agent;
    this.agent?.destroy();
    const common = {
      keepAlive: true,
      timeout: IDLE_CONNECTION_TIMEOUT_MS,
      maxFreeSockets: this.tuning.maxFreeSockets ?? 2,
      scheduling: 'lifo' as const,
      ...(this.tuning.maxSockets !== undefined ? { maxSockets: this.tuning.maxSockets } : {}),
    };
    const secure = this.server.protocol === 'https:';
    this.agentTlsOptions = secure ? secured(tls) : undefined;
    this.agent = secure ? new HttpsAgent({ ...common, ...this.agentTlsOptions }) : new HttpAgent(common);
    this.agentTls = tls;
    return this.agent;
  }

  /** The TLS options of the pooled agent for this material (the agent made or replaced as needed). */
  private pooledTlsOptions(tls: TlsMaterial): ReturnType<typeof secured> | undefined {
    this.pooledAgent(tls);
    return this.agentTlsOptions;
  }
}

/** The agent options of TLS material: its keys and certificates as one SecureContext. */
function secured(tls: TlsMaterial) {
  const { ca, cert, key, pfx, passphrase, servername, rejectUnauthorized } = tls;
  return {
    secureContext: createSecureContext({ ca, cert, key, pfx, passphrase }),
    ...(servername !== undefined ? { servername } : {}),
    ...(rejectUnauthorized !== undefined ? { rejectUnauthorized } : {}),
  };
}

function sameTls(a: TlsMaterial, b: TlsMaterial | undefined): boolean {
  if (b === undefined) return false;
  const text = (t: TlsMaterial) =>
    JSON.stringify(t, (_k, v) => (Buffer.isBuffer(v) ? v.toString('base64') : v));
  return text(a) === text(b);
}

/** Retry-After as whole seconds (the API server sends delta-seconds; an HTTP date is not used). */
export function parseRetryAfter(header: string | undefined): number | undefined {
  if (header === undefined || !/^\s*\d{1,9}\s*$/.test(header)) return undefined;
  return Number(header.trim());
}

/**
 * How long to wait before sending a refused request again, or undefined to give up. A 429 means the
 * server did not act on the request (priority and fairness, a rate limit), so any verb is sent again;
 * a 5xx with Retry-After (a server starting up or shedding load) may have acted, so only an idempotent
 * request is. Both only when the server said when to come back, as client-go's checkWait does.
 */
export function retryAfterWait(response: BufferedResponse, idempotent: boolean): number | undefined {
  const seconds = response.retryAfterSeconds;
  if (seconds === undefined) return undefined;
  if (response.status !== 429 && !(idempotent && response.status >= 500 && response.status <= 599))
    return undefined;
  return Math.min(Math.max(seconds, 0), MAX_RETRY_AFTER_SECONDS) * 1000;
}
