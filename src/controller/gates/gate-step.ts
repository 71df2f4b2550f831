// The gates step of a reconcile of a strategy whose batches pass the health gate (RollingUpdate), in
// two halves around its one decision. Before: when the gate matters (a rollout open, not paused; the
// decision that would complete it included), what the kinds that ask Prometheus say, as a verdict the
// decision takes (hold or fail), and a check of the batch for the kinds that look at it (blocking
// pods). After: what the HealthGate condition says, from both, and when to look again.

import type { GateVerdict } from '../rollout/types.ts';
import { gateIntervalMs, type HealthGateSpec, type HealthGates, hasGates } from './evaluate-gates.ts';
import { combineGateChecks, type GateCheck } from './gate-check.ts';

/** The HealthGate condition: undefined keeps the last one, null removes it. */
export type HealthGateCondition = { passed: boolean; reason: string; message: string } | null | undefined;

export interface GateStep {
  /** The kinds that ask Prometheus hold or fail: the decision is made with it. */
  gate?: GateVerdict;
  /** The kinds that look at the batch, for the decision to ask of the batch it would start. */
  holdsBatch?: (nodes: readonly string[]) => GateVerdict | undefined;
  /** What the kinds that ask Prometheus said (kept for the condition). */
  asked?: GateCheck[];
  /** HealthGate condition when nothing was evaluated: undefined keeps the last one, null removes it. */
  condition?: null;
  /** Evaluate again after this long while the rollout is open (soaks are watched, holds re-checked). */
  requeueAfterMs?: number;
}

export async function gateStep(
  gates: HealthGates,
  pool: string,
  spec: HealthGateSpec | undefined,
  state: {
    revision: string;
    paused: boolean;
    rollingBack: boolean;
    rolloutOpen: boolean;
    /** The pool's nodes on the revision, and those not on their way to it (comparison gates). */
    nodes?: { updated: readonly string[]; rest: readonly string[] };
  },
): Promise<GateStep> {
  if (!hasGates(spec)) return { condition: null };
  // A completed rollout is not watched; the one about to complete gets its last check here.
  if (state.paused || !state.rolloutOpen) return {};
  const asked = await gates.ask(pool, spec, {
    revision: state.revision,
    checkPrometheus: !state.rollingBack,
    ...(state.nodes ? { nodes: state.nodes } : {}),
  });
  const outcome = combineGateChecks(asked);
  return {
    ...(outcome.verdict !== 'pass' ? { gate: outcome } : {}),
    holdsBatch: (nodes) => {
      const held = combineGateChecks(gates.batchChecks(spec, state.revision, nodes));
      return held.verdict === 'pass' ? undefined : held;
    },
    asked,
    requeueAfterMs: gateIntervalMs(spec),
  };
}

/** The HealthGate condition after the decision: what was asked, else what held the batch. */
export function gateCondition(step: GateStep, batchHeld: GateVerdict | undefined): HealthGateCondition {
  if (!step.asked) return step.condition;
  // A failing or unavailable gate says more than a held batch (combineGateChecks' order).
  const asked = combineGateChecks(step.asked);
  const outcome = asked.verdict === 'pass' && batchHeld ? batchHeld : asked;
  return { passed: outcome.verdict === 'pass', reason: outcome.reason, message: outcome.message };
}

/** The node sets a comparison gate compares: on the revision, and neither on it nor bound for it. */
export function compareNodeSets(
  revision: string,
  nodes: readonly { name: string; currentRevision?: string; desiredRevision?: string }[],
): { updated: string[]; rest: string[] } {
  const updated: string[] = [];
  const rest: string[] = [];
  for (const n of nodes) {
    if (n.currentRevision === revision) updated.push(n.name);
    else if (n.desiredRevision !== revision) rest.push(n.name);
  }
  return { updated, rest };
}
