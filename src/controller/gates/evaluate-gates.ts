// The health gate of a pool, evaluated: Prometheus' queries and alerts (asked at most once per
// intervalSeconds per pool, the answer kept in between) and the blocking pods on the nodes a batch
// would take. The reconciler hands in the pool's gate and what the batch would do, and gets back
// pass, hold(reason) or fail(reason). Credentials come from a Secret and stay in the request header.

import { SECRETS_NAMESPACE } from '../../api/group.ts';
import type { Pod, Secret } from '../../kube/types.ts';
import type { RollingUpdateSpec } from '../strategies/rolling-settings.ts';
import { evaluateAlertGates } from './alert-gate.ts';
import { blockingPodsMessage } from './blocking-pods.ts';
import {
  combineGateChecks,
  type GateCheck,
  type GateOutcome,
  type PrometheusServerSpec,
} from './gate-check.ts';
import { evaluateMetricGate } from './metric-gate.ts';
import { PrometheusClient, type PrometheusCredentials, PrometheusError } from './prometheus-client.ts';

export type HealthGateSpec = NonNullable<RollingUpdateSpec['healthGate']>;

export interface GateInput {
  /**
   * The revision being rolled out. An answer is kept only for the same revision: one read while the
   * last rollout ended must not start the first batch of the next (a test saw an alert that fired
   * 0.3 s later let the new revision's first node start, and the pool then paused).
   */
  revision: string;
  /** Nodes the next batch would take (blocking pods are looked for there). */
  starting: readonly string[];
  /** Ask Prometheus (false while rolling back: a rollback returns to a revision that was healthy). */
  checkPrometheus: boolean;
}

export interface GateSources {
  secret(namespace: string, name: string): Secret | undefined;
  podsOn(node: string): readonly Pod[];
  now(): number;
}

interface Cached {
  key: string;
  at: number;
  checks: GateCheck[];
}

/** The gate has something to check besides podSelector (which is part of node health). */
export function hasGates(gate: HealthGateSpec | undefined): gate is HealthGateSpec {
  return (
    gate !== undefined &&
    (gate.blockingPodSelector !== undefined ||
      (gate.metrics?.length ?? 0) > 0 ||
      (gate.alerts?.length ?? 0) > 0)
  );
}

/** How often a pool with these gates is looked at again while its rollout is open. */
export function gateIntervalMs(gate: HealthGateSpec): number {
  return (gate.prometheus?.intervalSeconds ?? 10) * 1000;
}

function decode(secret: Secret, key: string): string | undefined {
  const data = secret.data?.[key];
  return data === undefined ? undefined : Buffer.from(data, 'base64').toString('utf8');
}

type Access =
  | { ok: true; credentials: PrometheusCredentials; caPem?: string; version: string }
  | { ok: false; message: string };

/** The Secret's `token`, or `username` and `password`, and `ca.crt`. */
export function prometheusAccess(server: PrometheusServerSpec, sources: Pick<GateSources, 'secret'>): Access {
  const ref = server.credentialsSecretRef;
  if (!ref) return { ok: true, credentials: { kind: 'none' }, version: '' };
  const where = `Secret ${ref.namespace}/${ref.name} (prometheus.credentialsSecretRef)`;
  // issue 31: only SECRETS_NAMESPACE, whatever a pool stored before the API refused other namespaces.
  if ((ref.namespace as string) !== SECRETS_NAMESPACE)
    return {
      ok: false,
      message: `${where} is not read: Secrets are read only in namespace ${SECRETS_NAMESPACE}`,
    };
  const secret = sources.secret(ref.namespace, ref.name);
  if (!secret) return { ok: false, message: `${where} not found` };
  const token = decode(secret, 'token');
  const username = decode(secret, 'username');
  const password = decode(secret, 'password');
  const caPem = decode(secret, 'ca.crt');
  const version = secret.metadata.resourceVersion ?? '';
  const ca = caPem ? { caPem } : {};
  if (token !== undefined && username !== undefined)
    return { ok: false, message: `${where} has both token and username: use one` };
  if (token !== undefined)
    return { ok: true, credentials: { kind: 'bearer', token: token.trim() }, version, ...ca };
  if (username !== undefined && password !== undefined)
    return { ok: true, credentials: { kind: 'basic', username, password }, version, ...ca };
  if (username !== undefined) return { ok: false, message: `${where} has username but no password` };
  if (caPem) return { ok: true, credentials: { kind: 'none' }, version, caPem };
  return { ok: false, message: `${where} has none of token, username and password, ca.crt` };
}

export class HealthGates {
  private readonly sources: GateSources;
  private readonly cache = new Map<string, Cached>();

  constructor(sources: GateSources) {
    this.sources = sources;
  }

  forget(pool: string): void {
    this.cache.delete(pool);
  }

  async check(pool: string, gate: HealthGateSpec, input: GateInput): Promise<GateOutcome> {
    const checks = input.checkPrometheus ? await this.prometheusChecks(pool, gate, input.revision) : [];
    const blocking = gate.blockingPodSelector
      ? blockingPodsMessage(input.starting, (n) => this.sources.podsOn(n), gate.blockingPodSelector)
      : undefined;
    return combineGateChecks(checks, blocking);
  }

  private async prometheusChecks(pool: string, gate: HealthGateSpec, revision: string): Promise<GateCheck[]> {
    const server = gate.prometheus;
    const metrics = gate.metrics ?? [];
    const alerts = gate.alerts ?? [];
    if (!server || (metrics.length === 0 && alerts.length === 0)) return [];
    const access = prometheusAccess(server, this.sources);
    if (!access.ok) return [{ state: 'unavailable', message: access.message }];
    const now = this.sources.now();
    const key = JSON.stringify([revision, server, metrics, alerts, access.version]);
    const cached = this.cache.get(pool);
    if (cached && cached.key === key && now - cached.at < gateIntervalMs(gate)) return cached.checks;

    const client = new PrometheusClient({
      url: server.url,
      credentials: access.credentials,
      ...(access.caPem ? { caPem: access.caPem } : {}),
      timeoutMs: server.timeoutSeconds * 1000,
    });
    const unavailable = (what: string, err: unknown): GateCheck => {
      if (!(err instanceof PrometheusError)) throw err;
      return { state: 'unavailable', message: `${what}: Prometheus cannot be asked: ${err.message}` };
    };
    const checks = await Promise.all([
      ...metrics.map((m) =>
        client.query(m.query).then(
          (result) => evaluateMetricGate(m, result),
          (err: unknown) => unavailable(`metric gate ${m.name} (${m.query})`, err),
        ),
      ),
      ...(alerts.length > 0
        ? [
            client.alerts().then(
              (list) => evaluateAlertGates(alerts, list),
              (err: unknown) => unavailable('alert gates', err),
            ),
          ]
        : []),
    ]);
    this.cache.set(pool, { key, at: now, checks });
    return checks;
  }
}
