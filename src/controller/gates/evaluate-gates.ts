// The health gate of a pool, evaluated: each kind of gate the pool's healthGate uses (gate-kinds.ts),
// those that ask Prometheus at most once per intervalSeconds per pool (the answer kept in between), the
// others at every evaluation. The reconciler hands in the pool's gate and what the batch would do, and
// gets back pass, hold(reason) or fail(reason). Credentials come from a Secret (gate-credentials.ts)
// and stay in the request header.

import type { Pod, Secret } from '../../kube/types.ts';
import { combineGateChecks, type GateCheck, type GateOutcome } from './gate-check.ts';
import { prometheusAccess } from './gate-credentials.ts';
import type { ClusterGateKind, GateContext, HealthGateSpec, PrometheusGateKind } from './gate-kind.ts';
import { GATE_KINDS } from './gate-kinds.ts';
import { PrometheusClient } from './prometheus-client.ts';

export type { HealthGateSpec } from './gate-kind.ts';

export interface GateInput {
  /**
   * The revision being rolled out. An answer is kept only for the same revision: one read while the
   * last rollout ended must not start the first batch of the next (a test saw an alert that fired
   * 0.3 s later let the new revision's first node start, and the pool then paused).
   */
  revision: string;
  /** Ask Prometheus (false while rolling back: a rollback returns to a revision that was healthy). */
  checkPrometheus: boolean;
  /** The pool's nodes on the revision, and those not on their way to it (comparison gates). */
  nodes?: { updated: readonly string[]; rest: readonly string[] };
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

/** A kind the pool's gate uses, with the part of the gate it reads. */
type Used<Kind> = { kind: Kind; spec: unknown };

function usedKinds(gate: HealthGateSpec) {
  const prometheus: Used<PrometheusGateKind>[] = [];
  const cluster: Used<ClusterGateKind>[] = [];
  for (const kind of GATE_KINDS) {
    const spec = kind.spec(gate);
    if (spec === undefined) continue;
    if (kind.asks === 'prometheus') prometheus.push({ kind, spec });
    else cluster.push({ kind, spec });
  }
  return { prometheus, cluster };
}

/** The gate has something to check besides podSelector (which is part of node health). */
export function hasGates(gate: HealthGateSpec | undefined): gate is HealthGateSpec {
  return gate !== undefined && GATE_KINDS.some((kind) => kind.spec(gate) !== undefined);
}

/** How often a pool with these gates is looked at again while its rollout is open. */
export function gateIntervalMs(gate: HealthGateSpec): number {
  return (gate.prometheus?.intervalSeconds ?? 10) * 1000;
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

  /** What the kinds that ask Prometheus say (none while rolling back): the same for any batch. */
  async ask(pool: string, gate: HealthGateSpec, input: GateInput): Promise<GateCheck[]> {
    if (!input.checkPrometheus) return [];
    return this.prometheusChecks(pool, gate, input, usedKinds(gate).prometheus);
  }

  /** What the kinds that look at a batch say of the nodes it would take. */
  batchChecks(gate: HealthGateSpec, revision: string, starting: readonly string[]): GateCheck[] {
    const context: GateContext = { revision, starting, podsOn: (node) => this.sources.podsOn(node) };
    return usedKinds(gate).cluster.flatMap(({ kind, spec }) => kind.check(spec, context));
  }

  /** Every kind of the pool's gate at once, for a batch that would take `input.starting`. */
  async check(
    pool: string,
    gate: HealthGateSpec,
    input: GateInput & { starting: readonly string[] },
  ): Promise<GateOutcome> {
    const asked = await this.ask(pool, gate, input);
    return combineGateChecks([...asked, ...this.batchChecks(gate, input.revision, input.starting)]);
  }

  private async prometheusChecks(
    pool: string,
    gate: HealthGateSpec,
    input: GateInput,
    used: readonly Used<PrometheusGateKind>[],
  ): Promise<GateCheck[]> {
    const server = gate.prometheus;
    if (!server || used.length === 0) return [];
    const access = prometheusAccess(server, this.sources);
    if (!access.ok) return [{ state: 'unavailable', message: access.message }];
    const now = this.sources.now();
    // The node sets are part of the question: a batch that finished changes what a comparison says.
    const key = JSON.stringify([
      input.revision,
      server,
      ...used.map((u) => u.spec),
      access.version,
      input.nodes ? [[...input.nodes.updated].sort(), [...input.nodes.rest].sort()] : null,
    ]);
    const cached = this.cache.get(pool);
    if (cached && cached.key === key && now - cached.at < gateIntervalMs(gate)) return cached.checks;

    const prometheus = new PrometheusClient({
      url: server.url,
      credentials: access.credentials,
      ...(access.caPem ? { caPem: access.caPem } : {}),
      timeoutMs: server.timeoutSeconds * 1000,
    });
    const answers = await Promise.all(
      used.map(({ kind, spec }) =>
        kind.check(spec, {
          revision: input.revision,
          prometheus,
          ...(input.nodes ? { nodes: input.nodes } : {}),
        }),
      ),
    );
    const checks = answers.flat();
    this.cache.set(pool, { key, at: now, checks });
    return checks;
  }
}
