// Serves the non-resource paths: health probes, /version, discovery (legacy and aggregated) and
// OpenAPI. Documents are cached per registry generation, so discovery stays cheap however often
// clients ask, and changes the moment a CRD is established or removed.

import type { IncomingMessage, ServerResponse } from 'node:http';
import {
  AGGREGATED_DISCOVERY_CONTENT_TYPE,
  acceptsAggregatedDiscovery,
  aggregatedDiscovery,
} from '../discovery/aggregated-discovery.ts';
import { canonicalJson, documentHash } from '../discovery/document-hash.ts';
import { apiGroup, apiGroupList, apiResourceList, apiVersions } from '../discovery/legacy-discovery.ts';
import { acceptsOpenApiV2Protobuf, openApiV2Json, openApiV2Protobuf } from '../discovery/openapi-v2.ts';
import { openApiV3Document, openApiV3Root } from '../discovery/openapi-v3.ts';
import { versionInfo } from '../discovery/version-info.ts';
import type { ResourceRegistry } from '../registry/resource-registry.ts';
import type { StorageUsage } from '../storage/types.ts';
import { storageMetrics, verboseHealth } from './storage-health.ts';

interface CachedDocument {
  body: string;
  etag: string;
  contentType: string;
}

export class DiscoveryService {
  private readonly registry: ResourceRegistry;
  private cache = new Map<string, CachedDocument | null>();
  private cachedGeneration = -1;
  private readonly storageUsage: (() => StorageUsage) | undefined;

  /** storageUsage: the store's bounds, for the verbose health answers and /metrics. */
  constructor(registry: ResourceRegistry, storageUsage?: () => StorageUsage) {
    this.registry = registry;
    this.storageUsage = storageUsage;
  }

  private document(id: string, contentType: string, build: () => unknown): CachedDocument | undefined {
    if (this.cachedGeneration !== this.registry.generation) {
      this.cache = new Map();
      this.cachedGeneration = this.registry.generation;
    }
    const cacheKey = `${id} ${contentType}`;
    let doc = this.cache.get(cacheKey);
    if (doc === undefined) {
      const value = build();
      doc = value === undefined ? null : this.freeze(value, contentType);
      this.cache.set(cacheKey, doc);
    }
    return doc ?? undefined;
  }

  private freeze(value: unknown, contentType: string): CachedDocument {
    const body = canonicalJson(value);
    return { body, etag: `"${documentHash(body)}"`, contentType };
  }

  private send(
    req: IncomingMessage,
    res: ServerResponse,
    doc: CachedDocument,
    extra: Record<string, string> = {},
  ): void {
    const headers = {
      'Content-Type': doc.contentType,
      ETag: doc.etag,
      'Cache-Control': 'no-cache, private',
      Vary: 'Accept',
      ...extra,
    };
    if (req.headers['if-none-match'] === doc.etag) {
      res.writeHead(304, headers);
      res.end();
      return;
    }
    res.writeHead(200, { ...headers, 'Content-Length': String(Buffer.byteLength(doc.body)) });
    res.end(doc.body);
  }

  /** Answers the request if the path is one of ours; returns false otherwise. */
  serve(req: IncomingMessage, res: ServerResponse, url: URL): boolean {
    const path = url.pathname.replace(/\/+$/, '') || '/';
    if (
      path === '/healthz' ||
      path === '/livez' ||
      path === '/readyz' ||
      /^\/(healthz|livez|readyz)\//.test(path)
    ) {
      res.writeHead(200, {
        'Content-Type': 'text/plain; charset=utf-8',
        'X-Content-Type-Options': 'nosniff',
      });
      const kind = path.split('/')[1]!;
      res.end(url.searchParams.has('verbose') ? verboseHealth(kind, this.storageUsage?.()) : 'ok');
      return true;
    }
    if (path === '/metrics' && this.storageUsage !== undefined) {
      res.writeHead(200, {
        'Content-Type': 'text/plain; version=0.0.4; charset=utf-8',
        'X-Content-Type-Options': 'nosniff',
      });
      res.end(storageMetrics(this.storageUsage()));
      return true;
    }
    if (path === '/version') {
      const doc = this.document('version', 'application/json', () => versionInfo());
      this.send(req, res, doc!);
      return true;
    }
    if (path === '/api' || path === '/apis') {
      const prefix = path === '/api' ? 'api' : 'apis';
      // client-go decides which discovery it got from the response Content-Type.
      const doc = acceptsAggregatedDiscovery(req.headers.accept)
        ? this.document(path, AGGREGATED_DISCOVERY_CONTENT_TYPE, () =>
            aggregatedDiscovery(this.registry, prefix),
          )
        : this.document(path, 'application/json', () =>
            prefix === 'api' ? apiVersions(this.registry) : apiGroupList(this.registry),
          );
      this.send(req, res, doc!);
      return true;
    }
    const parts = path.split('/').filter(Boolean);
    if (parts[0] === 'api' && parts.length === 2) {
      const doc = this.document(path, 'application/json', () =>
        apiResourceList(this.registry, '', parts[1]!),
      );
      if (!doc) return false;
      this.send(req, res, doc);
      return true;
    }
    if (parts[0] === 'apis' && parts.length === 2) {
      const doc = this.document(path, 'application/json', () => apiGroup(this.registry, parts[1]!));
      if (!doc) return false;
      this.send(req, res, doc);
      return true;
    }
    if (parts[0] === 'apis' && parts.length === 3) {
      const doc = this.document(path, 'application/json', () =>
        apiResourceList(this.registry, parts[1]!, parts[2]!),
      );
      if (!doc) return false;
      this.send(req, res, doc);
      return true;
    }
    if (path === '/openapi/v3') {
      this.send(req, res, this.document(path, 'application/json', () => openApiV3Root(this.registry))!);
      return true;
    }
    if (parts[0] === 'openapi' && parts[1] === 'v3' && parts.length >= 3) {
      const groupVersionPath = parts.slice(2).join('/');
      const doc = this.document(path, 'application/json', () =>
        openApiV3Document(this.registry, groupVersionPath),
      );
      if (!doc) return false;
      const asked = url.searchParams.get('hash');
      const current = doc.etag.slice(1, -1);
      if (asked !== null && asked !== current) {
        // An outdated hash URL must not be cached as if it named today's document: point at the current one.
        res.writeHead(301, {
          Location: `${url.pathname}?hash=${current}`,
          'Cache-Control': 'no-cache, private',
        });
        res.end();
        return true;
      }
      // Hash-bearing URLs name one immutable document: clients may cache them for good.
      const cache: Record<string, string> =
        asked !== null ? { 'Cache-Control': 'public, immutable, max-age=31536000' } : {};
      this.send(req, res, doc, cache);
      return true;
    }
    if (path === '/openapi/v2') {
      // Old kubectl (1.20) validates with v2 only; an empty protobuf document makes it skip validation
      // cleanly. It must be application/octet-stream: those clients cannot parse the real v2 media type.
      if (acceptsOpenApiV2Protobuf(req.headers.accept)) {
        const body = openApiV2Protobuf();
        res.writeHead(200, {
          'Content-Type': 'application/octet-stream',
          'Content-Length': String(body.length),
        });
        res.end(body);
      } else {
        this.send(req, res, this.document(path, 'application/json', () => openApiV2Json())!);
      }
      return true;
    }
    return false;
  }
}
