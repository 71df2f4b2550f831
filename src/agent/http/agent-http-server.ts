// The agent's local HTTP endpoint, on 127.0.0.1 by default: /healthz for systemd or a watchdog and
// /metrics for Prometheus. Other local APIs (over-the-air updates) add routes with route().
//
// node:http is loaded with process.getBuiltinModule: an ESM `import` of it builds a namespace that
// touches its lazy WebSocket getters, which load undici (+15 MB RSS measured with node 24.21).

import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { PROMETHEUS_CONTENT_TYPE } from '../metrics/prometheus-text.ts';

type HttpModule = typeof import('node:http');

export type RouteHandler = (request: IncomingMessage, response: ServerResponse) => void | Promise<void>;

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
  private readonly routes = new Map<string, RouteHandler>();
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

  /** Adds (or replaces) the handler of METHOD path. */
  route(method: string, path: string, handler: RouteHandler): void {
    this.routes.set(`${method.toUpperCase()} ${path}`, handler);
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
    const handler = this.routes.get(`${method} ${path}`);
    if (!handler) {
      const allowed = [...this.routes.keys()].some((key) => key.endsWith(` ${path}`));
      send(response, allowed ? 405 : 404, 'text/plain', allowed ? 'method not allowed\n' : 'not found\n');
      return;
    }
    Promise.resolve()
      .then(() => handler(request, response))
      .catch((error: Error) => {
        if (!response.headersSent) send(response, 500, 'text/plain', `${error.message}\n`);
        else response.destroy();
      });
  }
}

function send(response: ServerResponse, status: number, contentType: string, body: string): void {
  response.writeHead(status, { 'Content-Type': contentType, 'Content-Length': Buffer.byteLength(body) });
  response.end(response.req.method === 'HEAD' ? undefined : body);
}
