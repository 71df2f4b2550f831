// The embedded Kubernetes-compatible API server: one process, one SQLite file, HTTPS with its own CA,
// bearer tokens, and the controllers a bare kube-apiserver relies on (namespaces, CRDs, garbage
// collection, disruption budgets, node leases). Everything in nodeherd talks to it exactly as it would
// talk to a real cluster. It is made of the parts composition.ts puts together (the store behind its
// interface, the request chain, the controllers); this class listens, hands out credentials and stops.

import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import type { Logger } from 'pino';
import { adminKubeconfigPath, ensureCredential } from './auth/credentials.ts';
import type { IdentityKind } from './auth/identities.ts';
import type { ServiceAccountTokenIssuer } from './auth/service-account-tokens.ts';
import type { BoundObjectLookup } from './auth/token-request.ts';
import type { TokenStore } from './auth/tokens.ts';
import type { Fairness } from './chain/priority-and-fairness.ts';
import type { RequestChain } from './chain/request-chain.ts';
import { type ApiServerOptions, type ApiServerParts, composeApiServer, serverUrl } from './composition.ts';
import type { ObjectService } from './objects/object-service.ts';
import type { ResourceRegistry } from './registry/resource-registry.ts';
import type { Store } from './storage/types.ts';
import type { WatchHub } from './watch/watch-hub.ts';

export type { ApiServerOptions };

export class ApiServer {
  readonly dataDir: string;
  readonly store: Store;
  readonly registry: ResourceRegistry;
  readonly objects: ObjectService;
  readonly tokens: TokenStore;
  /** Signs and checks ServiceAccount tokens (TokenRequest); static tokens stay in `tokens`. */
  readonly serviceAccountTokens: ServiceAccountTokenIssuer;
  /** The stored objects a ServiceAccount token can name. */
  readonly boundObjects: BoundObjectLookup;
  /** The stages every request goes through, in order. */
  readonly chain: RequestChain;
  /** The seats of priority and fairness (chain/priority-and-fairness.ts). */
  readonly fairness: Fairness;
  readonly caPem: string;
  readonly log: Logger;
  private readonly server: Server;
  private readonly hub: WatchHub;
  private readonly controllers: { stop(): void }[];
  private readonly host: string;
  private port = 0;

  constructor(parts: ApiServerParts) {
    this.dataDir = parts.dataDir;
    this.store = parts.store;
    this.registry = parts.registry;
    this.objects = parts.objects;
    this.tokens = parts.tokens;
    this.serviceAccountTokens = parts.serviceAccountTokens;
    this.boundObjects = parts.boundObjects;
    this.chain = parts.chain;
    this.fairness = parts.fairness;
    this.caPem = parts.caPem;
    this.log = parts.log;
    this.server = parts.server;
    this.hub = parts.hub;
    this.controllers = parts.controllers;
    this.host = parts.host;
  }

  /** Composes a server (composition.ts), listens, and writes the admin's kubeconfig into the data dir. */
  static async start(options: ApiServerOptions): Promise<ApiServer> {
    const api = new ApiServer(await composeApiServer(options));
    await api.listen(options.port ?? 0);
    await api.issueCredential('admin', undefined, adminKubeconfigPath(api.dataDir));
    api.log.info({ url: api.url, dataDir: api.dataDir }, 'API server listening');
    return api;
  }

  private async listen(port: number): Promise<void> {
    const server = this.server;
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, this.host, () => {
        server.off('error', reject);
        resolve();
      });
    });
    this.port = (server.address() as AddressInfo).port;
  }

  get url(): string {
    return serverUrl(this.host, this.port);
  }

  get openWatches(): number {
    return this.hub.size;
  }

  /** Calls `listener` on every request as it arrives (benchmarks count them by verb and resource). */
  onRequest(listener: (req: IncomingMessage, res: ServerResponse) => void): void {
    this.server.prependListener('request', listener);
  }

  /** Writes (or keeps) a kubeconfig for an identity at path; returns its token. */
  async issueCredential(
    kind: IdentityKind,
    nodeName: string | undefined,
    path: string,
    server = this.url,
  ): Promise<string> {
    const credential = await ensureCredential(this.tokens, {
      kind,
      ...(nodeName !== undefined ? { nodeName } : {}),
      path,
      server,
      caPem: this.caPem,
    });
    return credential.token;
  }

  async stop(): Promise<void> {
    for (const c of this.controllers) c.stop();
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
    this.store.close();
    this.tokens.close();
  }
}
