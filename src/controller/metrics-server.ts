// The controller's HTTP endpoint: /metrics (Prometheus), /healthz (the process runs), /readyz (it leads
// and its caches are synced, or it is a healthy standby). With an authorizer, /metrics answers only a
// bearer token the API server authenticates and authorizes (metrics-auth.ts); the probes stay open, as
// the kubelet calls them without credentials and they say nothing but ok.

import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Registry } from 'prom-client';
import type { MetricsAuthorizer, MetricsDecision } from './metrics-auth.ts';

export interface MetricsServerOptions {
  /** host:port, e.g. 0.0.0.0:8080 or :8080; port 0 picks a free one. */
  address: string;
  registry: Registry;
  ready(): boolean;
  /** Authentication and authorization of /metrics; without it /metrics answers anyone who connects. */
  auth?: MetricsAuthorizer;
}

export function parseListenAddress(address: string): { host: string; port: number } {
  const match = /^(.*):(\d+)$/.exec(address.trim());
  if (!match) throw new Error(`listen address ${JSON.stringify(address)} is not host:port`);
  const host = match[1]!.replace(/^\[(.*)\]$/, '$1') || '0.0.0.0';
  return { host, port: Number(match[2]) };
}

export class MetricsServer {
  private readonly server: Server;
  private readonly options: MetricsServerOptions;

  constructor(options: MetricsServerOptions) {
    this.options = options;
    this.server = createServer((req, res) => {
      const path = (req.url ?? '/').split('?')[0];
      if (path === '/metrics') {
        const auth = options.auth;
        (auth
          ? auth.check(req.headers.authorization, '/metrics')
          : Promise.resolve<MetricsDecision>({ allowed: true })
        )
          .then((decision) => {
            if (!decision.allowed) {
              res.writeHead(decision.status, { 'Content-Type': 'text/plain' });
              res.end(`${decision.message}\n`);
              return undefined;
            }
            return options.registry.metrics().then((text) => {
              res.writeHead(200, { 'Content-Type': options.registry.contentType });
              res.end(text);
            });
          })
          .catch(() => {
            // The API server could not review the request, or the registry failed: say nothing more.
            if (!res.headersSent) res.writeHead(500, { 'Content-Type': 'text/plain' });
            res.end('internal error\n');
          });
        return;
      }
      if (path === '/healthz' || path === '/livez') {
        res.writeHead(200, { 'Content-Type': 'text/plain' });
        res.end('ok');
        return;
      }
      if (path === '/readyz') {
        const ready = options.ready();
        res.writeHead(ready ? 200 : 503, { 'Content-Type': 'text/plain' });
        res.end(ready ? 'ok' : 'not ready');
        return;
      }
      res.writeHead(404);
      res.end();
    });
  }

  async listen(): Promise<string> {
    const { host, port } = parseListenAddress(this.options.address);
    await new Promise<void>((resolve, reject) => {
      this.server.once('error', reject);
      this.server.listen(port, host, () => resolve());
    });
    const address = this.server.address() as AddressInfo;
    return `http://${address.family === 'IPv6' ? `[${address.address}]` : address.address}:${address.port}`;
  }

  close(): Promise<void> {
    return new Promise((resolve) => {
      this.server.closeAllConnections();
      this.server.close(() => resolve());
    });
  }
}
