// A small client of the Prometheus HTTP API: instant queries (/api/v1/query) and the alerts the rules
// evaluate (/api/v1/alerts), each request with a timeout. Anything but a 200 with status "success" is
// an error whose message says what went wrong; credentials go in a header and never into a message.

import { request as httpRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';

export type PrometheusCredentials =
  | { kind: 'none' }
  | { kind: 'bearer'; token: string }
  | { kind: 'basic'; username: string; password: string };

export interface PrometheusClientOptions {
  /** Base URL, e.g. http://prometheus:9090 (a path prefix is kept). */
  url: string;
  credentials?: PrometheusCredentials;
  /** PEM CA bundle trusted for https (besides nothing else, when set). */
  caPem?: string;
  timeoutMs: number;
}

/** One sample of an instant vector, or the scalar's value (labels empty). */
export interface PrometheusSample {
  labels: Record<string, string>;
  value: number;
}

export type QueryResult =
  | { type: 'vector'; samples: PrometheusSample[] }
  | { type: 'scalar'; samples: PrometheusSample[] }
  /** A matrix or string result: not something a threshold applies to. */
  | { type: 'matrix' }
  | { type: 'string' };

export interface PrometheusAlert {
  labels: Record<string, string>;
  state: string;
  activeAt?: string;
  value?: string;
}

export class PrometheusError extends Error {}

const MAX_BODY_BYTES = 16 * 1024 * 1024;

/** Prometheus writes sample values as strings: "NaN", "+Inf" and "-Inf" included. */
function parseSampleValue(text: unknown): number {
  if (text === '+Inf') return Number.POSITIVE_INFINITY;
  if (text === '-Inf') return Number.NEGATIVE_INFINITY;
  return typeof text === 'string' ? Number(text) : Number.NaN;
}

export class PrometheusClient {
  private readonly base: URL;
  private readonly options: PrometheusClientOptions;

  constructor(options: PrometheusClientOptions) {
    this.options = options;
    this.base = new URL(options.url.endsWith('/') ? options.url : `${options.url}/`);
  }

  /**
   * An instant query at the server's current time. `post`: the expression goes in a form body, not
   * the URL (a long expression, such as a label matcher naming hundreds of nodes, would pass the
   * URL length servers and proxies accept).
   */
  async query(expression: string, options: { post?: boolean } = {}): Promise<QueryResult> {
    const data = (await this.get('api/v1/query', { query: expression }, options.post === true)) as {
      resultType?: string;
      result?: unknown;
    };
    switch (data.resultType) {
      case 'vector': {
        const result = Array.isArray(data.result) ? data.result : [];
        return {
          type: 'vector',
          samples: result.map((s: { metric?: Record<string, string>; value?: [number, string] }) => ({
            labels: s.metric ?? {},
            value: parseSampleValue(s.value?.[1]),
          })),
        };
      }
      case 'scalar': {
        const value = data.result as [number, string] | undefined;
        return { type: 'scalar', samples: [{ labels: {}, value: parseSampleValue(value?.[1]) }] };
      }
      case 'matrix':
      case 'string':
        return { type: data.resultType };
      default:
        throw new PrometheusError(`unexpected result type ${JSON.stringify(data.resultType)}`);
    }
  }

  /** Every alert the server's rules hold, pending and firing. */
  async alerts(): Promise<PrometheusAlert[]> {
    const data = (await this.get('api/v1/alerts', {})) as { alerts?: PrometheusAlert[] };
    if (!Array.isArray(data.alerts)) throw new PrometheusError('the answer has no alerts list');
    return data.alerts.map((a) => ({ ...a, labels: a.labels ?? {} }));
  }

  private get(path: string, params: Record<string, string>, post = false): Promise<unknown> {
    const url = new URL(path, this.base);
    const form = new URLSearchParams(params).toString();
    if (!post) for (const [k, v] of Object.entries(params)) url.searchParams.set(k, v);
    const headers: Record<string, string> = { accept: 'application/json' };
    if (post) {
      headers['content-type'] = 'application/x-www-form-urlencoded';
      headers['content-length'] = String(Buffer.byteLength(form));
    }
    const creds = this.options.credentials;
    if (creds?.kind === 'bearer') headers.authorization = `Bearer ${creds.token}`;
    if (creds?.kind === 'basic')
      headers.authorization = `Basic ${Buffer.from(`${creds.username}:${creds.password}`).toString('base64')}`;
    const https = url.protocol === 'https:';
    const request = https ? httpsRequest : httpRequest;
    // The message names the endpoint, never the query string's whole expression or a header.
    const where = `${url.origin}${url.pathname}`;
    const timeoutMs = this.options.timeoutMs;
    return new Promise((resolve, reject) => {
      const req = request(
        url,
        {
          method: post ? 'POST' : 'GET',
          headers,
          ...(https && this.options.caPem ? { ca: this.options.caPem } : {}),
          signal: AbortSignal.timeout(timeoutMs),
        },
        (res: IncomingMessage) => {
          const chunks: Buffer[] = [];
          let size = 0;
          res.on('data', (chunk: Buffer) => {
            size += chunk.length;
            if (size > MAX_BODY_BYTES) {
              req.destroy(new PrometheusError(`${where}: answer larger than ${MAX_BODY_BYTES} bytes`));
              return;
            }
            chunks.push(chunk);
          });
          res.on('error', (err) => reject(new PrometheusError(`${where}: ${err.message}`)));
          res.on('end', () => {
            const text = Buffer.concat(chunks).toString('utf8');
            let body: { status?: string; data?: unknown; error?: string; errorType?: string } | undefined;
            try {
              body = JSON.parse(text);
            } catch {
              body = undefined;
            }
            if (res.statusCode !== 200 || body?.status !== 'success') {
              const detail = body?.error
                ? `${body.errorType ?? 'error'}: ${body.error}`
                : text.slice(0, 200).trim() || 'no body';
              reject(new PrometheusError(`${where}: HTTP ${res.statusCode}: ${detail}`));
              return;
            }
            resolve(body.data);
          });
        },
      );
      req.on('error', (err: Error & { code?: string }) => {
        if (err instanceof PrometheusError) reject(err);
        else if (err.name === 'AbortError' || err.name === 'TimeoutError')
          reject(new PrometheusError(`${where}: no answer within ${timeoutMs} ms`));
        else reject(new PrometheusError(`${where}: ${err.code ?? err.message}`));
      });
      req.end(post ? form : undefined);
    });
  }
}
