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

import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { refusalStatus } from '../../agent/http/local-request-guard.ts';
import type { KubeClient } from '../../kube/kube-client.ts';
import { isKubeError } from '../../kube/kube-error.ts';
import { type ApiContext, CliError, describeApiError } from '../cli-error.ts';
import { pendingChangePlan } from '../plan/plan-command.ts';
import { renderPoolPlan } from '../plan/plan-render.ts';
import { requestRollback, setPoolPaused } from '../pool-actions.ts';
import { DashboardModel, type DashboardSnapshot } from './dashboard-model.ts';
import { dashboardPage } from './page.ts';
import { dashboardRequestProblem } from './request-guard.ts';
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
  /** Random per process: only the page served here carries it, and every POST must. */
  readonly token = randomBytes(24).toString('hex');
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

  /** Answers a request for `path` (relative to the mount point, starting with /). */
  handle(request: IncomingMessage, response: ServerResponse, path: string): void {
    const problem = dashboardRequestProblem(request, this.token);
    if (problem !== undefined) {
      json(response, problem.code, refusalStatus(problem));
      return;
    }
    const method = request.method ?? 'GET';
    const get = method === 'GET' || method === 'HEAD';
    if (path === '/' && get) {
      send(response, 200, 'text/html; charset=utf-8', dashboardPage(this.token));
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
        readBody(request).then(
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

function readBody(request: IncomingMessage): Promise<unknown> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    request.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_BODY_BYTES) {
        reject(new Error(`the request body is larger than ${MAX_BODY_BYTES} bytes`));
        request.destroy();
        return;
      }
      chunks.push(chunk);
    });
    request.on('end', () => {
      const text = Buffer.concat(chunks).toString('utf8').trim();
      if (text === '') return resolve(undefined);
      try {
        resolve(JSON.parse(text));
      } catch {
        reject(new Error('the request body is not JSON'));
      }
    });
    request.on('error', reject);
  });
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
  readonly url: string;

  private constructor(server: Server, dashboard: Dashboard, url: string) {
    this.server = server;
    this.dashboard = dashboard;
    this.url = url;
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
