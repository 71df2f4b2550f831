// The HTTPS connection to one API server: a keep-alive agent trusting only the cluster's CA, the
// bearer token on every request (or a client certificate presented by the agent), whole-body requests with a timeout, and streamed requests for
// watches. The token (fixed, or read from a file that rotates: token-source.ts) is kept private and
// scrubbed from any text that reaches an error.

import type { ClientRequest, IncomingMessage } from 'node:http';
import { Agent, request as httpsRequest } from 'node:https';
import type { RequestCounters } from './request-counters.ts';
import { type BearerTokenSource, FileTokenSource, StaticTokenSource } from './token-source.ts';

export interface HttpsTransportOptions {
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
  /** Limit for a whole request/response exchange other than a watch (default 30 s). */
  requestTimeoutMs?: number;
  userAgent?: string;
}

export interface BufferedResponse {
  status: number;
  text: string;
}

export interface StreamedRequest {
  request: ClientRequest;
  /** Resolves when response headers arrive; rejects if the request fails before that. */
  response: Promise<IncomingMessage>;
}

/** A response larger than this is refused rather than buffered (the agent reads single objects). */
const MAX_BUFFERED_RESPONSE_BYTES = 128 * 1024 * 1024;
const REDACTED = '[redacted]';

export class HttpsTransport {
  readonly server: URL;
  readonly #tokens: BearerTokenSource | undefined;
  private readonly agent: Agent;
  private readonly basePath: string;
  private readonly requestTimeoutMs: number;
  private readonly userAgent: string;
  private readonly counters: RequestCounters;
  private readonly staleConnectionFailures = new WeakSet<Error>();

  constructor(options: HttpsTransportOptions, counters: RequestCounters) {
    const server = new URL(options.server);
    if (server.protocol !== 'https:') throw new Error(`API server URL must use https: ${server.origin}`);
    const certificate = options.clientCertPem !== undefined && options.clientKeyPem !== undefined;
    if (options.token === undefined && options.tokenFile === undefined && !certificate)
      throw new Error('a bearer token is required');
    this.server = server;
    this.basePath = server.pathname.replace(/\/+$/, '');
    this.#tokens =
      options.token !== undefined
        ? new StaticTokenSource(options.token)
        : options.tokenFile !== undefined
          ? new FileTokenSource(options.tokenFile)
          : undefined;
    this.requestTimeoutMs = options.requestTimeoutMs ?? 30_000;
    this.userAgent = options.userAgent ?? 'nodeherd-light-client';
    this.counters = counters;
    // One idle socket is enough for an agent that makes a request every few minutes; LIFO reuse keeps
    // the warm one. Node closes idle sockets when the server's Keep-Alive timeout says so.
    this.agent = new Agent({
      keepAlive: true,
      maxFreeSockets: 2,
      scheduling: 'lifo',
      ca: options.caPem,
      ...(certificate ? { cert: options.clientCertPem, key: options.clientKeyPem } : {}),
    });
  }

  /**
   * Sends a request and reads the whole response body. An idempotent request that fails on a pooled
   * connection before any answer is sent once more on a fresh one: the server may have closed the idle
   * connection just as the request went out (Node's keep-alive race), so the request never arrived.
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
      return this.sendOnce(method, path, body);
    }
  }

  private sendOnce(
    method: string,
    path: string,
    body?: { contentType: string; data: string },
  ): Promise<BufferedResponse> {
    return new Promise<BufferedResponse>((resolve, reject) => {
      const data = body === undefined ? undefined : Buffer.from(body.data, 'utf8');
      const req = this.open(method, path, body?.contentType, data?.length);
      let answered = false;
      req.setTimeout(this.requestTimeoutMs, () => {
        req.destroy(
          new Error(`${method} ${this.server.origin}${path} timed out after ${this.requestTimeoutMs} ms`),
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
          resolve({
            status: res.statusCode ?? 0,
            text: this.redact(Buffer.concat(chunks, size).toString('utf8')),
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
    const req = this.open('GET', path);
    let answered = false;
    const response = new Promise<IncomingMessage>((resolve, reject) => {
      req.once('response', (res) => {
        answered = true;
        this.counters.response(res.statusCode ?? 0);
        resolve(res);
      });
      req.on('error', (err) => {
        if (!answered) this.counters.transportFailure();
        reject(err);
      });
    });
    // Keep an early failure from becoming an unhandled rejection if the caller aborts first.
    response.catch(() => {});
    req.end();
    return { request: req, response };
  }

  /** Replaces any occurrence of the token in text that may end up in an error or a log. */
  redact(text: string): string {
    let out = text;
    for (const token of this.#tokens?.recent() ?? []) {
      if (out.includes(token)) out = out.split(token).join(REDACTED);
    }
    return out;
  }

  /**
   * After a 401: reads a token file again at once. True when the token changed, so the request that
   * was refused is worth sending once more (a rotation the stat check had not seen yet).
   */
  refreshToken(): boolean {
    return this.#tokens?.refresh() ?? false;
  }

  /** Closes pooled sockets; in-flight requests are destroyed. */
  close(): void {
    this.agent.destroy();
  }

  private open(method: string, path: string, contentType?: string, contentLength?: number): ClientRequest {
    if (!path.startsWith('/')) throw new Error(`request path must start with '/': ${path}`);
    const headers: Record<string, string> = {
      Accept: 'application/json',
      'User-Agent': this.userAgent,
    };
    if (this.#tokens) headers.Authorization = `Bearer ${this.#tokens.current()}`;
    if (contentType !== undefined) headers['Content-Type'] = contentType;
    // Explicit: Node sends a DELETE body neither chunked nor with a length, so the server would read
    // the body as the start of the next request.
    if (contentLength !== undefined) headers['Content-Length'] = String(contentLength);
    const req = httpsRequest({
      agent: this.agent,
      protocol: 'https:',
      hostname: this.server.hostname.replace(/^\[|\]$/g, ''),
      port: this.server.port === '' ? 443 : Number(this.server.port),
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
}
