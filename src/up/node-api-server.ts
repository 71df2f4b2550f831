// One local HTTP server for the agent APIs of every simulated node of `nodeherd up`. A real agent
// serves its node's API on 127.0.0.1 of that node (over-the-air update, DaemonSet pod upgrades,
// /healthz, /metrics); simulated nodes share this machine, so their APIs are served side by side:
//   GET  /nodes                      the nodes served, with their base URLs
//   ANY  /nodes/<node>/<agent path>  what that node's agent answers for <agent path>
// Each node's routes are the agent's own route table (see src/agent/http/route-table.ts), so the
// answers are the real agent's, handler for handler. Other local pages can be mounted beside them
// (`nodeherd up` mounts the dashboard at /dashboard/); a mounted handler guards its own requests.

import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { localRequestProblem, refusalStatus } from '../agent/http/local-request-guard.ts';
import type { RouteTable } from '../agent/http/route-table.ts';

type HttpModule = typeof import('node:http');

/** The nodes whose APIs are served (the simulated fleet). */
export interface NodeApiSource {
  readonly names: string[];
  /** The routes of the node's current agent; undefined while it has none (unknown or starting). */
  localApi(node: string): RouteTable | undefined;
}

export interface NodeApiServerOptions {
  /** 0 picks a free port. */
  port: number;
  /** Default 127.0.0.1: the agents' APIs are local, as on a real node. */
  host?: string;
}

const PREFIX = '/nodes';

/** Answers a request for `path`, relative to where it is mounted (starting with /). */
export type MountedHandler = (request: IncomingMessage, response: ServerResponse, path: string) => void;

export class NodeApiServer {
  private readonly server: Server;
  private source: NodeApiSource | undefined;
  private readonly mounts = new Map<string, MountedHandler>();
  readonly host: string;
  readonly port: number;

  private constructor(server: Server, host: string, port: number) {
    this.server = server;
    this.host = host;
    this.port = port;
  }

  /** Listens at once (so a busy port fails before anything else starts); serves once `serve()` is called. */
  static async listen(options: NodeApiServerOptions): Promise<NodeApiServer> {
    const http = process.getBuiltinModule('node:http') as HttpModule;
    const host = options.host ?? '127.0.0.1';
    let self: NodeApiServer | undefined;
    const server = http.createServer((request, response) => self?.handle(request, response));
    server.keepAliveTimeout = 5000;
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(options.port, host, () => {
        server.off('error', reject);
        resolve();
      });
    });
    self = new NodeApiServer(server, host, (server.address() as AddressInfo).port);
    return self;
  }

  /** http://127.0.0.1:<port>/nodes */
  get url(): string {
    return `http://${this.host}:${this.port}${PREFIX}`;
  }

  serve(source: NodeApiSource): void {
    this.source = source;
  }

  /** Serves `handler` under `prefix` (e.g. /dashboard: /dashboard redirects to /dashboard/). */
  mount(prefix: string, handler: MountedHandler): void {
    this.mounts.set(prefix, handler);
  }

  /** http://127.0.0.1:<port><prefix>/ */
  mountUrl(prefix: string): string {
    return `http://${this.host}:${this.port}${prefix}/`;
  }

  close(): Promise<void> {
    return new Promise((resolve) => {
      this.server.close(() => resolve());
      this.server.closeAllConnections();
    });
  }

  private handle(request: IncomingMessage, response: ServerResponse): void {
    const path = new URL(request.url ?? '/', 'http://localhost').pathname;
    for (const [prefix, handler] of this.mounts) {
      if (path === prefix) {
        response.writeHead(308, { Location: `${prefix}/` });
        response.end();
        return;
      }
      if (path.startsWith(`${prefix}/`)) {
        handler(request, response, path.slice(prefix.length));
        return;
      }
    }
    // The node routes are guarded by their table's dispatch; the listing here is guarded the same way.
    const problem = localRequestProblem(request);
    if (problem !== undefined) {
      reply(response, problem.code, refusalStatus(problem));
      return;
    }
    const source = this.source;
    if (!source) {
      reply(response, 503, { error: 'the nodes are still starting; try again in a moment' });
      return;
    }
    if (path === PREFIX || path === `${PREFIX}/` || path === '/') {
      if (request.method !== 'GET' && request.method !== 'HEAD') {
        reply(response, 405, { error: `${request.method} ${path}: only GET is served here` });
        return;
      }
      const nodes = source.names.map((name) => ({ name, url: `${this.url}/${name}` }));
      reply(response, 200, { nodes });
      return;
    }
    const match = /^\/nodes\/([^/]+)(\/.*)$/.exec(path);
    if (!match) {
      reply(response, 404, {
        error: `${path}: not found; node APIs are under ${PREFIX}/<node>/, e.g. ${PREFIX}/<node>/v1/update`,
      });
      return;
    }
    const node = safeDecode(match[1] as string);
    const routes = node === undefined ? undefined : source.localApi(node);
    if (!routes) {
      reply(response, 404, {
        error: `no simulated node ${JSON.stringify(node ?? match[1])} here; nodes: ${listed(source.names)}`,
      });
      return;
    }
    routes.dispatch(request, response, match[2] as string);
  }
}

function listed(names: string[]): string {
  if (names.length === 0) return 'none';
  if (names.length <= 5) return names.join(', ');
  return `${names[0]} … ${names[names.length - 1]} (${names.length}; GET ${PREFIX} lists them)`;
}

function safeDecode(segment: string): string | undefined {
  try {
    return decodeURIComponent(segment);
  } catch {
    return undefined;
  }
}

function reply(response: ServerResponse, status: number, body: unknown): void {
  const text = `${JSON.stringify(body)}\n`;
  response.writeHead(status, {
    'Content-Type': 'application/json',
    'Content-Length': Buffer.byteLength(text),
  });
  response.end(response.req.method === 'HEAD' ? undefined : text);
}
