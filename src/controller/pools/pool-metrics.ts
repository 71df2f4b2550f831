// The pool's gauges after a reconcile (nodes by phase and agent state, status counts, conditions) and the
// duration of a rollout that ends.

import type { Gauge } from 'prom-client';
import type { NodeConfigPoolStatus } from '../../api/types.ts';
import type { ControllerMetrics, PoolStatusCount } from '../metrics.ts';
import type { RolloutRecord } from '../revisions/rollout-history.ts';
import type { NodeSnapshot, RolloutDecision } from '../rollout/types.ts';

const PHASES = [
  'Bootstrapping',
  'Skipped',
  'Pending',
  'Waiting',
  'Busy',
  'Draining',
  'DrainSkipped',
  'Updating',
  'Soaking',
  'Updated',
  'Unhealthy',
  'Failed',
];
const AGENT_STATES = ['Idle', 'Applying', 'Verifying', 'Done', 'Failed', 'Unknown'];

export function observeRolloutEnd(
  metrics: ControllerMetrics,
  pool: string,
  history: readonly RolloutRecord[],
  result: string,
  now: number,
): void {
  const open = history[history.length - 1];
  if (!open) return;
  const started = Date.parse(open.startedAt);
  if (!Number.isNaN(started))
    metrics.rolloutDuration.observe({ pool, result }, Math.max(0, now - started) / 1000);
}

export function updatePoolMetrics(
  m: ControllerMetrics,
  pool: string,
  status: NodeConfigPoolStatus,
  decision: RolloutDecision | undefined,
  nodes: readonly NodeSnapshot[],
): void {
  const phases = new Map<string, number>(PHASES.map((p) => [p, 0]));
  for (const v of decision?.verdicts ?? []) phases.set(v.phase, (phases.get(v.phase) ?? 0) + 1);
  for (const [phase, count] of phases) m.nodesByPhase.set({ pool, phase }, count);
  const states = new Map<string, number>(AGENT_STATES.map((s) => [s, 0]));
  for (const n of nodes) {
    const state = AGENT_STATES.includes(n.agentState ?? '') ? n.agentState! : 'Unknown';
    states.set(state, (states.get(state) ?? 0) + 1);
  }
  for (const [state, count] of states) m.nodesByAgentState.set({ pool, state }, count);
  for (const [count, gauge] of Object.entries(m.poolStatus) as [PoolStatusCount, Gauge<'pool'>][])
    gauge.set({ pool }, status[count] ?? 0);
  m.setPoolConditions(pool, status.conditions ?? []);
}
