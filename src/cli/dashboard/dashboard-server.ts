// The dashboard's HTTP side: the page, its script, the live model as JSON and as server-sent events,
// a pool's pending plan, and the pause, resume and rollback buttons. It acts with the client it is
// given (the user's kubeconfig for `nodeherd dashboard`, the admin's for `nodeherd up`), through the
// same functions as the `pause`, `resume` and `rollback` commands. Routes are relative to where the
// handler is mounted (/ for `nodeherd dashboard`, /dashboard/ in `nodeherd up`).
//   GET  /                            the page
//   GET  /app.js                      its script
//   GET  /api/snapshot                the model now (JSON)
//   GET  /api/events                  the model on every change (text/event-stream, event "snapshot")
//   GET  /api/pools/<pool>/plan       the plan of the pool's pending change
//   POST /api/pools/<pool>/<action>   pause, resume, rollback ({"toRevision": n} optional)

import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { refusalStatus } from '../../agent/http/local-request-guard.ts';
import type { KubeClient } from '../../kube/kube-client.ts';
import { isKubeError } from '../../kube/kube-error.ts';
import { readBodyText } from '../../util/request-body.ts';
import { type ApiContext, CliError, describeApiError } from '../cli-error.ts';
import { pendingChangePlan } from '../plan/plan-command.ts';
import { renderPoolPlan } from '../plan/plan-render.ts';
import { requestRollback, setPoolPaused } from '../pool-actions.ts';
import { DashboardModel, type DashboardSnapshot } from './dashboard-model.ts';
import { dashboardPage } from './page.ts';
import { DashboardSecret, dashboardRequestProblem, SECRET_QUERY_PARAMETER } from './request-guard.ts';
import { dashboardScript } from './web-assets.ts';

/** SSE comment lines keep idle connections (and proxies) from timing out. */
const HEARTBEAT_MS = 15_000;
const MAX_BODY_BYTES = 4096;

export interface DashboardOptions {
  client: KubeClient;
  /** For error messages: which server and credentials the dashboard acts with. */
  context: ApiContext;
  /** Least time between two snapshots (default 500 ms). */
  throttleMs?: number;
}

export class Dashboard {
  readonly model: DashboardModel;
  /**
   * Random per process: only in the URL given to whoever started the dashboard (urlFor), then in
   * their browser's cookie; every request must carry it (request-guard.ts).
   */
  readonly secret = new DashboardSecret();
  private readonly client: KubeClient;
  private readonly context: ApiContext;
  private readonly streams = new Set<ServerResponse>();

  constructor(options: DashboardOptions) {
    this.client = options.client;
    this.context = options.context;
    this.model = new DashboardModel(options.client, {
      ...(options.throttleMs !== undefined ? { throttleMs: options.throttleMs } : {}),
    });
  }

  async stop(): Promise<void> {
    for (const stream of this.streams) stream.end();
    this.streams.clear();
    await this.model.stop();
  }

  /** The address to give the user: `base` (where the dashboard is served) with its secret. */
  urlFor(base: string): string {
    return this.secret.urlFor(base);
  }

  /** Answers a request for `path` (relative to the mount point, starting with /). */
  handle(request: IncomingMessage, response: ServerResponse, path: string): void {
    const method = request.method ?? 'GET';
    const get = method === 'GET' || method === 'HEAD';
    const url = new URL(request.url ?? '/', 'http://localhost');
    const offered = url.searchParams.get(SECRET_QUERY_PARAMETER) ?? undefined;
    const viaUrl = get && this.secret.matches(offered);
    const problem = dashboardRequestProblem(request, this.secret, viaUrl);
    if (problem !== undefined) {
      json(response, problem.code, refusalStatus(problem));
      return;
    }
    if (viaUrl) {
      // The secret moves from the URL into a cookie, and the address bar (and history) loses it.
      url.searchParams.delete(SECRET_QUERY_PARAMETER);
      const mount = url.pathname.endsWith(path)
        ? url.pathname.slice(0, url.pathname.length - path.length)
        : '';
      response.writeHead(303, {
        ...SECURITY_HEADERS,
        Location: `${url.pathname}${url.search}`,
        'Set-Cookie': this.secret.cookie(mount === '' ? '/' : mount),
        'Content-Length': 0,
      });
      response.end();
      return;
    }
    if (path === '/' && get) {
      send(response, 200, 'text/html; charset=utf-8', dashboardPage());
      return;
    }
    if (path === '/app.js' && get) {
      dashboardScript().then(
        (script) => send(response, 200, 'text/javascript; charset=utf-8', script),
        (error: Error) => json(response, 500, { error: error.message }),
      );
      return;
    }
    if (path === '/api/snapshot' && get) {
      const snapshot = this.model.snapshot;
      if (snapshot) json(response, 200, snapshot);
      else json(response, 503, { error: 'still reading the cluster; try again in a moment' });
      return;
    }
    if (path === '/api/events' && get) {
      this.stream(request, response);
      return;
    }
    const poolRoute = /^\/api\/pools\/([^/]+)\/([a-z]+)$/.exec(path);
    if (poolRoute) {
      let pool: string;
      try {
        pool = decodeURIComponent(poolRoute[1]!);
      } catch {
        json(response, 400, { error: `${path}: the pool name is not valid percent-encoding` });
        return;
      }
      const action = poolRoute[2]!;
      if (action === 'plan' && get) {
        this.act(response, async () => {
          const plan = await pendingChangePlan(this.client, pool);
          return {
            unchanged: plan.unchanged,
            problems: plan.problems,
            ...(plan.revision ? { revision: plan.revision } : {}),
            text: renderPoolPlan(plan, { color: false, width: 0 }),
          };
        });
        return;
      }
      if (['pause', 'resume', 'rollback'].includes(action)) {
        if (method !== 'POST') {
          json(response, 405, { error: `${method} ${path}: only POST` });
          return;
        }
        readJsonBody(request).then(
          (body) => this.act(response, () => this.poolAction(pool, action, body)),
          (error: Error) => json(response, 400, { error: error.message }),
        );
        return;
      }
    }
    json(response, 404, { error: `${method} ${path}: not found` });
  }

  private async poolAction(pool: string, action: string, body: unknown): Promise<{ message: string }> {
    if (action === 'rollback') {
      const to = (body as { toRevision?: unknown } | undefined)?.toRevision;
      if (to !== undefined && (typeof to !== 'number' || !Number.isInteger(to) || to < 1)) {
        throw new BadRequest(`toRevision: must be a revision number (1, 2, ...), not ${JSON.stringify(to)}`);
      }
      const revision = await requestRollback(this.client, pool, to as number | undefined);
      return {
        message: `pool ${pool}: rollback to revision ${revision.number} (${revision.name}) requested`,
      };
    }
    const paused = action === 'pause';
    const changed = await setPoolPaused(this.client, pool, paused);
    return {
      message: changed
        ? `pool ${pool} ${paused ? 'paused: no node starts an update; nodes in flight finish' : 'resumed'}`
        : `pool ${pool} is already ${paused ? 'paused' : 'running'}; nothing changed`,
    };
  }

  private act(response: ServerResponse, work: () => Promise<unknown>): void {
    work().then(
      (result) => json(response, 200, result),
      (error: unknown) => {
        const status =
          error instanceof BadRequest
            ? 400
            : isKubeError(error) && error.status >= 400
              ? error.status
              : error instanceof CliError
                ? 409
                : 502;
        json(response, status, { error: describeApiError(error, this.context) });
      },
    );
  }

  private stream(request: IncomingMessage, response: ServerResponse): void {
    response.writeHead(200, {
      'Content-Type': 'text/event-stream',
      'Cache-Control': 'no-store',
      Connection: 'keep-alive',
      'X-Content-Type-Options': 'nosniff',
    });
    const write = (snapshot: DashboardSnapshot) =>
      response.write(`event: snapshot\ndata: ${JSON.stringify(snapshot)}\n\n`);
    if (this.model.snapshot) write(this.model.snapshot);
    else response.write(': reading the cluster\n\n');
    const unsubscribe = this.model.subscribe(write);
    const heartbeat = setInterval(() => response.write(': heartbeat\n\n'), HEARTBEAT_MS);
    this.streams.add(response);
    const close = () => {
      clearInterval(heartbeat);
      unsubscribe();
      this.streams.delete(response);
    };
    request.on('close', close);
    response.on('close', close);
  }
}

class BadRequest extends Error {}

async function readJsonBody(request: IncomingMessage): Promise<unknown> {
  const text = (await readBodyText(request, MAX_BODY_BYTES)).trim();
  if (text === '') return undefined;
  try {
    return JSON.parse(text);
  } catch {
    throw new Error('the request body is not JSON');
  }
}

const SECURITY_HEADERS = {
  'Cache-Control': 'no-store',
  'X-Content-Type-Options': 'nosniff',
  'X-Frame-Options': 'DENY',
  'Referrer-Policy': 'no-referrer',
  // The page loads its own script and nothing else; styles are inline in the page.
  'Content-Security-Policy':
    "default-src 'none'; script-src 'self'; connect-src 'self'; style-src 'unsafe-inline'; img-src 'self' data:; frame-ancestors 'none'; base-uri 'none'; form-action 'none'",
};

function send(response: ServerResponse, status: number, type: string, body: string): void {
  response.writeHead(status, {
    ...SECURITY_HEADERS,
    'Content-Type': type,
    'Content-Length': Buffer.byteLength(body),
  });
  response.end(response.req.method === 'HEAD' ? undefined : body);
}

function json(response: ServerResponse, status: number, body: unknown): void {
  send(response, status, 'application/json', `${JSON.stringify(body)}\n`);
}

/** `nodeherd dashboard`: the dashboard alone on its own HTTP server. */
export class DashboardServer {
  private readonly server: Server;
  readonly dashboard: Dashboard;
  /** http://<address>:<port>/ */
  readonly address: string;
  /** http://<address>:<port>/?token=<secret>: what the user opens; only they may be given it. */
  readonly url: string;

  private constructor(server: Server, dashboard: Dashboard, address: string) {
    this.server = server;
    this.dashboard = dashboard;
    this.address = address;
    this.url = dashboard.urlFor(address);
  }

  static async listen(dashboard: Dashboard, address: string, port: number): Promise<DashboardServer> {
    const server = createServer((request, response) => {
      const path = new URL(request.url ?? '/', 'http://localhost').pathname;
      dashboard.handle(request, response, path);
    });
    server.keepAliveTimeout = 5000;
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, address, () => {
        server.off('error', reject);
        resolve();
      });
    });
    const bound = (server.address() as AddressInfo).port;
    const host = address.includes(':') ? `[${address}]` : address;
    return new DashboardServer(server, dashboard, `http://${host}:${bound}/`);
  }

  async close(): Promise<void> {
    await this.dashboard.stop();
    await new Promise<void>((resolve) => {
      this.server.close(() => resolve());
      this.server.closeAllConnections();
    });
  }
}
