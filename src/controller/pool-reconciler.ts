// Reconciles one NodeConfigPool: render its NodeConfigs into a revision, choose the target (rollbacks pin
// it), decide the rollout step with the pure decision function, apply the failure policy, carry out the
// decision on the Nodes, and write the status. Every fact it needs is read back from the API objects,
// so any replica can take over at any point; what it writes is idempotent.

import type { Gauge } from 'prom-client';
import { CURRENT_REVISION_ANNOTATION, DESIRED_REVISION_ANNOTATION } from '../api/node-protocol.ts';
import { defaultedPoolSpec } from '../api/pool-defaults.ts';
import type { NodeConfigPool, NodeConfigPoolStatus } from '../api/types.ts';
import { findCondition, kubeTime, type StatusCondition } from '../kube/conditions.ts';
import { DRAINING_FOR_ANNOTATION, ROLLBACK_FROM_ANNOTATION, ROLLBACK_TO_ANNOTATION } from './annotations.ts';
import { nodeConfigPoolPath } from './api-paths.ts';
import { type ControllerContext, nodeSubject, poolSubject } from './controller-context.ts';
import type { DecisionExecutor } from './decision-executor.ts';
import { HealthGates } from './gates/evaluate-gates.ts';
import { type GateStep, gateStep } from './gates/gate-step.ts';
import type { PoolStatusCount } from './metrics.ts';
import { snapshotNode } from './node-snapshot.ts';
import { type PoolSelector, poolMembership } from './pool-membership.ts';
import type { PoolRenderer } from './pool-render.ts';
import { buildPoolStatus, conditionChanges } from './pool-status.ts';
import { revisionsToPrune } from './revisions/revision-pruning.ts';
import { revisionsOfPool } from './revisions/revision-writer.ts';
import {
  beginRollout,
  endRollout,
  episodeStart,
  isRolloutOpen,
  type RolloutRecord,
} from './revisions/rollout-history.ts';
import { chooseTarget, type RolloutPin } from './revisions/rollout-target.ts';
import { decideRollout } from './rollout/decide.ts';
import type { FailureAction, NodeSnapshot, RevisionRef, RolloutDecision } from './rollout/types.ts';
import type { RolloutTracker } from './rollout-tracker.ts';
import { planNodeMarks } from './strategies/node-marks.ts';
import { rollingSettings, rollingUpdateOf } from './strategies/rolling-settings.ts';
import type { StrategyExecutor } from './strategies/strategy-executor.ts';
import { readStrategyNode } from './strategies/strategy-node.ts';
import type { StrategyRollout } from './strategies/strategy-rollout.ts';
import type { StrategyReport } from './strategies/strategy-status.ts';

export interface ReconcileOutcome {
  /** Reconcile again after this long (soak end, deadline, window), unless something changes first. */
  requeueAfterMs?: number;
}

const PHASES = [
  'Bootstrapping',
  'Skipped',
  'Pending',
  'Waiting',
  'Busy',
  'Draining',
  'Updating',
  'Soaking',
  'Updated',
  'Unhealthy',
  'Failed',
];
const AGENT_STATES = ['Idle', 'Applying', 'Verifying', 'Done', 'Failed', 'Unknown'];

function readPin(pool: NodeConfigPool): RolloutPin | undefined {
  const a = pool.metadata.annotations ?? {};
  const to = a[ROLLBACK_TO_ANNOTATION];
  const from = a[ROLLBACK_FROM_ANNOTATION];
  return to && from ? { to, from } : undefined;
}

/** The status as a merge patch: fields that disappeared are removed explicitly. */
function statusPatch(
  previous: NodeConfigPoolStatus | undefined,
  next: NodeConfigPoolStatus,
): Record<string, unknown> {
  const patch: Record<string, unknown> = { ...next };
  for (const key of Object.keys(previous ?? {})) if (!(key in next)) patch[key] = null;
  return patch;
}

export class PoolReconciler {
  private readonly ctx: ControllerContext;
  private readonly renderer: PoolRenderer;
  private readonly executor: DecisionExecutor;
  private readonly tracker: RolloutTracker;
  private readonly strategies: StrategyRollout;
  private readonly marks: StrategyExecutor;
  private readonly gates: HealthGates;

  constructor(
    ctx: ControllerContext,
    renderer: PoolRenderer,
    executor: DecisionExecutor,
    tracker: RolloutTracker,
    strategies: StrategyRollout,
    marks: StrategyExecutor,
  ) {
    this.ctx = ctx;
    this.renderer = renderer;
    this.executor = executor;
    this.tracker = tracker;
    this.strategies = strategies;
    this.marks = marks;
    this.gates = new HealthGates({
      secret: (namespace, name) => ctx.informers.secrets.get(name, namespace),
      podsOn: (node) => ctx.pods.on(node),
      now: () => ctx.now(),
    });
  }

  forget(pool: string): void {
    this.renderer.forget(pool);
    this.tracker.forget(pool);
    this.gates.forget(pool);
    this.ctx.metrics.forgetPool(pool);
  }

  async reconcile(name: string): Promise<ReconcileOutcome> {
    const { ctx } = this;
    const pool = ctx.informers.pools.get(name);
    if (!pool) {
      this.forget(name);
      return {};
    }
    if (pool.metadata.deletionTimestamp) return {};
    const now = ctx.now();
    const spec = defaultedPoolSpec(pool.spec);
    const status = pool.status;
    const subject = poolSubject(pool);

    // Members: nodes this pool selects and no other pool does.
    const selectors: PoolSelector[] = ctx.informers.pools
      .list()
      .filter((p) => !p.metadata.deletionTimestamp)
      .map((p) => ({ name: p.metadata.name, nodeSelector: p.spec.nodeSelector }));
    const membership = poolMembership(
      ctx.informers.nodes.list().map((n) => ({ name: n.metadata.name, labels: n.metadata.labels })),
      selectors,
    );
    const members = (membership.members.get(name) ?? [])
      .map((n) => ctx.informers.nodes.get(n)!)
      .filter(Boolean);
    const nodeConflicts = new Map([...membership.conflicts].filter(([, pools]) => pools.includes(name)));

    // Render, and choose the target.
    const rendering = await this.renderer.render(pool);
    if (rendering.created && rendering.latest) {
      ctx.recorder.normal(
        subject,
        'RevisionCreated',
        `rendered revision ${rendering.latest.number}: ${rendering.latest.name}`,
      );
    }
    const revisions: RevisionRef[] = revisionsOfPool(ctx.informers.revisions, name).map((r) => ({
      name: r.metadata.name,
      number: r.spec.revision,
    }));
    const byName = new Map(revisions.map((r) => [r.name, r]));
    let pin = readPin(pool);
    const choice = chooseTarget({
      latest: rendering.latest,
      statusTarget: status?.targetRevision,
      rollbackTo: spec.rollbackTo?.revision,
      pin,
      revisions,
    });
    let rollback: { reason: string; message: string } | undefined;
    const previousRolledBack = findCondition(
      status?.conditions as StatusCondition[] | undefined,
      'RolledBack',
    );
    if (choice.clearRollbackTo || choice.pin !== undefined) {
      const next = choice.pin === undefined ? pin : (choice.pin ?? undefined);
      await this.patchPool(name, {
        metadata: {
          annotations: {
            [ROLLBACK_TO_ANNOTATION]: next?.to ?? null,
            [ROLLBACK_FROM_ANNOTATION]: next?.from ?? null,
          },
        },
        ...(choice.clearRollbackTo ? { spec: { rollbackTo: null } } : {}),
      });
      pin = next;
      if (choice.rollbackRequest?.ok === false) {
        ctx.recorder.warning(subject, 'RollbackFailed', `spec.rollbackTo: ${choice.rollbackRequest.message}`);
      }
    }
    if (choice.rollbackRequest?.ok) {
      rollback = {
        reason: 'RollbackRequested',
        message: `rolled back to ${choice.rollbackRequest.to.name} (revision ${choice.rollbackRequest.to.number}) as spec.rollbackTo asked`,
      };
      ctx.metrics.rollbacks.inc({ pool: name, reason: 'RollbackRequested' });
    } else if (pin && choice.source === 'Pinned') {
      rollback =
        previousRolledBack?.status === 'True'
          ? { reason: previousRolledBack.reason ?? 'RolledBack', message: previousRolledBack.message ?? '' }
          : {
              reason: 'RolledBack',
              message: `staying on ${pin.to} while the NodeConfigs render ${pin.from}`,
            };
    }

    let target = choice.target;
    let history: RolloutRecord[] = (status?.history as RolloutRecord[] | undefined) ?? [];
    if (target && status?.targetRevision !== target.name) {
      const byRollback = choice.source === 'RollbackRequested' || choice.source === 'Pinned';
      history = beginRollout(history, target, kubeTime(now), byRollback ? 'RolledBack' : 'Superseded', {
        ...(byRollback ? { ended: rollback?.message, started: `rollback: ${rollback?.message ?? ''}` } : {}),
      });
      ctx.metrics.rolloutsStarted.inc({ pool: name });
      ctx.recorder.normal(
        subject,
        'RolloutStarted',
        `rolling out ${target.name} (revision ${target.number})`,
      );
    }
    let lastComplete = status?.currentRevision ? byName.get(status.currentRevision) : undefined;

    const strategyType = spec.updateStrategy.type;
    const rolling = rollingUpdateOf(spec);
    const zoneLabel = rolling.zoneLabel;
    const podSelector = rolling.healthGate?.podSelector;
    const revisionNumbers = new Map(revisions.map((r) => [r.name, r.number]));
    const snapshot = (targetName: string | undefined): NodeSnapshot[] =>
      members.map((n) =>
        snapshotNode(ctx.informers.nodes.get(n.metadata.name) ?? n, {
          zoneLabel,
          target: targetName,
          needsDrain: (from, to) => ctx.planner.needsDrain(from, to),
          podsReady: (node) => (podSelector ? ctx.pods.allReady(node, podSelector) : true),
          drainBlocked: (node) => ctx.drainer.blocked(node),
          health: ctx.health,
          now,
          healthFromNodeOnly: podSelector === undefined,
        }),
      );
    let nodes = snapshot(target?.name);

    let decision: RolloutDecision | undefined;
    let paused = spec.paused;
    const previousPaused = findCondition(status?.conditions as StatusCondition[] | undefined, 'Paused');
    let pausedByFailure =
      paused && previousPaused?.status === 'True' && previousPaused.reason === 'FailurePolicy'
        ? (previousPaused.message ?? 'paused by the failure policy')
        : undefined;
    const errors: unknown[] = [];
    const settings = rollingSettings(rolling);
    let strategyReport: StrategyReport | undefined;
    let requeueAfterMs: number | undefined;
    let gated: (GateStep & { target: string }) | undefined;

    // The failure policy's action: pause the pool, or pin it to the last completed revision.
    const applyFailure = async (action: FailureAction): Promise<void> => {
      if (!target) return;
      if (action.action === 'Pause') {
        await this.patchPool(name, { spec: { paused: true } });
        paused = true;
        pausedByFailure = action.message;
        history = endRollout(history, target.name, 'Failed', kubeTime(now), action.message);
        this.observeRolloutEnd(name, history, 'Failed', now);
      } else if (action.action === 'Rollback' && action.to) {
        const from = target;
        pin = { to: action.to.name, from: from.name };
        await this.patchPool(name, {
          metadata: {
            annotations: { [ROLLBACK_TO_ANNOTATION]: pin.to, [ROLLBACK_FROM_ANNOTATION]: pin.from },
          },
        });
        this.observeRolloutEnd(name, history, 'RolledBack', now);
        rollback = { reason: 'FailurePolicy', message: action.message };
        history = beginRollout(history, action.to, kubeTime(now), 'RolledBack', {
          ended: action.message,
          started: `rollback from ${from.name}`,
        });
        ctx.metrics.rollbacks.inc({ pool: name, reason: 'FailurePolicy' });
        ctx.metrics.rolloutsStarted.inc({ pool: name });
        target = action.to;
      }
    };

    if (strategyType === 'RollingUpdate' && target) {
      // Gates, holds, offers and taints of another strategy go: RollingUpdate hands out revisions itself.
      errors.push(
        ...(await this.marks.applyMarks(
          name,
          target.name,
          planNodeMarks({
            type: 'RollingUpdate',
            target,
            revisionNumbers,
            nodes: members.map((n) =>
              readStrategyNode(ctx.informers.nodes.get(n.metadata.name) ?? n, zoneLabel),
            ),
            serial: { pool: name, slots: 1, leaseDurationSeconds: 600 },
            outdatedTaint: 'None',
            slotHolders: new Set(),
            now,
          }),
        )),
      );
      const decide = () =>
        decideRollout({
          settings,
          paused,
          target: target!,
          ...(lastComplete ? { lastComplete } : {}),
          ...(episodeStart(history) !== undefined ? { episodeStart: episodeStart(history) } : {}),
          nodes,
          now,
          ...(gated?.gate && gated.target === target!.name ? { gate: gated.gate } : {}),
        });
      decision = decide();

      // Resumed after the failure policy paused the pool: failed nodes get a fresh deadline.
      if (!paused && previousPaused?.status === 'True' && previousPaused.reason === 'FailurePolicy') {
        history = endRollout(history, target.name, 'InProgress', kubeTime(now), 'resumed');
        const retry = decision.failures
          .filter((f) => f.touched && f.failure?.reason !== 'AgentFailed')
          .map((f) => f.name);
        if (retry.length > 0) {
          errors.push(...(await this.executor.restamp(retry)));
          for (const n of retry) ctx.health.forget(n);
          nodes = snapshot(target.name);
        }
        ctx.recorder.normal(
          subject,
          'Resumed',
          `resumed${retry.length ? `; retrying ${retry.join(', ')}` : ''}`,
        );
        decision = decide();
      }

      // Health gates (src/controller/gates): metrics, alerts and blocking pods hold or fail the batch.
      gated = {
        target: target.name,
        ...(await gateStep(this.gates, name, rolling.healthGate, decision, {
          paused,
          rollingBack: pin?.to === target.name,
          rolloutOpen: isRolloutOpen(history, target.name),
        })),
      };
      if (gated.gate) decision = decide();

      for (const failure of this.tracker.observe(name, decision, nodes, now)) {
        const node = ctx.informers.nodes.get(failure.name);
        if (node)
          ctx.recorder.warning(
            nodeSubject(node),
            'UpdateFailed',
            `${target.name}: ${failure.failure?.message ?? 'failed'}`,
          );
      }

      const action = decision.failureAction;
      if (action) {
        const before = target;
        await applyFailure(action);
        if (target !== before) {
          nodes = snapshot(target.name);
          decision = decide();
        }
      }

      errors.push(...(await this.executor.execute(pool, target, decision)));
      if (decision.starts.length > 0) {
        const names = decision.starts.map((s) => s.node);
        ctx.recorder.normal(
          subject,
          'NodesStarted',
          `${target.name}: started ${names.length > 8 ? `${names.slice(0, 8).join(', ')} and ${names.length - 8} more` : names.join(', ')} (${decision.budget.unavailable}/${decision.budget.maxUnavailable} unavailable)`,
        );
      }
      if (decision.complete && isRolloutOpen(history, target.name)) {
        this.observeRolloutEnd(name, history, 'Complete', now);
        history = endRollout(history, target.name, 'Complete', kubeTime(now));
        lastComplete = target;
      }
      requeueAfterMs = decision.requeueAfterMs;
      if (gated.requeueAfterMs !== undefined && !decision.complete && !paused)
        requeueAfterMs = Math.min(requeueAfterMs ?? Number.POSITIVE_INFINITY, gated.requeueAfterMs);
    } else if (target) {
      // Resumed after the failure policy paused the pool.
      if (!paused && previousPaused?.status === 'True' && previousPaused.reason === 'FailurePolicy') {
        history = endRollout(history, target.name, 'InProgress', kubeTime(now), 'resumed');
        ctx.recorder.normal(subject, 'Resumed', 'resumed');
      }
      const state = {
        target,
        history,
        ...(lastComplete ? { lastComplete } : {}),
        paused,
        ...(pausedByFailure ? { pausedByFailure } : {}),
      };
      const run = await this.strategies.run(
        pool,
        spec,
        settings,
        zoneLabel,
        state,
        members,
        revisionNumbers,
        {
          failure: async (action) => {
            await applyFailure(action);
            state.target = target!;
            state.history = history;
            state.paused = paused;
            if (pausedByFailure) state.pausedByFailure = pausedByFailure;
          },
          snapshot: (t) => snapshot(t),
          patchPool: (patch) => this.patchPool(name, patch),
        },
        errors,
      );
      nodes = snapshot(target.name);
      strategyReport = run.report;
      if (run.report.done && isRolloutOpen(history, target.name)) {
        this.observeRolloutEnd(name, history, 'Complete', now);
        history = endRollout(history, target.name, 'Complete', kubeTime(now));
        lastComplete = target;
      }
      requeueAfterMs = run.requeueAfterMs;
    }

    const next = buildPoolStatus({
      generation: pool.metadata.generation ?? 0,
      previous: status,
      strategyType,
      ...(strategyReport ? { strategy: strategyReport } : {}),
      ...(target ? { target } : {}),
      ...(lastComplete ? { lastComplete: lastComplete.name } : {}),
      history,
      ...(decision ? { decision } : {}),
      nodes,
      revisionNumbers,
      render: rendering.outcome,
      paused,
      ...(pausedByFailure ? { pausedByFailure } : {}),
      ...(pin ? { pin } : {}),
      ...(rollback ? { rollback } : {}),
      nodeConflicts,
      ...(gated?.condition !== undefined ? { healthGate: gated.condition } : {}),
      now,
    });
    await this.writeStatus(pool, next);
    for (const change of conditionChanges(
      status?.conditions as StatusCondition[] | undefined,
      next.conditions as StatusCondition[],
    )) {
      const text = `${change.type} ${change.status}${change.reason ? ` (${change.reason})` : ''}${change.message ? `: ${change.message}` : ''}`;
      ctx.recorder.record(subject, change.warning ? 'Warning' : 'Normal', change.reason || change.type, text);
    }

    // OnDelete: a revision no node uses any more is gone for good (only the target stays).
    const historyLimit = strategyType === 'OnDelete' ? 0 : spec.revisionHistoryLimit;
    if (revisions.length > historyLimit + 1)
      await this.prune(name, historyLimit, revisions, [
        target?.name,
        strategyType === 'OnDelete' ? undefined : lastComplete?.name,
        pin?.to,
        pin?.from,
        rendering.latest?.name,
      ]);
    this.updateMetrics(name, next, decision, nodes);
    if (errors.length > 0)
      throw new AggregateError(errors, `pool ${name}: ${errors.length} node writes failed`);
    return requeueAfterMs !== undefined ? { requeueAfterMs } : {};
  }

  private observeRolloutEnd(
    pool: string,
    history: readonly RolloutRecord[],
    result: string,
    now: number,
  ): void {
    const open = history[history.length - 1];
    if (!open) return;
    const started = Date.parse(open.startedAt);
    if (!Number.isNaN(started))
      this.ctx.metrics.rolloutDuration.observe({ pool, result }, Math.max(0, now - started) / 1000);
  }

  private async patchPool(name: string, patch: unknown): Promise<void> {
    const updated = await this.ctx.client.patch<NodeConfigPool>(nodeConfigPoolPath(name), patch, 'merge');
    this.ctx.informers.pools.upsert(updated);
  }

  private async writeStatus(pool: NodeConfigPool, next: NodeConfigPoolStatus): Promise<void> {
    const current = this.ctx.informers.pools.get(pool.metadata.name) ?? pool;
    if (JSON.stringify(current.status ?? {}) === JSON.stringify(next)) return;
    const updated = await this.ctx.client.patch<NodeConfigPool>(
      nodeConfigPoolPath(pool.metadata.name, 'status'),
      { status: statusPatch(current.status, next) },
      'merge',
    );
    this.ctx.informers.pools.upsert(updated);
  }

  // Old revisions beyond the history limit go, except those any node (of any pool) still refers to.
  private async prune(
    pool: string,
    limit: number,
    revisions: readonly RevisionRef[],
    keep: (string | undefined)[],
  ): Promise<void> {
    const inUse = new Set<string>(keep.filter((k): k is string => k !== undefined));
    for (const node of this.ctx.informers.nodes.list()) {
      const a = node.metadata.annotations ?? {};
      for (const key of [CURRENT_REVISION_ANNOTATION, DESIRED_REVISION_ANNOTATION, DRAINING_FOR_ANNOTATION]) {
        if (a[key]) inUse.add(a[key]);
      }
    }
    for (const name of revisionsToPrune(revisions, inUse, limit)) {
      await this.ctx.revisionWriter.delete(name);
      this.ctx.logger.info({ pool, revision: name }, 'pruned revision');
    }
  }

  private updateMetrics(
    pool: string,
    status: NodeConfigPoolStatus,
    decision: RolloutDecision | undefined,
    nodes: readonly NodeSnapshot[],
  ): void {
    const m = this.ctx.metrics;
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
  }
}
