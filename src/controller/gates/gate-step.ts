// The gates step of a RollingUpdate reconcile: given the decision made without gates, evaluate the
// pool's health gate when it matters (a rollout open, not paused; the decision that would complete it
// included) and say what the decision must take into account, what the HealthGate condition says, and
// when to look again.

import type { RolloutDecision } from '../rollout/types.ts';
import { gateIntervalMs, type HealthGateSpec, type HealthGates, hasGates } from './evaluate-gates.ts';
import type { GateOutcome } from './gate-check.ts';

export interface GateStep {
  /** The gate holds or fails: the decision is made again with it. */
  gate?: Exclude<GateOutcome, { verdict: 'pass' }>;
  /** HealthGate condition: undefined keeps the last one, null removes it. */
  condition?: { passed: boolean; reason: string; message: string } | null;
  /** Evaluate again after this long while the rollout is open (soaks are watched, holds re-checked). */
  requeueAfterMs?: number;
}

export async function gateStep(
  gates: HealthGates,
  pool: string,
  spec: HealthGateSpec | undefined,
  decision: RolloutDecision,
  state: { revision: string; paused: boolean; rollingBack: boolean; rolloutOpen: boolean },
): Promise<GateStep> {
  if (!hasGates(spec)) return { condition: null };
  // A completed rollout is not watched; the one about to complete gets its last check here.
  if (state.paused || !state.rolloutOpen) return {};
  const outcome = await gates.check(pool, spec, {
    revision: state.revision,
    starting: decision.starts.map((s) => s.node),
    checkPrometheus: !state.rollingBack,
  });
  return {
    condition: { passed: outcome.verdict === 'pass', reason: outcome.reason, message: outcome.message },
    requeueAfterMs: gateIntervalMs(spec),
    ...(outcome.verdict !== 'pass' ? { gate: outcome } : {}),
  };
}
