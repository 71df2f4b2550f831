// The agent's local HTTP endpoint, on 127.0.0.1 by default: /healthz for systemd or a watchdog and
// /metrics for Prometheus. Other local APIs (over-the-air updates) add routes with route().
//
// node:http is loaded with process.getBuiltinModule: an ESM `import` of it builds a namespace that
// touches its lazy WebSocket getters, which load undici (+15 MB RSS measured with node 24.21).

import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { PROMETHEUS_CONTENT_TYPE } from '../metrics/prometheus-text.ts';

type HttpModule = typeof import('node:http');

/** `params` holds the values of the route's `{name}` segments, e.g. /v1/pods/{name}. */
export type RouteHandler = (
  request: IncomingMessage,
  response: ServerResponse,
  params: Record<string, string>,
) => void | Promise<void>;

interface Route {
  method: string;
  segments: string[];
  handler: RouteHandler;
}

export interface HealthSource {
  /** Whether the agent is healthy, and a JSON-able body saying what it does. */
  health(): { healthy: boolean; body: unknown };
  renderMetrics(): string;
}

export interface AgentHttpServerOptions {
  /** Default 127.0.0.1: the metrics and local API are for the node itself. */
  host?: string;
  /** 0 picks a free port. */
  port: number;
}

export class AgentHttpServer {
  private readonly source: HealthSource;
  private readonly options: AgentHttpServerOptions;
  private readonly routes: Route[] = [];
  private server: Server | undefined;

  constructor(source: HealthSource, options: AgentHttpServerOptions) {
    this.source = source;
    this.options = options;
    this.route('GET', '/healthz', (_request, response) => {
      const { healthy, body } = this.source.health();
      send(response, healthy ? 200 : 503, 'application/json', `${JSON.stringify(body)}\n`);
    });
    this.route('GET', '/metrics', (_request, response) => {
      send(response, 200, PROMETHEUS_CONTENT_TYPE, this.source.renderMetrics());
    });
  }

  /** Adds (or replaces) the handler of METHOD path; a `{name}` segment matches any one segment. */
  route(method: string, path: string, handler: RouteHandler): void {
    const upper = method.toUpperCase();
    const existing = this.routes.findIndex((r) => r.method === upper && r.segments.join('/') === path);
    const route = { method: upper, segments: path.split('/'), handler };
    if (existing >= 0) this.routes[existing] = route;
    else this.routes.push(route);
  }

  /** Starts listening; resolves with the bound address. */
  listen(): Promise<{ host: string; port: number }> {
    const http = process.getBuiltinModule('node:http') as HttpModule;
    const server = http.createServer((request, response) => this.handle(request, response));
    server.keepAliveTimeout = 5000;
    this.server = server;
    return new Promise((resolve, reject) => {
      server.once('error', reject);
      server.listen(this.options.port, this.options.host ?? '127.0.0.1', () => {
        const address = server.address() as AddressInfo;
        resolve({ host: address.address, port: address.port });
      });
    });
  }

  close(): Promise<void> {
    const server = this.server;
    if (!server) return Promise.resolve();
    return new Promise((resolve) => {
      server.close(() => resolve());
      server.closeAllConnections();
    });
  }

  private handle(request: IncomingMessage, response: ServerResponse): void {
    const path = new URL(request.url ?? '/', 'http://localhost').pathname;
    const method = request.method === 'HEAD' ? 'GET' : (request.method ?? 'GET');
    const segments = path.split('/');
    const matching = this.routes
      .map((route) => ({ route, params: matchSegments(route.segments, segments) }))
      .filter((m) => m.params !== undefined);
    const match = matching.find((m) => m.route.method === method);
    if (!match) {
      const allowed = matching.length > 0;
      send(response, allowed ? 405 : 404, 'text/plain', allowed ? 'method not allowed\n' : 'not found\n');
      return;
    }
    const params = match.params as Record<string, string>;
    Promise.resolve()
      .then(() => match.route.handler(request, response, params))
      .catch((error: Error) => {
        if (!response.headersSent) send(response, 500, 'text/plain', `${error.message}\n`);
        else response.destroy();
      });
  }
}

function matchSegments(pattern: string[], actual: string[]): Record<string, string> | undefined {
  if (pattern.length !== actual.length) return undefined;
  const params: Record<string, string> = {};
  for (let i = 0; i < pattern.length; i++) {
    const p = pattern[i] as string;
    const a = actual[i] as string;
    if (p.startsWith('{') && p.endsWith('}') && a !== '') {
      try {
        params[p.slice(1, -1)] = decodeURIComponent(a);
      } catch {
        return undefined;
      }
    } else if (p !== a) return undefined;
  }
  return params;
}

function send(response: ServerResponse, status: number, contentType: string, body: string): void {
  response.writeHead(status, { 'Content-Type': contentType, 'Content-Length': Buffer.byteLength(body) });
  response.end(response.req.method === 'HEAD' ? undefined : body);
}
