// Follows rollouts across reconciles for what only shows over time: how long a batch and a node took
// (metrics), and which failures are new (one Event and one count per failed update, not per reconcile).

import type { ControllerMetrics } from '../metrics.ts';
import type { NodeSnapshot, NodeVerdict, RolloutDecision } from '../rollout/types.ts';

interface Batch {
  startedAt: number;
  nodes: Set<string>;
}

/** What the tracker follows of a rollout decision (or of the judgement the failure policy acted on). */
export type Tracked = Pick<RolloutDecision, 'starts' | 'verdicts' | 'failures'>;

export class RolloutTracker {
  private readonly metrics: ControllerMetrics;
  private readonly batches = new Map<string, Batch[]>();
  private readonly nodeStarts = new Map<string, Map<string, number>>();
  private readonly failures = new Map<string, Set<string>>();

  constructor(metrics: ControllerMetrics) {
    this.metrics = metrics;
  }

  /** Records this decision's starts and observes finished batches and nodes. Returns new failures. */
  observe(pool: string, decision: Tracked, nodes: readonly NodeSnapshot[], now: number): NodeVerdict[] {
    const starts = this.nodeStarts.get(pool) ?? new Map<string, number>();
    this.nodeStarts.set(pool, starts);
    const batches = this.batches.get(pool) ?? [];
    this.batches.set(pool, batches);
    const started = decision.starts.map((s) => s.node);
    if (started.length > 0) batches.push({ startedAt: now, nodes: new Set(started) });
    for (const name of started) starts.set(name, now);

    // The phases of the nodes followed only (those in flight), not of every member of the pool.
    const followed = new Set(starts.keys());
    for (const batch of batches) for (const name of batch.nodes) followed.add(name);
    const phase = new Map<string, NodeVerdict['phase']>();
    if (followed.size > 0)
      for (const v of decision.verdicts) if (followed.has(v.name)) phase.set(v.name, v.phase);
    for (const [name, at] of starts) {
      const p = phase.get(name);
      if (p === 'Updated') this.metrics.nodeUpdateDuration.observe({ pool }, (now - at) / 1000);
      if (p === undefined || p === 'Updated' || p === 'Failed') starts.delete(name);
    }
    for (let i = batches.length - 1; i >= 0; i--) {
      const batch = batches[i]!;
      const open = [...batch.nodes].some((n) => {
        const p = phase.get(n);
        return p !== undefined && p !== 'Updated' && p !== 'Failed';
      });
      if (open) continue;
      this.metrics.batchDuration.observe({ pool }, (now - batch.startedAt) / 1000);
      batches.splice(i, 1);
    }

    const known = this.failures.get(pool) ?? new Set<string>();
    const failed = new Set(decision.failures.map((f) => f.name));
    const startedAt = new Map<string, number>();
    if (failed.size > 0)
      for (const n of nodes) if (failed.has(n.name)) startedAt.set(n.name, n.updateStartedAt ?? 0);
    const current = new Set<string>();
    const fresh: NodeVerdict[] = [];
    for (const failure of decision.failures) {
      const key = `${failure.name}@${startedAt.get(failure.name)}@${failure.failure?.reason}`;
      current.add(key);
      if (known.has(key)) continue;
      fresh.push(failure);
      this.metrics.nodeFailures.inc({ pool, reason: failure.failure?.reason ?? 'Unknown' });
    }
    this.failures.set(pool, current);
    return fresh;
  }

  forget(pool: string): void {
    this.batches.delete(pool);
    this.nodeStarts.delete(pool);
    this.failures.delete(pool);
  }
}
