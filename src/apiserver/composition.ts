// What the embedded API server is made of, and how its parts are put together. composeApiServer reads
// top to bottom in the order the parts are made: the data dir and its credentials, the store and the
// object service over it, the controllers, the resource handler and discovery, the HTTPS server, and
// the request chain, the named stages every request goes through (docs/apiserver.md), one line each.
// Each part is made from parts made before it; the one cycle (namespaces) is closed in openObjects and
// says so. ApiServer (api-server.ts) is given these parts; it listens, issues credentials and stops.

import { createServer, type Server } from 'node:https';
import type { Socket } from 'node:net';
import { join } from 'node:path';
import pino, { type Logger } from 'pino';
import { authorize, NO_APPLICATION_RULES, type RequestAttributes } from './auth/authorizer.ts';
import { ensurePki } from './auth/certificates.ts';
import { Identities, type Identity } from './auth/identities.ts';
import { RbacAuthorizer } from './auth/rbac-authorizer.ts';
import { ServiceAccountTokenIssuer } from './auth/service-account-tokens.ts';
import { type BoundObjectLookup, requestToken } from './auth/token-request.ts';
import { TokenStore } from './auth/tokens.ts';
import { admissionPolicies } from './chain/admission-policies.ts';
import { auditIds } from './chain/audit-ids.ts';
import { authentication, authenticator } from './chain/authentication.ts';
import { authorization } from './chain/authorization.ts';
import { connectionLimits, DEFAULT_REQUEST_TIMEOUT_MS } from './chain/connection-limits.ts';
import { discoveryDocuments, publicDocuments } from './chain/discovery.ts';
import { type EventRateLimitConfig, eventRateLimit } from './chain/event-rate-limit.ts';
import { impersonation } from './chain/impersonation.ts';
import { issuerDiscovery } from './chain/issuer-discovery.ts';
import { nodeRestriction } from './chain/node-restriction.ts';
import { prettyPrinting } from './chain/pretty-printing.ts';
import { Fairness, type FairnessOptions, fairnessLimits } from './chain/priority-and-fairness.ts';
import { profileRoutes } from './chain/profile-routes.ts';
import { rbacEscalation } from './chain/rbac-escalation.ts';
import { RequestChain } from './chain/request-chain.ts';
import { resourceResolution } from './chain/resource-resolution.ts';
import { resources } from './chain/resources.ts';
import { selfReviews } from './chain/self-reviews.ts';
import { ClusterRoleAggregationController } from './controllers/clusterrole-aggregation.ts';
import { CrdController } from './controllers/crd-controller.ts';
import { DisruptionController } from './controllers/disruption.ts';
import { EventTtlController } from './controllers/event-ttl.ts';
import { GarbageCollector } from './controllers/garbage-collector.ts';
import { NamespaceController } from './controllers/namespace-controller.ts';
import { NodeLifecycleController } from './controllers/node-lifecycle.ts';
import { ServiceAccountController } from './controllers/service-account-controller.ts';
import { restrictDataDir, STATE_DB } from './data-dir-permissions.ts';
import { DiscoveryService } from './http/discovery-service.ts';
import { ResourceHandler } from './http/resource-handler.ts';
import { eventsV1ToCore } from './kinds/events/event-conversion.ts';
import { builtinResources } from './kinds/registration.ts';
import { ObjectService } from './objects/object-service.ts';
import {
  applyPatchFor,
  compileSelection,
  fieldSelectorPins,
  matchLabelSelectorObject,
  nameProblem,
  presentFor,
  renderingFor,
  strategyLookup,
} from './parts.ts';
import type { ApiServerProfile, StoredObjectLookup } from './profile.ts';
import type { ResourceDefinition } from './registry/resource-definition.ts';
import { ResourceRegistry } from './registry/resource-registry.ts';
import { SqliteStore } from './storage/sqlite-store.ts';
import type { KubeObject, Store } from './storage/types.ts';
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
  /** Bytes of history kept for watch resume, whatever the count (default 256 MiB). */
  retainHistoryBytes?: number;
  /**
   * Bytes of storage at which writes are refused (default 2 GiB, etcd's --quota-backend-bytes);
   * deletes and Lease renewals go on (`nodeherd apiserver --storage-quota-bytes`).
   */
  storageQuotaBytes?: number;
  /** How long an Event lives after its last write (default one hour, kube-apiserver's --event-ttl). */
  eventTtlMs?: number;
  /** kube's EventRateLimit admission: buckets per user and per source and object (defaults in the stage). */
  eventRateLimit?: EventRateLimitConfig;
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
  /** Seats per identity and priority level (chain/priority-and-fairness.ts); the rest stay the defaults. */
  fairness?: FairnessOptions;
  /** A request (not a watch) not answered within this is answered 504 Timeout; default 60 s, as kube's. */
  requestTimeoutMs?: number;
  /** How long a client may take to send a request's headers; default 60 s. */
  headersTimeoutMs?: number;
  /** How long a client may take to send a whole request, body included (watches too: they have none); default 60 s. */
  requestReadTimeoutMs?: number;
  /**
   * Connections one client address may hold open. Default: 1,000 for other hosts and none for loopback
   * (the simulated fleets of `nodeherd up` and the benches connect from it); given, it holds for loopback too.
   */
  maxConnectionsPerAddress?: number;
  logger?: Logger;
}

/** The parts of a running API server, made by composeApiServer. */
export interface ApiServerParts {
  dataDir: string;
  host: string;
  log: Logger;
  caPem: string;
  tokens: TokenStore;
  /** Signs and checks ServiceAccount tokens (TokenRequest); static tokens stay in `tokens`. */
  serviceAccountTokens: ServiceAccountTokenIssuer;
  store: Store;
  registry: ResourceRegistry;
  objects: ObjectService;
  /** The stored objects a ServiceAccount token can name. */
  boundObjects: BoundObjectLookup;
  hub: WatchHub;
  /** Started; stopped in this order. */
  controllers: { stop(): void }[];
  chain: RequestChain;
  /** The seats of priority and fairness. */
  fairness: Fairness;
  /** Serves the chain; not listening yet. */
  server: Server;
}

const DEFAULT_BOOKMARK_MS = 15_000;
const DEFAULT_WATCH_TIMEOUT_MS: [number, number] = [30 * 60_000, 60 * 60_000];

export async function composeApiServer(options: ApiServerOptions): Promise<ApiServerParts> {
  const { dataDir, profile } = options;
  const log = options.logger ?? pino({ level: process.env.NODEHERD_LOG_LEVEL ?? 'info', name: 'apiserver' });
  const host = options.host ?? '127.0.0.1';

  // The data dir and its credentials; the store, the objects in it, and the controllers over them.
  restrictDataDir(dataDir);
  const pki = await ensurePki(dataDir, { extraSans: options.extraSans ?? [] });
  const tokens = TokenStore.open(dataDir, new Identities(profile.identities));
  const serviceAccountTokens = ServiceAccountTokenIssuer.open(dataDir);
  const { store, registry, objects, namespaces } = openObjects(options, log);
  const lookup = storedObjects(registry, objects);
  const boundObjects: BoundObjectLookup = {
    serviceAccount: (namespace, name) => lookup('', 'v1', 'serviceaccounts', namespace, name),
    pod: (namespace, name) => lookup('', 'v1', 'pods', namespace, name),
    node: (name) => lookup('', 'v1', 'nodes', undefined, name),
  };
  const { controllers, disruption } = startControllers(options, log, store, registry, objects, namespaces);
  if (options.installCrds !== false)
    installCustomResourceDefinitions(objects, registry, profile.customResourceDefinitions());
  installBootstrapPolicy(objects, registry, profile.bootstrapPolicy?.() ?? [], log);

  // Serving: watches and the resource handler, discovery, the HTTPS server.
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
      requestToken(serviceAccountTokens, boundObjects, namespace, name, body),
    bookmarkIntervalMs: options.bookmarkIntervalMs ?? DEFAULT_BOOKMARK_MS,
    watchTimeoutMs: options.watchTimeoutMs ?? DEFAULT_WATCH_TIMEOUT_MS,
  });
  const discovery = new DiscoveryService(registry, () => store.usage());
  const server = httpsServer(pki, options);
  const listeningUrl = () => {
    const address = server.address();
    return serverUrl(host, typeof address === 'object' && address ? address.port : 0);
  };

  // The request path, stage by stage (docs/apiserver.md): a new stage is a file in chain/ and a line here.
  const rules = { ...(profile.authorization ?? NO_APPLICATION_RULES), rbac: new RbacAuthorizer(store) };
  const decide = (identity: Identity, attrs: RequestAttributes) => authorize(identity, attrs, rules);
  const authenticate = authenticator(tokens, serviceAccountTokens, boundObjects);
  const fairness = new Fairness(fairnessLimits(options.fairness));
  const chain = new RequestChain([
    profileRoutes(profile.route),
    auditIds(log, store),
    connectionLimits(options.requestTimeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS),
    fairness.unauthenticatedStage(),
    issuerDiscovery(serviceAccountTokens, listeningUrl),
    prettyPrinting(),
    publicDocuments(discovery, store),
    authentication(authenticate),
    impersonation(decide, tokens.identities, log),
    fairness.stage(),
    resourceResolution(registry),
    authorization({ rules, allowsDespiteRules: profile.allowsDespiteRules, lookup, fieldSelectorPins }),
    nodeRestriction(profile.nodeAdmission, lookup),
    rbacEscalation(decide, lookup),
    admissionPolicies(store),
    eventRateLimit(options.eventRateLimit),
    selfReviews(rules, authenticate, tokens.identities),
    discoveryDocuments(discovery, store),
    resources(handler),
  ]);
  server.on('request', (req, res) => void chain.run(req, res));

  return {
    dataDir,
    host,
    log,
    caPem: pki.caPem,
    tokens,
    serviceAccountTokens,
    store,
    registry,
    objects,
    boundObjects,
    hub,
    controllers: [...controllers, { stop: () => hub.close() }],
    chain,
    fairness,
    server,
  };
}

/**
 * The store, the resources it serves and the object service over them, with each kind's strategies.
 * A namespaced write needs a live namespace, which the namespace controller judges through the object
 * service: the one cycle of the composition, closed here by making that controller with the service.
 */
function openObjects(
  options: ApiServerOptions,
  log: Logger,
): { store: Store; registry: ResourceRegistry; objects: ObjectService; namespaces: NamespaceController } {
  const store: Store = SqliteStore.open(join(options.dataDir, STATE_DB), {
    ...(options.retainRevisions !== undefined ? { retainRevisions: options.retainRevisions } : {}),
    ...(options.retainHistoryBytes !== undefined ? { retainHistoryBytes: options.retainHistoryBytes } : {}),
    ...(options.storageQuotaBytes !== undefined ? { quotaBytes: options.storageQuotaBytes } : {}),
    onQuotaAlarm: (usage) => {
      if (usage.quotaExceeded) {
        log.error(
          { usedBytes: usage.usedBytes, quotaBytes: usage.quotaBytes },
          'storage quota exceeded (etcd NOSPACE alarm): creates and updates are refused until deletes free space',
        );
      } else {
        log.info(
          { usedBytes: usage.usedBytes, quotaBytes: usage.quotaBytes },
          'storage quota alarm cleared: writes are accepted again',
        );
      }
    },
    compactIntervalMs: options.compactIntervalMs ?? 5 * 60_000,
    onBackgroundError: (err, context) => log.error({ err, context }, 'storage background failure'),
    // One fsync per event-loop turn instead of per write; every answer waits for it (resource-handler.ts).
    groupCommit: true,
  });
  mergeEventsV1Store(store);
  const registry = new ResourceRegistry(builtinResources());
  let namespaces: NamespaceController | undefined;
  const objects = new ObjectService({
    store,
    strategies: strategyLookup(options.profile, { registry }),
    applyPatch: applyPatchFor,
    validateName: nameProblem,
    admitNamespace: (namespace) => namespaces!.admit(namespace),
  });
  namespaces = new NamespaceController(store, registry, objects, options.profile.namespaces);
  return { store, registry, objects, namespaces };
}

/**
 * Data dirs written before events.k8s.io Events became a view over the core Event store kept them under
 * their own keys: move them into the core store once, so both APIs see them.
 */
function mergeEventsV1Store(store: Store): void {
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

/** Reads a stored object by its resource's coordinates, as authorization and tokens need. */
function storedObjects(registry: ResourceRegistry, objects: ObjectService): StoredObjectLookup {
  return (group, version, resource, namespace, name) => {
    const def = registry.get(group, version, resource);
    return def ? objects.tryGet(def, namespace, name) : undefined;
  };
}

/** Starts the controllers a bare API server relies on, the CRDs' first (the registry then serves them). */
function startControllers(
  options: ApiServerOptions,
  log: Logger,
  store: Store,
  registry: ResourceRegistry,
  objects: ObjectService,
  namespaces: NamespaceController,
): { controllers: { stop(): void }[]; disruption: DisruptionController } {
  const crds = new CrdController(store, registry, objects);
  crds.start();
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
  const eventTtl = new EventTtlController(store, {
    ...(options.eventTtlMs !== undefined ? { ttlMs: options.eventTtlMs } : {}),
    onError: (err, key) => log.error({ err, key }, 'deleting an expired Event failed'),
  });
  eventTtl.start();
  const aggregation = new ClusterRoleAggregationController(
    store,
    registry,
    objects,
    matchLabelSelectorObject,
  );
  aggregation.start();
  return {
    controllers: [aggregation, eventTtl, serviceAccounts, nodeLifecycle, disruption, gc, namespaces, crds],
    disruption,
  };
}

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
 * Creates the profile's policy objects, or brings them back to this build's content (kube-apiserver's
 * bootstrap policy reconciliation): what they grant and admit is this build's, whatever was stored.
 */
function installBootstrapPolicy(
  objects: ObjectService,
  registry: ResourceRegistry,
  policy: KubeObject[],
  log: Logger,
): void {
  for (const object of policy) {
    const [group, version] = String(object.apiVersion).includes('/')
      ? String(object.apiVersion).split('/')
      : ['', String(object.apiVersion)];
    const def = registry.getByKind(group ?? '', version ?? '', String(object.kind));
    if (!def) {
      log.warn(
        { kind: object.kind, name: object.metadata?.name },
        'bootstrap policy object of a kind not served',
      );
      continue;
    }
    const namespace = def.namespaced ? object.metadata.namespace : undefined;
    try {
      reconcileBootstrapObject(objects, def, namespace, object);
    } catch (err) {
      // A namespace being deleted refuses new content: the next start installs it again.
      log.error(
        { err, kind: object.kind, name: object.metadata?.name },
        'bootstrap policy object not installed',
      );
    }
  }
}

function reconcileBootstrapObject(
  objects: ObjectService,
  def: ResourceDefinition,
  namespace: string | undefined,
  object: KubeObject,
): void {
  const existing = objects.tryGet(def, namespace, object.metadata.name);
  if (!existing) {
    objects.create(def, namespace, structuredClone(object));
    return;
  }
  // Only what this build says is brought back (the fields it sets, the labels it gives): defaults the
  // server added (a Namespace's spec.finalizers) and labels others added stay, so an unchanged object
  // is not written again at every start.
  const { metadata: wantedMetadata, ...wantedContent } = object;
  const wantedLabels: Record<string, string> = wantedMetadata?.labels ?? {};
  const storedLabels: Record<string, string> = existing.metadata.labels ?? {};
  const fieldsSame = Object.keys(wantedContent).every(
    (key) =>
      key === 'apiVersion' || key === 'kind' || JSON.stringify(existing[key]) === JSON.stringify(object[key]),
  );
  const labelsSame = Object.entries(wantedLabels).every(([key, value]) => storedLabels[key] === value);
  if (fieldsSame && labelsSame) return;
  objects.update(def, namespace, object.metadata.name, {
    ...existing,
    ...structuredClone(wantedContent),
    metadata: { ...existing.metadata, labels: { ...storedLabels, ...wantedLabels } },
  });
}

const DEFAULT_READ_TIMEOUT_MS = 60_000;
const DEFAULT_CONNECTIONS_PER_REMOTE_ADDRESS = 1_000;

/**
 * The HTTPS server: deadlines for reading a request's headers and whole request (a watch's request has
 * no body, so it is read at once and lives on), and a cap on the connections of one client address,
 * counted from the TCP connection, before the TLS handshake. It serves nothing until given a listener.
 */
function httpsServer(
  pki: { certPem: string; keyPem: string },
  options: Pick<ApiServerOptions, 'headersTimeoutMs' | 'requestReadTimeoutMs' | 'maxConnectionsPerAddress'>,
): Server {
  const headersTimeout = options.headersTimeoutMs ?? DEFAULT_READ_TIMEOUT_MS;
  const requestTimeout = Math.max(options.requestReadTimeoutMs ?? DEFAULT_READ_TIMEOUT_MS, headersTimeout);
  const server = createServer({
    cert: pki.certPem,
    key: pki.keyPem,
    minVersion: 'TLSv1.2',
    headersTimeout,
    // Node answers 408 and closes a connection whose request is not all in by then.
    requestTimeout,
    // How often Node looks for requests past those deadlines (its default, 30 s, for the defaults).
    connectionsCheckingInterval: Math.min(30_000, Math.max(50, Math.floor(headersTimeout / 4))),
    // A TLS handshake is part of sending the headers.
    handshakeTimeout: headersTimeout,
  });
  server.keepAliveTimeout = 90_000;
  server.maxHeadersCount = 200;
  server.on('clientError', (_err, socket) => socket.destroy());
  const cap = options.maxConnectionsPerAddress;
  const open = new Map<string, number>();
  server.on('connection', (socket: Socket) => {
    const address = socket.remoteAddress ?? '';
    const limit =
      cap ?? (isLoopback(address) ? Number.POSITIVE_INFINITY : DEFAULT_CONNECTIONS_PER_REMOTE_ADDRESS);
    const count = open.get(address) ?? 0;
    if (count >= limit) {
      socket.destroy();
      return;
    }
    open.set(address, count + 1);
    socket.once('close', () => {
      const left = (open.get(address) ?? 1) - 1;
      if (left === 0) open.delete(address);
      else open.set(address, left);
    });
  });
  return server;
}

function isLoopback(address: string): boolean {
  return address === '::1' || address.startsWith('127.') || address.startsWith('::ffff:127.');
}

/** The server's URL on `port`. */
export function serverUrl(host: string, port: number): string {
  return `https://${host.includes(':') ? `[${host}]` : host}:${port}`;
}
