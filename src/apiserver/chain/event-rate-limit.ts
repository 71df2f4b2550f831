// Admission: kube's EventRateLimit. Creates and updates of Events (core/v1 and events.k8s.io/v1, one
// store) take a token from a bucket per requesting user and one per source and involved object; when
// either is empty the write is 429 TooManyRequests with kube's words ("limit reached on type User for
// key ...") and a Retry-After saying when a token is back. As in kube, dry runs take no token, buckets
// are kept for the most recently used keys only (an evicted key starts full again), and deletes are not
// limited. Unlike kube, a refused write takes no token from the buckets that would have allowed it.

import type { IdentityKind } from '../auth/identities.ts';
import { ApiError } from '../errors.ts';
import type { AdmissionRequest } from '../objects/types.ts';
import type { KubeObject } from '../storage/types.ts';
import { admissionStage } from './admission-stage.ts';
import type { RequestStage } from './request-chain.ts';

/** One bucket per key: `qps` tokens a second, at most `burst` saved up. */
export interface EventRateLimitBucket {
  qps: number;
  burst: number;
  /** Keys whose buckets are kept (least recently used dropped); default 4096. */
  cacheSize?: number;
}

/** kube's EventRateLimit Configuration, for the limit types nodeherd uses. */
export interface EventRateLimitConfig {
  /** Per requesting user (a node's agent or kubelet, the controller). */
  user?: EventRateLimitBucket;
  /** Per source (component and host) and involved object. */
  sourceAndObject?: EventRateLimitBucket;
}

/**
 * Defaults: a node's agent and kubelet record a handful of Events a minute, nodeherd's controller a few
 * per node during a rollout (its recorder aggregates repeats into counts); bursts stay well clear of those.
 */
export const DEFAULT_EVENT_RATE_LIMIT: Required<EventRateLimitConfig> = {
  user: { qps: 50, burst: 500 },
  sourceAndObject: { qps: 5, burst: 50 },
};

const DEFAULT_CACHE_SIZE = 4096;

const EXEMPT_FROM_USER_LIMIT: ReadonlySet<IdentityKind> = new Set(['controller', 'admin']);

class TokenBuckets {
  readonly #qps: number;
  readonly #burst: number;
  readonly #cacheSize: number;
  readonly #now: () => number;
  /** key → tokens and when they were counted; Map order is recency of use. */
  readonly #buckets = new Map<string, { tokens: number; at: number }>();

  constructor(config: EventRateLimitBucket, now: () => number) {
    this.#qps = config.qps;
    this.#burst = config.burst;
    this.#cacheSize = config.cacheSize ?? DEFAULT_CACHE_SIZE;
    this.#now = now;
  }

  /** Seconds until `key` has a token (0 if it has one now); refreshes the bucket. */
  wait(key: string): number {
    const bucket = this.#refill(key);
    return bucket.tokens >= 1 ? 0 : Math.max(1, Math.ceil((1 - bucket.tokens) / this.#qps));
  }

  take(key: string): void {
    this.#refill(key).tokens -= 1;
  }

  #refill(key: string): { tokens: number; at: number } {
    const now = this.#now();
    let bucket = this.#buckets.get(key);
    if (bucket === undefined) {
      bucket = { tokens: this.#burst, at: now };
      if (this.#buckets.size >= this.#cacheSize) {
        this.#buckets.delete(this.#buckets.keys().next().value!);
      }
    } else {
      this.#buckets.delete(key);
      bucket.tokens = Math.min(this.#burst, bucket.tokens + ((now - bucket.at) / 1000) * this.#qps);
      bucket.at = now;
    }
    this.#buckets.set(key, bucket);
    return bucket;
  }
}

function validBucket(name: string, bucket: EventRateLimitBucket): void {
  if (!(Number.isFinite(bucket.qps) && bucket.qps > 0))
    throw new TypeError(`eventRateLimit.${name}.qps must be a positive number, got ${bucket.qps}`);
  if (!(Number.isSafeInteger(bucket.burst) && bucket.burst >= 1))
    throw new TypeError(`eventRateLimit.${name}.burst must be a positive integer, got ${bucket.burst}`);
}

/** kube's key for the SourceAndObject limit: the source, then the involved object's coordinates. */
function sourceAndObjectKey(event: KubeObject): string {
  const source = event.source ?? event.deprecatedSource ?? {};
  const component = source.component ?? event.reportingController ?? '';
  const host = source.host ?? event.reportingInstance ?? '';
  const o = event.involvedObject ?? event.regarding ?? {};
  return [component, host, o.kind, o.namespace, o.name, o.uid, o.apiVersion].map((v) => v ?? '').join('/');
}

function isEventWrite(write: AdmissionRequest): boolean {
  return (
    write.def.resource === 'events' &&
    (write.def.group === '' || write.def.group === 'events.k8s.io') &&
    write.subresource === undefined &&
    (write.operation === 'CREATE' || write.operation === 'UPDATE')
  );
}

export function eventRateLimit(
  config: EventRateLimitConfig = DEFAULT_EVENT_RATE_LIMIT,
  now: () => number = Date.now,
): RequestStage {
  const limits: { type: string; buckets: TokenBuckets; key: (user: string, event: KubeObject) => string }[] =
    [];
  if (config.user !== undefined) {
    validBucket('user', config.user);
    limits.push({ type: 'User', buckets: new TokenBuckets(config.user, now), key: (user) => user });
  }
  if (config.sourceAndObject !== undefined) {
    validBucket('sourceAndObject', config.sourceAndObject);
    limits.push({
      type: 'SourceAndObject',
      buckets: new TokenBuckets(config.sourceAndObject, now),
      key: (_user, event) => sourceAndObjectKey(event),
    });
  }
  return admissionStage('event rate limit', (request) => {
    const { info } = request;
    if (limits.length === 0 || !info.isResourceRequest || info.resource !== 'events') return undefined;
    // Dry runs touch no storage: kube does not limit them.
    if (request.url.searchParams.getAll('dryRun').includes('All')) return undefined;
    const identity = request.authenticated;
    const user = identity.name;
    // The controller and administrators speak for the whole fleet: a 5,000-node rollout's Events
    // pass the per-user bucket's 50 a second, so only their per-object limit applies (as kube's
    // priority and fairness exempts system:masters).
    const applicable = EXEMPT_FROM_USER_LIMIT.has(identity.kind)
      ? limits.filter((limit) => limit.type !== 'User')
      : limits;
    return (write) => {
      if (!isEventWrite(write) || write.object === undefined) return;
      const keys = applicable.map((limit) => limit.key(user, write.object!));
      const refusals: string[] = [];
      let retryAfterSeconds = 0;
      for (const [i, limit] of applicable.entries()) {
        const wait = limit.buckets.wait(keys[i]!);
        if (wait === 0) continue;
        refusals.push(`limit reached on type ${limit.type} for key ${keys[i]}`);
        retryAfterSeconds = Math.max(retryAfterSeconds, wait);
      }
      if (refusals.length > 0) {
        throw new ApiError(429, 'TooManyRequests', `Too many requests: ${refusals.join(', ')}`, {
          retryAfterSeconds,
        });
      }
      for (const [i, limit] of applicable.entries()) limit.buckets.take(keys[i]!);
    };
  });
}
