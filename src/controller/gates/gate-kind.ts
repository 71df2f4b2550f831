// The one shape every kind of health gate has (kured's RebootBlocker is the size): which part of the
// pool's healthGate it reads, and what it says about the next batch. A kind that asks Prometheus is
// asked only when Prometheus is to be asked (not while rolling back), through the pool's server, and
// its answer is kept with the other such kinds' for the gate's interval (evaluate-gates.ts). Adding a
// kind: its file here and its line in gate-kinds.ts (and its field in the API schema's healthGate).
// What a kind says is a GateCheck: pass, fail (for the failure policy), unavailable or hold.

import type { Pod } from '../../kube/types.ts';
import type { RollingUpdateSpec } from '../strategies/rolling-settings.ts';
import type { GateCheck } from './gate-check.ts';
import { type PrometheusClient, PrometheusError } from './prometheus-client.ts';

export type HealthGateSpec = NonNullable<RollingUpdateSpec['healthGate']>;

/** What a kind that asks Prometheus is asked with. */
export interface PrometheusContext {
  /** The revision being rolled out. */
  revision: string;
  /** The pool's Prometheus (healthGate.prometheus, with its credentials). */
  prometheus: PrometheusClient;
  /** The pool's nodes on the revision, and those not on their way to it (comparison gates). */
  nodes?: { updated: readonly string[]; rest: readonly string[] };
}

/** What a kind that looks at the batch is asked with. */
export interface GateContext {
  /** The revision being rolled out. */
  revision: string;
  /** Nodes the next batch would take. */
  starting: readonly string[];
  podsOn(node: string): readonly Pod[];
}

/** A kind that asks the pool's Prometheus, only when Prometheus is to be asked; kept for the interval. */
export interface PrometheusGateKind<Spec = unknown> {
  readonly asks: 'prometheus';
  /** The part of the pool's healthGate this kind reads; undefined: the pool does not use it. */
  spec(gate: HealthGateSpec): Spec | undefined;
  /** What it says now. */
  check(spec: Spec, context: PrometheusContext): Promise<GateCheck[]>;
}

/**
 * A kind that looks at the batch in the controller's caches (blocking pods): asked, within the
 * decision, of the batch the rest of the decision would start.
 */
export interface ClusterGateKind<Spec = unknown> {
  readonly asks: 'cluster';
  spec(gate: HealthGateSpec): Spec | undefined;
  /** What it says of the batch; no check at all when nothing blocks. */
  check(spec: Spec, context: GateContext): GateCheck[];
}

export type GateKind<Spec = unknown> = PrometheusGateKind<Spec> | ClusterGateKind<Spec>;

/** A question to Prometheus that could not be answered: the gate cannot be evaluated, so it holds. */
export function prometheusUnavailable(what: string, err: unknown): GateCheck {
  if (!(err instanceof PrometheusError)) throw err;
  return { state: 'unavailable', message: `${what}: Prometheus cannot be asked: ${err.message}` };
}
