// Authentication and authorization of /metrics, delegated to the API server as controller-runtime's
// metrics filters (WithAuthenticationAndAuthorization) and kube-rbac-proxy do: the bearer token is
// checked with a TokenReview, the user it names with a SubjectAccessReview for `get` on the non-resource
// URL /metrics. deploy/ grants that with the nodeherd-metrics-reader ClusterRole. Answers are cached a
// short while (by the token's digest, never the token) so a scrape every few seconds costs no API calls.

import { createHash } from 'node:crypto';
import type { KubeClient } from '../kube/kube-client.ts';

export type MetricsDecision = { allowed: true } | { allowed: false; status: 401 | 403; message: string };

export interface MetricsAuthorizer {
  /** The decision for a request to `path` with this Authorization header. */
  check(authorization: string | undefined, path: string): Promise<MetricsDecision>;
}

interface TokenReviewStatus {
  authenticated?: boolean;
  user?: { username?: string; uid?: string; groups?: string[]; extra?: Record<string, string[]> };
  error?: string;
}

const CACHE_TTL_MS = 10_000;
const CACHE_LIMIT = 1024;

export class DelegatingMetricsAuthorizer implements MetricsAuthorizer {
  private readonly client: KubeClient;
  private readonly now: () => number;
  private readonly cache = new Map<string, { decision: MetricsDecision; until: number }>();

  constructor(client: KubeClient, options: { now?: () => number } = {}) {
    this.client = client;
    this.now = options.now ?? Date.now;
  }

  async check(authorization: string | undefined, path: string): Promise<MetricsDecision> {
    const match = /^Bearer\s+(\S+)\s*$/i.exec(authorization ?? '');
    if (!match) return { allowed: false, status: 401, message: 'Unauthorized: a bearer token is required' };
    const token = match[1]!;
    const key = `${createHash('sha256').update(token).digest('hex')} ${path}`;
    const cached = this.cache.get(key);
    if (cached && cached.until > this.now()) return cached.decision;
    const decision = await this.review(token, path);
    if (this.cache.size >= CACHE_LIMIT) this.cache.clear();
    this.cache.set(key, { decision, until: this.now() + CACHE_TTL_MS });
    return decision;
  }

  private async review(token: string, path: string): Promise<MetricsDecision> {
    const tokenReview = await this.client.create<{ status?: TokenReviewStatus }>(
      '/apis/authentication.k8s.io/v1/tokenreviews',
      { apiVersion: 'authentication.k8s.io/v1', kind: 'TokenReview', spec: { token } },
    );
    const user = tokenReview.status?.user;
    if (tokenReview.status?.authenticated !== true || !user?.username) {
      return { allowed: false, status: 401, message: 'Unauthorized: the token did not authenticate' };
    }
    const access = await this.client.create<{ status?: { allowed?: boolean } }>(
      '/apis/authorization.k8s.io/v1/subjectaccessreviews',
      {
        apiVersion: 'authorization.k8s.io/v1',
        kind: 'SubjectAccessReview',
        spec: {
          user: user.username,
          ...(user.uid ? { uid: user.uid } : {}),
          groups: user.groups ?? [],
          ...(user.extra ? { extra: user.extra } : {}),
          nonResourceAttributes: { path, verb: 'get' },
        },
      },
    );
    if (access.status?.allowed === true) return { allowed: true };
    return {
      allowed: false,
      status: 403,
      message: `Forbidden: user ${JSON.stringify(user.username)} may not get path ${JSON.stringify(path)}`,
    };
  }
}
