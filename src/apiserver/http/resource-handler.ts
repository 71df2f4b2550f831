// Serves resource URLs (/api/v1/..., /apis/<g>/<v>/...): maps verbs onto the object service and
// shapes the answers (lists, Tables, watches, Status errors) the way kube-apiserver does.

import type { IncomingMessage, ServerResponse } from 'node:http';
import { ApiError, badRequest, expired } from '../errors.ts';
import type { Admit, ObjectFilter, ObjectService } from '../objects/object-service.ts';
import { APPLY_PATCH, decodeApplyPatch } from '../patch/apply-patch.ts';
import type { ResourceDefinition } from '../registry/resource-definition.ts';
import { apiVersionOf } from '../registry/resource-definition.ts';
import { type KubeObject, type Store, type StoreEvent, StoreExpiredError } from '../storage/types.ts';
import type { WatchHub } from '../watch/watch-hub.ts';
import { decodeObject, mediaType } from './body.ts';
import { deletedStatus, returnsDeletedObject } from './delete-response.ts';
import type { ResourceRequestInfo } from './request-info.ts';
import { listPrefix } from './request-info.ts';
import {
  deleteOptions,
  parseNonNegativeInt,
  patchOptions,
  watchOptions,
  writeOptions,
} from './request-options.ts';
import { sendJson, sendJsonList, warningHeaders } from './respond.ts';
import { WatchStream } from './watch-stream.ts';

/** How the client wants objects rendered, decided from its Accept header and query. */
export type Rendering =
  | { kind: 'json' }
  | { kind: 'table'; includeObject: 'None' | 'Metadata' | 'Object'; apiVersion: string }
  | { kind: 'metadata'; apiVersion: string };

export interface RenderShape {
  /** The answer is a list (list, or a watch whose events are single objects: false). */
  list: boolean;
  watch: boolean;
}

export interface CompiledSelection {
  filter?: ObjectFilter;
  /** Set when the field selector pins metadata.name exactly (used to index watches). */
  name?: string;
}

export interface ResourceHandlerDeps {
  objects: ObjectService;
  store: Store;
  hub: WatchHub;
  select(
    def: ResourceDefinition,
    labelSelector: string | null,
    fieldSelector: string | null,
  ): CompiledSelection;
  /** Throws 406 NotAcceptable when nothing the client accepts can be served. */
  render(accept: string | undefined, query: URLSearchParams, shape: RenderShape): Rendering;
  /** Renders objects as a Table or PartialObjectMetadata(List); `single` answers one object. */
  present(
    def: ResourceDefinition,
    objects: KubeObject[],
    rendering: Exclude<Rendering, { kind: 'json' }>,
    listMeta: KubeObject,
    options: { single: boolean; noHeaders?: boolean },
  ): KubeObject;
  evict(def: ResourceDefinition, namespace: string, name: string, body: KubeObject): KubeObject;
  /** POST serviceaccounts/<name>/token: the TokenRequest answered, its token in status. */
  requestToken(namespace: string, name: string, body: KubeObject): KubeObject;
  bookmarkIntervalMs: number;
  /** Default watch timeout range in ms; each watch picks a random value in it to spread reconnects. */
  watchTimeoutMs: [number, number];
}

function listKindOf(def: ResourceDefinition): string {
  return def.listKind || `${def.kind}List`;
}

/** One resource request as the handler serves it, with what the request chain found out about it. */
export interface ResourceCall {
  req: IncomingMessage;
  res: ServerResponse;
  info: ResourceRequestInfo;
  def: ResourceDefinition;
  query: URLSearchParams;
  /** The body, read once whoever asks first (authorization may have read it already). */
  body(): Promise<Buffer>;
  /** What admission checks on every write, seeing the stored and the resulting object. */
  admit?: Admit | undefined;
}

function notFound(): ApiError {
  return new ApiError(404, 'NotFound', 'the server could not find the requested resource');
}

/**
 * Refuses a URL this resource does not serve, as kube does: an unknown subresource (finalize is the
 * Namespace's only, for writes), a namespaced resource's object without its namespace or a cluster-scoped
 * one with a namespace (404), a verb the resource does not support (405).
 */
function checkRoute(info: ResourceRequestInfo, def: ResourceDefinition): void {
  const sub = info.subresource;
  if (
    sub !== undefined &&
    !(sub === 'status' && def.subresources.status) &&
    !(sub === 'eviction' && def.subresources.eviction) &&
    !(sub === 'token' && def.subresources.token && info.verb === 'create') &&
    !(
      sub === 'finalize' &&
      def.group === '' &&
      def.resource === 'namespaces' &&
      (info.verb === 'update' || info.verb === 'patch')
    )
  ) {
    throw notFound();
  }
  if (def.namespaced && info.namespace === undefined && info.name !== undefined) throw notFound();
  // Cluster-scoped resources have no namespaced URLs (kube has no such route).
  if (!def.namespaced && info.namespace !== undefined) throw notFound();
  if (!def.verbs.includes(info.verb) && !(sub !== undefined)) {
    throw new ApiError(
      405,
      'MethodNotAllowed',
      `the server does not allow this method on the requested resource`,
    );
  }
}

export class ResourceHandler {
  private readonly deps: ResourceHandlerDeps;

  constructor(deps: ResourceHandlerDeps) {
    this.deps = deps;
  }

  /** Serves one request of a resource the URL names, by its verb. */
  async handle(call: ResourceCall): Promise<void> {
    checkRoute(call.info, call.def);
    const namespace = call.def.namespaced ? call.info.namespace : undefined;
    const { req, res, def, info, query } = call;
    switch (info.verb) {
      case 'get':
        return this.get(call, namespace);
      case 'list':
        return this.list(req, res, def, namespace, query);
      case 'watch':
        return this.watch(req, res, def, namespace, info.name, query);
      case 'create':
        return this.create(call, namespace);
      case 'update':
        return this.update(call, namespace);
      case 'patch':
        return this.patch(call, namespace);
      case 'delete':
        return this.delete(call, namespace);
      case 'deletecollection':
        return this.deleteCollection(call, namespace);
    }
  }

  private async get(call: ResourceCall, namespace: string | undefined): Promise<void> {
    const object = this.deps.objects.get(call.def, namespace, call.info.name!);
    await this.sendObject(call.req, call.res, call.def, 200, object, call.query);
  }

  /** POST of a new object, or of the eviction and token subresources (which store nothing themselves). */
  private async create(call: ResourceCall, namespace: string | undefined): Promise<void> {
    const { req, res, def, info, query } = call;
    const raw = await call.body();
    if (info.subresource === 'eviction') {
      const status = this.deps.evict(
        def,
        namespace!,
        info.name!,
        decodeObject(raw, req.headers['content-type']),
      );
      await this.send(res, 201, status);
      return;
    }
    if (info.subresource === 'token') {
      const request = this.deps.requestToken(
        namespace!,
        info.name!,
        decodeObject(raw, req.headers['content-type']),
      );
      await this.send(res, 201, request);
      return;
    }
    if (info.name !== undefined)
      throw new ApiError(
        405,
        'MethodNotAllowed',
        'the server does not allow this method on the requested resource',
      );
    const result = this.deps.objects.create(
      def,
      namespace,
      decodeObject(raw, req.headers['content-type']),
      writeOptions(req, query, 'CreateOptions', call.admit),
    );
    await this.sendObject(req, res, def, 201, result.object, query, result.warnings);
  }

  private async update(call: ResourceCall, namespace: string | undefined): Promise<void> {
    const { req, res, def, info, query } = call;
    const raw = await call.body();
    const result = this.deps.objects.update(
      def,
      namespace,
      info.name!,
      decodeObject(raw, req.headers['content-type']),
      writeOptions(req, query, 'UpdateOptions', call.admit, info.subresource),
    );
    await this.sendObject(req, res, def, 200, result.object, query, result.warnings);
  }

  /** A server-side apply (which may create the object), or a JSON, merge or strategic merge patch. */
  private async patch(call: ResourceCall, namespace: string | undefined): Promise<void> {
    const { req, res, def, info, query } = call;
    const raw = await call.body();
    const type = mediaType(req.headers['content-type']);
    if (type === APPLY_PATCH) {
      const options = patchOptions(req, query, true, call.admit, info.subresource);
      const result = this.deps.objects.apply(def, namespace, info.name!, decodeApplyPatch(raw), options);
      const status = result.created ? 201 : 200;
      await this.sendObject(req, res, def, status, result.object, query, result.warnings);
      return;
    }
    const result = this.deps.objects.patch(
      def,
      namespace,
      info.name!,
      type,
      raw,
      patchOptions(req, query, false, call.admit, info.subresource),
    );
    await this.sendObject(req, res, def, 200, result.object, query, result.warnings);
  }

  private async delete(call: ResourceCall, namespace: string | undefined): Promise<void> {
    const { req, res, def, info, query } = call;
    const { orphanDependentsFalse, ...options } = deleteOptions(
      await call.body(),
      req.headers['content-type'],
      query,
    );
    if (call.admit) options.admit = call.admit;
    const result = this.deps.objects.delete(def, namespace, info.name!, options);
    // kube answers 202 only for a deletion left pending when the client set orphanDependents=false.
    const status = !result.deleted && orphanDependentsFalse ? 202 : 200;
    if (result.deleted && !returnsDeletedObject(def)) {
      await this.send(res, status, deletedStatus(def, result.object));
      return;
    }
    await this.sendObject(req, res, def, status, result.object, query);
  }

  private async deleteCollection(call: ResourceCall, namespace: string | undefined): Promise<void> {
    const { req, res, def, query } = call;
    const options = deleteOptions(await call.body(), req.headers['content-type'], query);
    if (call.admit) options.admit = call.admit;
    const selection = this.deps.select(def, query.get('labelSelector'), query.get('fieldSelector'));
    const deleted = this.deps.objects.deleteCollection(def, namespace, selection.filter, options);
    await this.send(res, 200, {
      kind: listKindOf(def),
      apiVersion: apiVersionOf(def),
      metadata: { resourceVersion: String(this.deps.store.currentRevision()) },
      items: deleted,
    });
  }

  /**
   * Sends an answer once every write it may reflect is durable: with a group-committing store a read can
   * see, and a write can produce, state whose commit is still pending. Errors wait too (chain/audit-ids.ts).
   */
  private async send(
    res: ServerResponse,
    status: number,
    body: unknown,
    headers: Record<string, string | string[]> = {},
  ): Promise<void> {
    await this.deps.store.whenDurable();
    sendJson(res, status, body, headers);
  }

  private async sendObject(
    req: IncomingMessage,
    res: ServerResponse,
    def: ResourceDefinition,
    status: number,
    object: KubeObject,
    query: URLSearchParams,
    warnings: string[] = [],
  ): Promise<void> {
    const rendering = this.deps.render(req.headers.accept, query, { list: false, watch: false });
    const body =
      rendering.kind === 'json'
        ? object
        : this.deps.present(
            def,
            [object],
            rendering,
            { resourceVersion: object.metadata?.resourceVersion },
            { single: true },
          );
    await this.send(res, status, body, warningHeaders(warnings));
  }

  /** Table watch events carry column definitions only in the first event, as kube's do. */
  private watchTransform(def: ResourceDefinition, rendering: Exclude<Rendering, { kind: 'json' }>) {
    let first = true;
    return (o: KubeObject): KubeObject => {
      const meta = { resourceVersion: o.metadata?.resourceVersion };
      const out = this.deps.present(def, [o], rendering, meta, { single: true, noHeaders: !first });
      first = false;
      return out;
    };
  }

  private async list(
    req: IncomingMessage,
    res: ServerResponse,
    def: ResourceDefinition,
    namespace: string | undefined,
    query: URLSearchParams,
  ): Promise<void> {
    if (query.get('sendInitialEvents') !== null) {
      throw badRequest('sendInitialEvents is forbidden for list');
    }
    const match = query.get('resourceVersionMatch');
    if (match !== null && match !== '') {
      if (match !== 'Exact' && match !== 'NotOlderThan') {
        throw badRequest(
          `resourceVersionMatch: Unsupported value: "${match}": supported values: "Exact", "NotOlderThan"`,
        );
      }
      if (!query.get('resourceVersion')) {
        throw badRequest(
          'resourceVersionMatch: Forbidden: resourceVersionMatch is forbidden unless resourceVersion is provided',
        );
      }
    }
    const rendering = this.deps.render(req.headers.accept, query, { list: true, watch: false });
    const selection = this.deps.select(def, query.get('labelSelector'), query.get('fieldSelector'));
    const limit = parseNonNegativeInt(query, 'limit');
    const page = this.deps.objects.list(def, namespace, {
      ...(selection.filter ? { filter: selection.filter } : {}),
      ...(selection.name !== undefined ? { name: selection.name } : {}),
      ...(limit !== undefined ? { limit } : {}),
      ...(query.get('continue') ? { continueToken: query.get('continue')! } : {}),
      ...(query.get('resourceVersion') ? { resourceVersion: query.get('resourceVersion')! } : {}),
      ...(query.get('resourceVersionMatch')
        ? { resourceVersionMatch: query.get('resourceVersionMatch')! }
        : {}),
    });
    const listMeta: KubeObject = { resourceVersion: page.resourceVersion };
    if (page.continueToken) listMeta.continue = page.continueToken;
    if (rendering.kind !== 'json') {
      await this.send(res, 200, this.deps.present(def, page.items, rendering, listMeta, { single: false }));
      return;
    }
    await this.deps.store.whenDurable();
    sendJsonList(res, 200, {
      kind: listKindOf(def),
      apiVersion: apiVersionOf(def),
      metadata: listMeta,
      items: page.items,
    });
  }

  private watch(
    req: IncomingMessage,
    res: ServerResponse,
    def: ResourceDefinition,
    namespace: string | undefined,
    name: string | undefined,
    query: URLSearchParams,
  ): void {
    const { store, hub } = this.deps;
    let fieldSelector = query.get('fieldSelector');
    // GET .../watch/<resource>/<name> is a watch on one object.
    if (name !== undefined)
      fieldSelector = fieldSelector ? `${fieldSelector},metadata.name=${name}` : `metadata.name=${name}`;
    const selection = this.deps.select(def, query.get('labelSelector'), fieldSelector);
    const options = watchOptions(query, this.deps.watchTimeoutMs);
    const rendering = this.deps.render(req.headers.accept, query, { list: false, watch: true });
    const keyed = def.storedAs?.def ?? def;
    const prefix = listPrefix(keyed.group, keyed.resource, def.namespaced ? namespace : '');
    const { filter, transform } = this.watchView(def, rendering, selection.filter);

    // Check history before answering 200, so a too-old resourceVersion can still be a plain 410.
    const { resourceVersion: rv, sendInitialEvents } = options;
    const initial =
      sendInitialEvents === true || (sendInitialEvents === undefined && (rv === '' || rv === '0'));
    const backlog = initial ? undefined : this.backlog(def, namespace, prefix, selection.name, rv);

    const stream = new WatchStream(req, res, {
      def,
      prefix,
      ...(selection.name !== undefined ? { name: selection.name } : {}),
      ...(filter ? { filter } : {}),
      bookmarks: options.bookmarks,
      bookmarkIntervalMs: this.deps.bookmarkIntervalMs,
      timeoutMs: options.timeoutMs,
      currentRevision: () => store.currentRevision(),
      gate: store,
      ...(transform ? { transform } : {}),
    });
    if (backlog instanceof StoreExpiredError) {
      // Like kube: the stream opens, then an ERROR event with 410 Expired tells the client to re-list.
      stream.sendError(expired(`too old resource version: ${rv} (${backlog.compacted})`).toStatus());
      return;
    }
    // Everything below runs in one tick: nothing can be written between the snapshot and attaching.
    if (initial) {
      const page = this.deps.objects.list(def, namespace, {
        ...(selection.filter ? { filter: selection.filter } : {}),
        ...(selection.name !== undefined ? { name: selection.name } : {}),
      });
      for (const object of page.items) {
        stream.send({ type: 'ADDED', object, revision: Number(object.metadata.resourceVersion) });
      }
      if (sendInitialEvents === true) stream.bookmark({ 'k8s.io/initial-events-end': 'true' });
    } else if (backlog) {
      stream.replay(backlog);
    }
    stream.attach(hub);
  }

  /**
   * The events a watch from resourceVersion `rv` replays, or the expiry it reports. A watch of one object
   * (an agent's of its own Node) reads that object's history only: reading every Node's since its
   * resourceVersion made 5,000 agents' watches O(nodes²) (issue 17). The key is known unless the object
   * may be in any namespace.
   */
  private backlog(
    def: ResourceDefinition,
    namespace: string | undefined,
    prefix: string,
    name: string | undefined,
    rv: string,
  ): StoreEvent[] | StoreExpiredError {
    const key =
      name !== undefined && (!def.namespaced || namespace !== undefined) ? `${prefix}${name}` : undefined;
    try {
      return this.deps.store.eventsSince(prefix, Number(rv), key);
    } catch (err) {
      if (!(err instanceof StoreExpiredError)) throw err;
      return err;
    }
  }

  /**
   * How a watch shows stored objects: a view over another resource's storage (events.k8s.io Events)
   * converts them before filtering and sending; a Table watch renders each event.
   */
  private watchView(
    def: ResourceDefinition,
    rendering: Rendering,
    userFilter: ObjectFilter | undefined,
  ): { filter: ObjectFilter | undefined; transform: ((o: KubeObject) => KubeObject) | undefined } {
    const view = def.storedAs;
    const shown = (o: KubeObject): KubeObject =>
      view && o.apiVersion !== apiVersionOf(def) ? view.fromStorage(o) : o;
    const filter = userFilter && view ? (o: KubeObject) => userFilter(shown(o)) : userFilter;
    const tableTransform = rendering.kind !== 'json' ? this.watchTransform(def, rendering) : undefined;
    const transform =
      view || tableTransform
        ? (o: KubeObject) => (tableTransform ? tableTransform(shown(o)) : shown(o))
        : undefined;
    return { filter, transform };
  }
}
