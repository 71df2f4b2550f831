// The routes of the agent's local HTTP API, apart from the server that listens: the agent's own
// server (agent-http-server.ts) dispatches every request to one table, and `nodeherd up` serves the
// table of each simulated node under /nodes/<node>/, so both answer with the same handlers.
//
// Only types come from node:http here (see agent-http-server.ts for why it is loaded lazily).

import type { IncomingMessage, ServerResponse } from 'node:http';
import { PROMETHEUS_CONTENT_TYPE } from '../metrics/prometheus-text.ts';
import { localRequestProblem, refusalStatus } from './local-request-guard.ts';

/** `params` holds the values of the route's `{name}` segments, e.g. /v1/pods/{name}. */
export type RouteHandler = (
  request: IncomingMessage,
  response: ServerResponse,
  params: Record<string, string>,
) => void | Promise<void>;

/** Where a local API mounts its routes. */
export interface RouteTarget {
  /** Adds (or replaces) the handler of METHOD path; a `{name}` segment matches any one segment. */
  route(method: string, path: string, handler: RouteHandler): void;
}

export interface HealthSource {
  /** Whether the agent is healthy, and a JSON-able body saying what it does. */
  health(): { healthy: boolean; body: unknown };
  renderMetrics(): string;
}

interface Route {
  method: string;
  segments: string[];
  handler: RouteHandler;
}

export interface RouteTableOptions {
  /** When set, state-changing requests must carry it as a bearer token (owner-token.ts). */
  ownerToken?: string;
}

export class RouteTable implements RouteTarget {
  private readonly routes: Route[] = [];
  private readonly ownerToken: string | undefined;

  constructor(options: RouteTableOptions = {}) {
    this.ownerToken = options.ownerToken;
  }

  route(method: string, path: string, handler: RouteHandler): void {
    const upper = method.toUpperCase();
    const existing = this.routes.findIndex((r) => r.method === upper && r.segments.join('/') === path);
    const route = { method: upper, segments: path.split('/'), handler };
    if (existing >= 0) this.routes[existing] = route;
    else this.routes.push(route);
  }

  /**
   * Answers the request for `path` (the URL path without query): a route's answer, 404 or 405; 403
   * for a request that may come from a browser rather than the node's owner (local-request-guard.ts).
   * Every server of the local APIs dispatches here, so every one of them is guarded.
   */
  dispatch(request: IncomingMessage, response: ServerResponse, path: string): void {
    const problem = localRequestProblem(request, this.ownerToken);
    if (problem !== undefined) {
      send(response, problem.code, 'application/json', `${JSON.stringify(refusalStatus(problem))}\n`);
      return;
    }
    const method = request.method === 'HEAD' ? 'GET' : (request.method ?? 'GET');
    const segments = path.split('/');
    const matching = this.routes
      .map((route) => ({ route, params: matchSegments(route.segments, segments) }))
      .filter((m) => m.params !== undefined);
    const match = matching.find((m) => m.route.method === method);
    if (!match) {
      const allowed = matching.length > 0;
      sendText(response, allowed ? 405 : 404, allowed ? 'method not allowed\n' : 'not found\n');
      return;
    }
    const params = match.params as Record<string, string>;
    Promise.resolve()
      .then(() => match.route.handler(request, response, params))
      .catch((error: Error) => {
        if (!response.headersSent) sendText(response, 500, `${error.message}\n`);
        else response.destroy();
      });
  }
}

/** GET /healthz (200, or 503 when unhealthy) and GET /metrics (Prometheus text). */
export function mountHealthRoutes(target: RouteTarget, source: HealthSource): void {
  target.route('GET', '/healthz', (_request, response) => {
    const { healthy, body } = source.health();
    send(response, healthy ? 200 : 503, 'application/json', `${JSON.stringify(body)}\n`);
  });
  target.route('GET', '/metrics', (_request, response) => {
    send(response, 200, PROMETHEUS_CONTENT_TYPE, source.renderMetrics());
  });
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

export function sendText(response: ServerResponse, status: number, body: string): void {
  send(response, status, 'text/plain', body);
}

function send(response: ServerResponse, status: number, contentType: string, body: string): void {
  response.writeHead(status, { 'Content-Type': contentType, 'Content-Length': Buffer.byteLength(body) });
  response.end(response.req.method === 'HEAD' ? undefined : body);
}
