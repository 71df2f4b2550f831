// The agent's local HTTP endpoint, on 127.0.0.1 by default: /healthz for systemd or a watchdog and
// /metrics for Prometheus. Other local APIs (over-the-air updates) add routes with route().
//
// node:http is loaded with process.getBuiltinModule: an ESM `import` of it builds a namespace that
// touches its lazy WebSocket getters, which load undici (+15 MB RSS measured with node 24.21).

import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { AddressInfo, BoundSocket } from 'node:net';
import { httpDate } from '../../util/utc-time.ts';
import {
  type HealthSource,
  mountHealthRoutes,
  type RouteHandler,
  RouteTable,
  type RouteTarget,
} from './route-table.ts';

export type { HealthSource, RouteHandler, RouteTarget } from './route-table.ts';

type HttpModule = typeof import('node:http');

export interface AgentHttpServerOptions {
  /** Default 127.0.0.1: the metrics and local API are for the node itself. */
  host?: string;
  /** 0 picks a free port. */
  port: number;
  /** The node owner's token for state-changing requests (--local-api-token-file); none by default. */
  ownerToken?: string;
}

export class AgentHttpServer implements RouteTarget {
  private readonly options: AgentHttpServerOptions;
  private readonly routes: RouteTable;
  private server: Server | undefined;

  constructor(source: HealthSource, options: AgentHttpServerOptions) {
    this.options = options;
    this.routes = new RouteTable(options.ownerToken !== undefined ? { ownerToken: options.ownerToken } : {});
    mountHealthRoutes(this.routes, source);
  }

  /** Adds (or replaces) the handler of METHOD path; a `{name}` segment matches any one segment. */
  route(method: string, path: string, handler: RouteHandler): void {
    this.routes.route(method, path, handler);
  }

  /** Starts listening; resolves with the bound address. */
  listen(): Promise<{ host: string; port: number }> {
    const http = process.getBuiltinModule('node:http') as HttpModule;
    const host = this.options.host ?? '127.0.0.1';
    return new Promise((resolve, reject) => {
      let target: BoundSocket | number;
      try {
        target = boundSocket(host, this.options.port) ?? this.options.port;
      } catch (error) {
        reject(error);
        return;
      }
      const server = http.createServer((request, response) => this.handle(request, response));
      server.keepAliveTimeout = 5000;
      this.server = server;
      server.once('error', reject);
      const listening = () => {
        const address = server.address() as AddressInfo;
        resolve({ host: address.address, port: address.port });
      };
      if (typeof target === 'number') server.listen(target, host, listening);
      else server.listen(target, listening);
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
    // Set here, node:http would format it with Date#toUTCString, which loads ICU (utc-time.ts).
    response.setHeader('Date', httpDate());
    this.routes.dispatch(request, response, new URL(request.url ?? '/', 'http://localhost').pathname);
  }
}

type NetModule = typeof import('node:net');

/**
 * The address bound at once when it is an IP address (what --metrics-address takes) and the runtime
 * has net.BoundSocket (Node ≥ 24.19): Server#listen(port, host) looks any host up, even an IP address,
 * which loads node:dns and its resolver: 0.95 MB of the idle agent's RSS (54.6 → 53.7 MB,
 * bench/agent-idle.bench.ts; issue 17). Throws what bind(2) refused (EADDRINUSE).
 */
function boundSocket(host: string, port: number): BoundSocket | undefined {
  const net = process.getBuiltinModule('node:net') as NetModule;
  if (typeof net.BoundSocket !== 'function' || net.isIP(host) === 0) return undefined;
  return new net.BoundSocket({ host, port });
}
