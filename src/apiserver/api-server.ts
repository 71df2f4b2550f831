// The embedded Kubernetes-compatible API server: one process, one SQLite file, HTTPS with its own CA,
// bearer tokens, and the controllers a bare kube-apiserver relies on (namespaces, CRDs, garbage
// collection, disruption budgets, node leases). Everything in nodeherd talks to it exactly as it would
// talk to a real cluster.

import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import pino, { type Logger } from 'pino';
import {
  type AuthorizationRules,
  allowsAnonymous,
  authorize,
  NO_APPLICATION_RULES,
} from './auth/authorizer.ts';
import { ensurePki } from './auth/certificates.ts';
import { adminKubeconfigPath, ensureCredential } from './auth/credentials.ts';
import { admissionDenied, forbiddenError, unauthorizedError } from './auth/denials.ts';
import { Identities, type Identity, type IdentityKind } from './auth/identities.ts';
import { agentMayUseBoundPod } from './auth/node-bound-pods.ts';
import {
  type AdmissionAttributes,
  admitNodeIdentity,
  NO_NODE_ADMISSION_RULES,
} from './auth/node-restriction.ts';
import {
  isSelfReview,
  selfSubjectAccessReview,
  selfSubjectReview,
  selfSubjectRulesReview,
} from './auth/self-reviews.ts';
import { looksLikeJwt, ServiceAccountTokenIssuer } from './auth/service-account-tokens.ts';
import {
  authenticateServiceAccountToken,
  type BoundObjectLookup,
  requestToken,
} from './auth/token-request.ts';
import { bearerToken, TokenStore } from './auth/tokens.ts';
import { CrdController, crdStrategy } from './controllers/crd-controller.ts';
import { DisruptionController } from './controllers/disruption.ts';
import { GarbageCollector } from './controllers/garbage-collector.ts';
import { NamespaceController, namespaceStrategy } from './controllers/namespace-controller.ts';
import { NodeLifecycleController } from './controllers/node-lifecycle.ts';
import { ServiceAccountController } from './controllers/service-account-controller.ts';
import { restrictDataDir, STATE_DB } from './data-dir-permissions.ts';
import { ApiError } from './errors.ts';
import { decodeObject, mediaType, readBody } from './http/body.ts';
import { DiscoveryService } from './http/discovery-service.ts';
import { internalErrorLogged } from './http/internal-errors.ts';
import { prettyPrintRequested } from './http/query-params.ts';
import { parseRequestInfo, type ResourceRequestInfo } from './http/request-info.ts';
import { ResourceHandler } from './http/resource-handler.ts';
import { answerPretty, sendError, sendJson } from './http/respond.ts';
import { type Admit, ObjectService } from './objects/object-service.ts';
import type { KindStrategy } from './objects/strategy.ts';
import {
  applyPatchFor,
  builtinDecodingStrategy,
  builtinDefaultsStrategy,
  builtinPruningStrategy,
  compileSelection,
  crdValidationStrategy,
  customResourceStrategy,
  fieldSelectorPins,
  kindValidationStrategy,
  matchLabelSelectorObject,
  nameProblem,
  presentFor,
  renderingFor,
} from './parts.ts';
import { APPLY_PATCH, decodeApplyPatch } from './patch/apply-patch.ts';
import type { ApiServerProfile } from './profile.ts';
import { eventsV1ToCore } from './registry/event-conversion.ts';
import type { ResourceDefinition } from './registry/resource-definition.ts';
import { ResourceRegistry } from './registry/resource-registry.ts';
import { SqliteStore } from './storage/sqlite-store.ts';
import type { KubeObject } from './storage/types.ts';
import { WatchHub } from './watch/watch-hub.ts';

export interface ApiServerOptions {
  dataDir: string;
  /** 0 picks a free port. */
  port?: number;
  host?: string;
  /** Extra names/addresses for the serving certificate (e.g. a container bridge address). */
  extraSans?: string[];
  /** Revisions of history kept for watch resume (default 10,000). */
  retainRevisions?: number;
  compactIntervalMs?: number;
  bookmarkIntervalMs?: number;
  /** Range from which each watch's default timeout is drawn. */
  watchTimeoutMs?: [number, number];
  /** How long a node may go without renewing its Lease before it is marked NotReady. */
  nodeMonitorGracePeriodMs?: number;
  /** What the application running on the server adds: its CRDs, validators, extra access, routes. */
  profile: ApiServerProfile;
  /** Install (or upgrade) the profile's CRDs at start; default true. */
  installCrds?: boolean;
  logger?: Logger;
}

const DEFAULT_BOOKMARK_MS = 15_000;
const DEFAULT_WATCH_TIMEOUT_MS: [number, number] = [30 * 60_000, 60 * 60_000];

/** Creates the CRDs, or updates them when this build's schemas differ from the stored ones. */
function installCustomResourceDefinitions(
  objects: ObjectService,
  registry: ResourceRegistry,
  crds: KubeObject[],
): void {
  const def = registry.get('apiextensions.k8s.io', 'v1', 'customresourcedefinitions')!;
  for (const crd of crds) {
    const existing = objects.tryGet(def, undefined, crd.metadata.name);
    if (!existing) {
      objects.create(def, undefined, crd);
    } else if (JSON.stringify(existing.spec) !== JSON.stringify(crd.spec)) {
      objects.update(def, undefined, crd.metadata.name, { ...existing, spec: crd.spec });
    }
  }
}

/**
 * Data dirs written before events.k8s.io Events became a view over the core Event store kept them under
 * their own keys: move them into the core store once, so both APIs see them.
 */
function mergeEventsV1Store(store: SqliteStore): void {
  for (const item of store.list('/events.k8s.io/events/').items) {
    const coreKey = `/core/events/${item.key.slice('/events.k8s.io/events/'.length)}`;
    if (!store.get(coreKey)) {
      const core = eventsV1ToCore(item.object);
      delete core.metadata.resourceVersion;
      store.create(coreKey, core);
    }
    store.delete(item.key, item.revision);
  }
}

export class ApiServer {
  readonly dataDir: string;
  readonly store: SqliteStore;
  readonly registry: ResourceRegistry;
  readonly objects: ObjectService;
  readonly tokens: TokenStore;
  /** Signs and checks ServiceAccount tokens (TokenRequest); static tokens stay in `tokens`. */
  readonly serviceAccountTokens: ServiceAccountTokenIssuer;
  readonly caPem: string;
  readonly log: Logger;
  private readonly server: Server;
  private readonly hub: WatchHub;
  private readonly controllers: { stop(): void }[];
  private readonly host: string;
  private readonly profile: ApiServerProfile;
  private port = 0;

  private constructor(parts: {
    dataDir: string;
    store: SqliteStore;
    registry: ResourceRegistry;
    objects: ObjectService;
    tokens: TokenStore;
    serviceAccountTokens: ServiceAccountTokenIssuer;
    caPem: string;
    server: Server;
    hub: WatchHub;
    controllers: { stop(): void }[];
    host: string;
    profile: ApiServerProfile;
    log: Logger;
  }) {
    this.dataDir = parts.dataDir;
    this.store = parts.store;
    this.registry = parts.registry;
    this.objects = parts.objects;
    this.tokens = parts.tokens;
    this.serviceAccountTokens = parts.serviceAccountTokens;
    this.caPem = parts.caPem;
    this.server = parts.server;
    this.hub = parts.hub;
    this.controllers = parts.controllers;
    this.host = parts.host;
    this.profile = parts.profile;
    this.log = parts.log;
  }

  /** The profile's authorization rules for its own identities. */
  private get rules(): AuthorizationRules {
    return this.profile.authorization ?? NO_APPLICATION_RULES;
  }

  get url(): string {
    const host = this.host.includes(':') ? `[${this.host}]` : this.host;
    return `https://${host}:${this.port}`;
  }

  get openWatches(): number {
    return this.hub.size;
  }

  /** Calls `listener` on every request as it arrives (benchmarks count them by verb and resource). */
  onRequest(listener: (req: IncomingMessage, res: ServerResponse) => void): void {
    this.server.prependListener('request', listener);
  }

  static async start(options: ApiServerOptions): Promise<ApiServer> {
    const log =
      options.logger ?? pino({ level: process.env.NODEHERD_LOG_LEVEL ?? 'info', name: 'apiserver' });
    const dataDir = options.dataDir;
    restrictDataDir(dataDir);
    const host = options.host ?? '127.0.0.1';
    const pki = await ensurePki(dataDir, { extraSans: options.extraSans ?? [] });
    const tokens = TokenStore.open(dataDir, new Identities(options.profile.identities));
    const serviceAccountTokens = ServiceAccountTokenIssuer.open(dataDir);
    const store = SqliteStore.open(join(dataDir, STATE_DB), {
      ...(options.retainRevisions !== undefined ? { retainRevisions: options.retainRevisions } : {}),
      compactIntervalMs: options.compactIntervalMs ?? 5 * 60_000,
      onBackgroundError: (err, context) => log.error({ err, context }, 'storage background failure'),
      // One fsync per event-loop turn instead of per write; every answer waits for it (resource-handler.ts).
      groupCommit: true,
    });
    const registry = new ResourceRegistry();
    mergeEventsV1Store(store);

    const profile = options.profile;
    const validateKinds = kindValidationStrategy(profile);
    const strategiesByResource = new Map<string, KindStrategy[]>();
    const strategies = (def: ResourceDefinition): KindStrategy[] => {
      const specific = strategiesByResource.get(`${def.group}/${def.resource}`) ?? [];
      return def.builtin
        ? [
            builtinPruningStrategy,
            builtinDecodingStrategy,
            builtinDefaultsStrategy,
            ...specific,
            validateKinds,
          ]
        : [customResourceStrategy, validateKinds, ...specific];
    };
    const objects = new ObjectService({
      store,
      strategies,
      applyPatch: applyPatchFor,
      validateName: nameProblem,
      admitNamespace: (ns) => namespaces.admit(ns),
    });
    strategiesByResource.set('/namespaces', [namespaceStrategy]);
    strategiesByResource.set('apiextensions.k8s.io/customresourcedefinitions', [
      crdValidationStrategy,
      crdStrategy(registry),
    ]);

    const crds = new CrdController(store, registry, objects);
    crds.start();
    const namespaces = new NamespaceController(store, registry, objects, profile.namespaces);
    namespaces.start();
    const gc = new GarbageCollector(store, registry, objects);
    gc.start();
    const disruption = new DisruptionController(store, registry, objects, matchLabelSelectorObject);
    disruption.start();
    const serviceAccounts = new ServiceAccountController(store, registry, objects);
    serviceAccounts.start();
    const nodeLifecycle = new NodeLifecycleController(store, registry, objects, {
      gracePeriodMs: options.nodeMonitorGracePeriodMs ?? 40_000,
    });
    nodeLifecycle.start();

    if (options.installCrds !== false)
      installCustomResourceDefinitions(objects, registry, profile.customResourceDefinitions());

    const hub = new WatchHub(store);
    const handler = new ResourceHandler({
      objects,
      store,
      hub,
      select: compileSelection,
      render: renderingFor,
      present: presentFor,
      evict: (_def, namespace, name, body) => disruption.evict(namespace, name, body),
      requestToken: (namespace, name, body) =>
        requestToken(serviceAccountTokens, api.boundObjects, namespace, name, body),
      bookmarkIntervalMs: options.bookmarkIntervalMs ?? DEFAULT_BOOKMARK_MS,
      watchTimeoutMs: options.watchTimeoutMs ?? DEFAULT_WATCH_TIMEOUT_MS,
    });
    const discovery = new DiscoveryService(registry);

    const server = createServer({ cert: pki.certPem, key: pki.keyPem, minVersion: 'TLSv1.2' });
    // Watches are long-lived; Node's default request timeouts would cut them.
    server.requestTimeout = 0;
    server.headersTimeout = 60_000;
    server.keepAliveTimeout = 90_000;
    server.maxHeadersCount = 200;

    const api = new ApiServer({
      dataDir,
      store,
      registry,
      objects,
      tokens,
      serviceAccountTokens,
      caPem: pki.caPem,
      server,
      hub,
      controllers: [
        serviceAccounts,
        nodeLifecycle,
        disruption,
        gc,
        namespaces,
        crds,
        { stop: () => hub.close() },
      ],
      host,
      profile,
      log,
    });
    server.on('request', (req, res) => {
      // The profile's public routes (nodeherd: the agent artefacts) come before authentication.
      if (profile.route?.(req, res)) return;
      // Like kube-apiserver, every answer carries an Audit-Id; an internal error's log line names it.
      const requestId = randomUUID();
      res.setHeader('Audit-Id', requestId);
      if (api.serveIssuerDiscovery(req, res)) return;
      api.serve(req, res, handler, discovery).catch(async (err) => {
        // An error can reflect state not yet durable too (a conflict with a write still being committed).
        const failure = await store.whenDurable().then(
          () => err,
          (storeFailure: unknown) => storeFailure,
        );
        sendError(res, internalErrorLogged(log, failure, requestId, req));
      });
    });
    server.on('clientError', (_err, socket) => socket.destroy());
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(options.port ?? 0, host, () => {
        server.off('error', reject);
        resolve();
      });
    });
    api.port = (server.address() as AddressInfo).port;
    await api.issueCredential('admin', undefined, adminKubeconfigPath(dataDir));
    log.info({ url: api.url, dataDir }, 'API server listening');
    return api;
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

  /**
   * Returns when nothing written is still uncommitted, so an answer computed synchronously right after
   * reflects only durable state. Discovery needs it: the registry follows CRD writes as they are made.
   */
  private async durableNow(): Promise<void> {
    while (this.store.durableRevision() < this.store.currentRevision()) await this.store.whenDurable();
  }

  private async serve(
    req: IncomingMessage,
    res: ServerResponse,
    handler: ResourceHandler,
    discovery: DiscoveryService,
  ): Promise<void> {
    const url = new URL(req.url ?? '/', 'https://localhost');
    const method = req.method ?? 'GET';
    const info = parseRequestInfo(method, url.pathname, url.searchParams);
    if (prettyPrintRequested(url.searchParams, req.headers['user-agent'])) answerPretty(res);

    if (!info.isResourceRequest && allowsAnonymous(url.pathname, info.verb)) {
      await this.durableNow();
      discovery.serve(req, res, url);
      return;
    }
    const identity = this.authenticate(req.headers.authorization);
    if (!identity) throw unauthorizedError();

    if (!info.isResourceRequest) {
      const decision = authorize(identity, { verb: info.verb, path: url.pathname }, this.rules);
      if (!decision.allowed)
        throw forbiddenError(identity, { verb: info.verb, path: url.pathname }, decision.reason);
      await this.durableNow();
      if (!discovery.serve(req, res, url)) {
        sendJson(
          res,
          404,
          new ApiError(404, 'NotFound', 'the server could not find the requested resource').toStatus(),
        );
      }
      return;
    }

    const def = this.registry.get(info.group, info.version, info.resource);
    if (!def) throw new ApiError(404, 'NotFound', 'the server could not find the requested resource');
    const pins = fieldSelectorPins(url.searchParams.get('fieldSelector'));
    const attrs = {
      verb: info.verb,
      group: info.group,
      resource: info.resource,
      ...(info.subresource !== undefined ? { subresource: info.subresource } : {}),
      ...(info.namespace !== undefined ? { namespace: info.namespace } : {}),
      ...(info.name !== undefined ? { name: info.name } : {}),
      ...(pins.name !== undefined ? { fieldSelectorName: pins.name } : {}),
      ...(pins.nodeName !== undefined ? { fieldSelectorNodeName: pins.nodeName } : {}),
    };
    let body: Buffer | undefined;
    if (identity.kind !== 'admin') {
      // Some rules look at what a new object says (an Event's subject, a Node's name): read writes first.
      let parsed: unknown;
      if (info.verb === 'create' || info.verb === 'update') {
        body = await readBody(req);
        try {
          parsed = decodeObject(body, req.headers['content-type']);
        } catch {
          parsed = undefined;
        }
      }
      const withBody = parsed !== undefined ? { ...attrs, body: parsed } : attrs;
      const decision = authorize(identity, withBody, this.rules);
      if (
        !decision.allowed &&
        !this.profileAllows(identity, info) &&
        !this.agentMayUseOwnPod(identity, info)
      ) {
        throw forbiddenError(identity, withBody, decision.reason);
      }
      body = await this.authorizeApplyCreate(identity, req, info, def, attrs, body);
    }
    if (isSelfReview(def.group, def.resource)) {
      await this.answerSelfReview(req, res, info, def, identity, body);
      return;
    }
    const read = body ? Promise.resolve(body) : undefined;
    await handler.handle({
      req,
      res,
      info,
      def,
      query: url.searchParams,
      body: () => read ?? readBody(req),
      admit: this.admissionFor(identity),
    });
  }

  /** What a node identity's writes may change, seen with the stored objects (node-restriction.ts). */
  private admissionFor(identity: Identity): Admit | undefined {
    if ((identity.kind !== 'node' && identity.kind !== 'kubelet') || identity.nodeName === undefined) {
      return undefined;
    }
    const nodes = this.registry.get('', 'v1', 'nodes')!;
    const nodeName = identity.nodeName;
    return (request) => {
      const attrs: AdmissionAttributes = {
        operation: request.operation,
        group: request.def.group,
        resource: request.def.resource,
        subresource: request.subresource,
        namespace: request.namespace,
        object: request.object,
        oldObject: request.oldObject,
      };
      const decision = admitNodeIdentity(
        identity,
        attrs,
        () => this.objects.tryGet(nodes, undefined, nodeName),
        this.profile.nodeAdmission ?? NO_NODE_ADMISSION_RULES,
      );
      if (!decision.allowed) {
        const name = (request.object ?? request.oldObject)?.metadata?.name;
        throw admissionDenied(
          { group: request.def.group, resource: request.def.resource, name },
          decision.reason,
        );
      }
    };
  }

  /**
   * The identity of a bearer token: a static token of the token store, or a ServiceAccount token this
   * server issued (TokenRequest) whose bound objects still exist, mapped onto the identities the
   * authorizer knows (Identities.ofServiceAccount: the agent DaemonSet's token of node X is the agent of X).
   */
  private authenticate(authorization: string | undefined): Identity | undefined {
    const identity = this.tokens.authenticate(authorization);
    if (identity) return identity;
    const token = bearerToken(authorization);
    if (token === undefined || !looksLikeJwt(token)) return undefined;
    const user = authenticateServiceAccountToken(this.serviceAccountTokens, this.boundObjects, token);
    return user ? this.tokens.identities.ofServiceAccount(user.username, user.extra) : undefined;
  }

  /** The stored objects a ServiceAccount token can name. */
  readonly boundObjects: BoundObjectLookup = {
    serviceAccount: (namespace, name) => this.lookup('serviceaccounts', namespace, name),
    pod: (namespace, name) => this.lookup('pods', namespace, name),
    node: (name) => this.lookup('nodes', undefined, name),
  };

  private lookup(resource: string, namespace: string | undefined, name: string): KubeObject | undefined {
    const def = this.registry.get('', 'v1', resource);
    return def ? this.objects.tryGet(def, namespace, name) : undefined;
  }

  /**
   * /.well-known/openid-configuration and /openid/v1/jwks, so a verifier outside can check the
   * ServiceAccount tokens (kube serves them too). Public: they hold only the public key.
   */
  serveIssuerDiscovery(req: IncomingMessage, res: ServerResponse): boolean {
    const path = new URL(req.url ?? '/', 'https://localhost').pathname;
    if (req.method !== 'GET' && req.method !== 'HEAD') return false;
    if (path === '/.well-known/openid-configuration') {
      sendJson(res, 200, this.serviceAccountTokens.openidConfiguration(`${this.url}/openid/v1/jwks`));
      return true;
    }
    if (path === '/openid/v1/jwks') {
      sendJson(res, 200, this.serviceAccountTokens.jwks());
      return true;
    }
    return false;
  }

  /**
   * A server-side apply to an object that does not exist creates it: like kube, that needs the create
   * permission too, judged on the applied configuration. Returns the body, read here when needed.
   */
  private async authorizeApplyCreate(
    identity: Identity,
    req: IncomingMessage,
    info: ResourceRequestInfo,
    def: ResourceDefinition,
    attrs: Parameters<typeof authorize>[1],
    body: Buffer | undefined,
  ): Promise<Buffer | undefined> {
    if (info.verb !== 'patch' || info.subresource !== undefined || info.name === undefined) return body;
    if (mediaType(req.headers['content-type']) !== APPLY_PATCH) return body;
    if (this.objects.tryGet(def, info.namespace, info.name)) return body;
    const raw = body ?? (await readBody(req));
    let parsed: unknown;
    try {
      parsed = decodeApplyPatch(raw);
    } catch {
      parsed = undefined;
    }
    const create = { ...attrs, verb: 'create' as const, ...(parsed !== undefined ? { body: parsed } : {}) };
    const decision = authorize(identity, create, this.rules);
    if (!decision.allowed) throw forbiddenError(identity, create, decision.reason);
    return raw;
  }

  /** SelfSubject{Access,Rules}Review and SelfSubjectReview: answered for the requester, never stored. */
  private async answerSelfReview(
    req: IncomingMessage,
    res: ServerResponse,
    info: ResourceRequestInfo,
    def: ResourceDefinition,
    identity: Identity,
    preread: Buffer | undefined,
  ): Promise<void> {
    if (info.verb !== 'create' || info.name !== undefined || info.namespace !== undefined) {
      throw new ApiError(
        405,
        'MethodNotAllowed',
        'the server does not allow this method on the requested resource',
      );
    }
    const review = decodeObject(preread ?? (await readBody(req)), req.headers['content-type']);
    const apiVersion = `${def.group}/${def.version}`;
    const answer =
      def.resource === 'selfsubjectaccessreviews'
        ? selfSubjectAccessReview(identity, { ...review, apiVersion }, this.rules)
        : def.resource === 'selfsubjectrulesreviews'
          ? selfSubjectRulesReview(identity, { ...review, apiVersion }, this.rules)
          : selfSubjectReview(identity, apiVersion);
    sendJson(res, 201, answer);
  }

  /** An agent may get or delete a pod bound to its own Node (see node-bound-pods.ts). */
  private agentMayUseOwnPod(identity: Identity, info: ResourceRequestInfo): boolean {
    const pods = this.registry.get('', 'v1', 'pods');
    return (
      pods !== undefined &&
      agentMayUseBoundPod(identity, info, (ns, name) => this.objects.tryGet(pods, ns, name))
    );
  }

  /** The profile's last word on a request the rules denied (nodeherd: Secrets an agent's revisions reference). */
  private profileAllows(identity: Identity, info: ResourceRequestInfo): boolean {
    return (
      this.profile.allowsDespiteRules?.(identity, info, (group, version, resource, namespace, name) => {
        const def = this.registry.get(group, version, resource);
        return def ? this.objects.tryGet(def, namespace, name) : undefined;
      }) ?? false
    );
  }

  async stop(): Promise<void> {
    for (const c of this.controllers) c.stop();
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
    this.store.close();
    this.tokens.close();
  }
}
