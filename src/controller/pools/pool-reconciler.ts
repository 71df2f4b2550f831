// Reconciles one NodeConfigPool in four steps. Observe: the members, the rendering of its NodeConfigs
// into a revision, the target (rollbacks pin it), the nodes as the strategy sees them. Decide: the
// pool's strategy (strategies/registry.ts) turns that snapshot into marks and node starts; the failure
// policy acts on what it reports, once, and the strategy decides again from the state after it.
// Execute: the decision's writes. Status: conditions, counts, history, events, pruning, metrics.
// Every fact it needs is read back from the API objects, so any replica can take over at any point;
// what it writes is idempotent.

import { defaultedPoolSpec } from '../../api/pool-defaults.ts';
import type { NodeConfigPool } from '../../api/types.ts';
import { kubeTime, type StatusCondition } from '../../kube/conditions.ts';
import { type ControllerContext, type Informers, nodeSubject, poolSubject } from '../controller-context.ts';
import type { DecisionExecutor } from '../decision-executor.ts';
import { HealthGates } from '../gates/evaluate-gates.ts';
import {
  compareNodeSets,
  type GateStep,
  gateCondition,
  gateStep,
  type HealthGateCondition,
} from '../gates/gate-step.ts';
import type { KeyReconciler } from '../reconciler.ts';
import { revisionsOfPool } from '../revisions/revision-writer.ts';
import { beginRollout, endRollout, isRolloutOpen, recordCanaryPassed } from '../revisions/rollout-history.ts';
import { ranHealthyOnEveryNode } from '../revisions/rollout-target.ts';
import type { NodeSnapshot, NumberedRevision } from '../rollout/types.ts';
import { MarksWriter } from '../strategies/marks-writer.ts';
import { strategyFor, strategyRuntimes } from '../strategies/registry.ts';
import { rollingUpdateOf } from '../strategies/rolling-settings.ts';
import type {
  RolloutStrategy,
  StrategyDecision,
  StrategyRuntime,
  StrategySnapshot,
  StrategyType,
} from '../strategies/strategy.ts';
import type { StrategyReport } from '../strategies/strategy-status.ts';
import { WaveGate } from '../waves/wave-gate.ts';
import { FailurePolicy, resumedAfterFailure } from './failure-policy.ts';
import { KUBELET_SKEW_REASON, KubeletSkewCheck } from './kubelet-skew.ts';
import { observeRolloutEnd, updatePoolMetrics } from './pool-metrics.ts';
import { PoolObserver, poolMembers } from './pool-observer.ts';
import type { PoolRenderer, PoolRendering } from './pool-render.ts';
import type { PoolState } from './pool-state.ts';
import { buildPoolStatus, conditionChanges } from './pool-status.ts';
import { resolveTarget } from './pool-target.ts';
import { watchPools } from './pool-watches.ts';
import { PoolWriter } from './pool-writer.ts';
import { rebootRoundMessage, rebootRoundToBegin } from './reboot-round.ts';
import { holdDecision, type RenderHold, renderHold } from './render-hold.ts';
import type { RolloutTracker, Tracked } from './rollout-tracker.ts';

export interface ReconcileOutcome {
  /** Reconcile again after this long (soak end, deadline, window), unless something changes first. */
  requeueAfterMs?: number;
}

type Targeted = PoolState & { target: NumberedRevision };

/** What the decide and execute steps leave for the status step. */
interface Rollout {
  state: PoolState;
  decision?: StrategyDecision;
  report?: StrategyReport;
  /** The members as the status counts them. */
  nodes: NodeSnapshot[];
  errors: unknown[];
  /** The HealthGate condition (undefined: keep the last one; null: remove it). */
  healthGate?: HealthGateCondition;
}

export class PoolReconciler implements KeyReconciler {
  readonly kind = 'pool';
  private readonly ctx: ControllerContext;
  private readonly renderer: PoolRenderer;
  private readonly executor: DecisionExecutor;
  private readonly tracker: RolloutTracker;
  private readonly marks: MarksWriter;
  /** The strategies' runtimes (their own reads, writes and watches), by strategy. */
  private readonly runtimes: ReadonlyMap<StrategyType, StrategyRuntime>;
  private readonly writer: PoolWriter;
  private readonly failurePolicy: FailurePolicy;
  private readonly waves: WaveGate;
  private readonly gates: HealthGates;
  private readonly kubeletSkew: KubeletSkewCheck;

  constructor(
    ctx: ControllerContext,
    renderer: PoolRenderer,
    executor: DecisionExecutor,
    tracker: RolloutTracker,
  ) {
    this.ctx = ctx;
    this.renderer = renderer;
    this.executor = executor;
    this.tracker = tracker;
    this.marks = new MarksWriter(ctx, executor);
    this.runtimes = strategyRuntimes({ ctx, patchNode: (node, patch) => executor.patchNode(node, patch) });
    this.writer = new PoolWriter(ctx);
    this.failurePolicy = new FailurePolicy(ctx, this.writer, executor);
    this.waves = new WaveGate(ctx, renderer);
    this.kubeletSkew = new KubeletSkewCheck(ctx);
    this.gates = new HealthGates({
      secret: (namespace, name) => ctx.informers.secrets.get(name, namespace),
      podsOn: (node) => ctx.pods.on(node),
      now: () => ctx.now(),
    });
  }

  initialKeys(informers: Informers): string[] {
    return informers.pools.list().map((p) => p.metadata.name);
  }

  watch(informers: Informers, enqueue: (name: string) => void): void {
    watchPools(informers, this.renderer, enqueue, (pool) => this.forget(pool));
    for (const runtime of this.runtimes.values()) runtime.watch?.(informers, enqueue);
  }

  forget(pool: string): void {
    for (const runtime of this.runtimes.values()) runtime.forget?.(pool);
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
    const strategy = strategyFor(spec.updateStrategy.type);
    const runtime = this.runtimes.get(strategy.type);

    // Observe: members, rendering, target.
    const members = poolMembers(ctx, name);
    const rendering = await this.render(pool, now);
    const revisions: NumberedRevision[] = revisionsOfPool(ctx.informers.revisions, name).map((r) => ({
      name: r.metadata.name,
      number: r.spec.revision,
    }));
    const observer = new PoolObserver(ctx, pool, spec, members.nodes, revisions, now, runtime);
    const initial = await resolveTarget(
      ctx,
      this.writer,
      pool,
      spec,
      rendering,
      revisions,
      now,
      this.waves,
      (r) => ranHealthyOnEveryNode(observer.nodeSnapshots(r), r),
    );

    // While the NodeConfigs do not render, a target other than the last complete revision is held:
    // the strategy decides as if the pool were paused, and no hand-out of it survives (render-hold.ts).
    // So is a target whose kubelet the version skew policy refuses beside the API server (kubelet-skew.ts).
    const held =
      renderHold(rendering.outcome, initial.target?.name, initial.lastComplete?.name) ??
      (await this.skewHold(pool, initial.target, initial.lastComplete, now));

    // Decide and execute (nothing to roll out before the first revision renders).
    const rollout: Rollout = initial.target
      ? await this.rollOut(pool, strategy, observer, { ...initial, target: initial.target }, now, held)
      : { state: initial, nodes: observer.nodeSnapshots(undefined), errors: [] };
    const { state, decision, report, nodes } = rollout;

    // Status.
    const next = buildPoolStatus({
      generation: pool.metadata.generation ?? 0,
      previous: pool.status,
      strategyType: strategy.type,
      ...(report ? { strategy: report } : {}),
      ...(state.target ? { target: state.target } : {}),
      ...(state.lastComplete ? { lastComplete: state.lastComplete.name } : {}),
      history: state.history,
      ...(decision?.rollout ? { decision: decision.rollout } : {}),
      nodes,
      revisionNumbers: observer.revisionNumbers,
      render: rendering.outcome,
      paused: state.paused,
      ...(state.pausedByFailure ? { pausedByFailure: state.pausedByFailure } : {}),
      ...(state.pin ? { pin: state.pin } : {}),
      ...(state.rollback ? { rollback: state.rollback } : {}),
      nodeConflicts: members.conflicts,
      ...(state.wave ? { wave: state.wave } : {}),
      ...(rollout.healthGate !== undefined ? { healthGate: rollout.healthGate } : {}),
      ...(held ? { held } : {}),
      now,
    });
    await this.writer.writeStatus(pool, next);
    const subject = poolSubject(pool);
    for (const change of conditionChanges(
      pool.status?.conditions as StatusCondition[] | undefined,
      next.conditions as StatusCondition[],
    )) {
      const text = `${change.type} ${change.status}${change.reason ? ` (${change.reason})` : ''}${change.message ? `: ${change.message}` : ''}`;
      ctx.recorder.record(subject, change.warning ? 'Warning' : 'Normal', change.reason || change.type, text);
    }

    // A strategy keeping only revisions in use (OnDelete) keeps no history beyond its target.
    const onlyInUse = strategy.keepsOnlyRevisionsInUse === true;
    await this.writer.prune(name, onlyInUse ? 0 : spec.revisionHistoryLimit, revisions, [
      state.target?.name,
      onlyInUse ? undefined : state.lastComplete?.name,
      state.pin?.to,
      state.pin?.from,
      rendering.latest?.name,
    ]);
    updatePoolMetrics(ctx.metrics, name, next, decision?.rollout, nodes);
    if (rollout.errors.length > 0)
      throw new AggregateError(rollout.errors, `pool ${name}: ${rollout.errors.length} node writes failed`);
    const requeueAfterMs = Math.min(
      decision?.requeueAfterMs ?? Number.POSITIVE_INFINITY,
      state.wave?.requeueAfterMs ?? Number.POSITIVE_INFINITY,
      rendering.settling?.waitMs ?? Number.POSITIVE_INFINITY,
    );
    return Number.isFinite(requeueAfterMs) ? { requeueAfterMs } : {};
  }

  /** The kubelet skew hold, with a Warning Event on the pool when it begins or its words change. */
  private async skewHold(
    pool: NodeConfigPool,
    target: NumberedRevision | undefined,
    lastComplete: NumberedRevision | undefined,
    now: number,
  ): Promise<RenderHold | undefined> {
    const hold = await this.kubeletSkew.hold(target, lastComplete, now);
    const previous = pool.status?.conditions?.find((c) => c.type === 'Progressing');
    const known =
      previous?.reason === KUBELET_SKEW_REASON && previous.message?.startsWith(hold?.message ?? '');
    if (hold && !known) this.ctx.recorder.warning(poolSubject(pool), KUBELET_SKEW_REASON, hold.message);
    return hold;
  }

  private async render(pool: NodeConfigPool, now: number): Promise<PoolRendering> {
    const rendering = await this.renderer.render(pool, now);
    if (rendering.created && rendering.latest) {
      this.ctx.recorder.normal(
        poolSubject(pool),
        'RevisionCreated',
        `rendered revision ${rendering.latest.number}: ${rendering.latest.name}`,
      );
    }
    return rendering;
  }

  /**
   * The verdicts first (a resume's retries, the health gate, the failure policy acting once), then the
   * strategy decides once over the snapshot that carries them; execute, and read the nodes back for
   * the status.
   */
  private async rollOut(
    pool: NodeConfigPool,
    strategy: RolloutStrategy,
    observer: PoolObserver,
    given: Targeted,
    now: number,
    held?: RenderHold,
  ): Promise<Rollout> {
    // Held: the strategy sees a paused pool (its nodes' hold says why); the status keeps the real pause.
    const initial: Targeted = held
      ? {
          ...given,
          paused: true,
          pausedByFailure: given.paused
            ? (given.pausedByFailure ?? 'the pool is paused (spec.paused)')
            : held.message,
        }
      : given;
    const judged = await this.judge(pool, strategy, observer, initial, now);
    const { errors, gated, snapshot } = judged;
    let { state } = judged;
    let decision = strategy.decide(snapshot);
    if (held) {
      decision = holdDecision(decision, held, snapshot.nodes);
      // A resume after the failure policy's pause is taken up once the hold ends: until then the
      // Paused condition it is read from stays as it was.
      const resumeLater = resumedAfterFailure(pool, given);
      const previous = pool.status?.conditions?.find((c) => c.type === 'Paused')?.message;
      state = { ...state, paused: given.paused || resumeLater };
      if (given.pausedByFailure || resumeLater)
        state.pausedByFailure = given.pausedByFailure ?? previous ?? 'paused by the failure policy';
      else delete state.pausedByFailure;
    }
    if (!judged.policyActed && decision.rollout)
      this.reportFailures(pool, state.target, decision.rollout, snapshot);
    if (gated?.requeueAfterMs !== undefined && decision.rollout?.complete !== true && !state.paused)
      decision = {
        ...decision,
        requeueAfterMs: Math.min(decision.requeueAfterMs ?? Number.POSITIVE_INFINITY, gated.requeueAfterMs),
      };
    errors.push(
      ...(await this.execute(
        pool,
        strategy.type,
        state.target,
        decision,
        snapshot.nodes.map((n) => n.name),
      )),
    );
    if (decision.canaryPassedAt !== undefined)
      state = {
        ...state,
        history: recordCanaryPassed(state.history, state.target.name, kubeTime(decision.canaryPassedAt)),
      };
    const healthGate = gated ? gateCondition(gated, decision.rollout?.batchHeld) : undefined;
    const after = strategy.report ? observer.observe(state) : snapshot;
    const report = strategy.report?.(after, decision);
    // A pool with no node has completed nothing (issue 33): its rollout stays open until nodes join.
    const done =
      (report ? report.done : decision.rollout?.complete === true) && after.snapshots.length > 0 && !held;
    if (done && isRolloutOpen(state.history, state.target.name)) {
      observeRolloutEnd(this.ctx.metrics, pool.metadata.name, state.history, 'Complete', now);
      const history = endRollout(state.history, state.target.name, 'Complete', kubeTime(now));
      state = { ...state, history, lastComplete: state.target };
    }
    return {
      state,
      decision,
      ...(report ? { report } : {}),
      nodes: [...after.snapshots],
      errors,
      ...(healthGate !== undefined ? { healthGate } : {}),
    };
  }

  /**
   * The verdicts the decision is made over. A pool resumed after the failure policy paused it gives
   * the nodes its strategy names a fresh deadline; the health gate (for a strategy whose batches pass
   * it) is asked; the failure policy judges the nodes with the gate's verdict and acts once, pausing
   * or rolling back (a rollback's target is not held by a gate asked about the previous one).
   */
  private async judge(
    pool: NodeConfigPool,
    strategy: RolloutStrategy,
    observer: PoolObserver,
    initial: Targeted,
    now: number,
  ): Promise<{
    state: Targeted;
    snapshot: StrategySnapshot;
    gated?: GateStep;
    policyActed: boolean;
    errors: unknown[];
  }> {
    const errors: unknown[] = [];
    const resumed = resumedAfterFailure(pool, initial);
    let state = resumed ? this.failurePolicy.reopen(initial, now) : initial;
    let snapshot = observer.observe(state);
    const round = rebootRoundToBegin({
      osReboots: strategy.type === 'RollingUpdate' && snapshot.spec.reboots?.osRequested?.policy === 'Reboot',
      paused: state.paused,
      target: state.target,
      ...(state.lastComplete ? { lastComplete: state.lastComplete } : {}),
      history: state.history,
      nodes: snapshot.snapshots,
    });
    if (round) {
      const message = rebootRoundMessage(round);
      state = {
        ...state,
        history: beginRollout(state.history, state.target, kubeTime(now), 'Superseded', { started: message }),
      };
      this.ctx.metrics.rolloutsStarted.inc({ pool: pool.metadata.name });
      this.ctx.recorder.normal(poolSubject(pool), 'RolloutStarted', `${state.target.name}: ${message}`);
      snapshot = observer.observe(state);
    }
    if (resumed) {
      const retry = strategy.retryOnResume?.(snapshot) ?? [];
      errors.push(...(await this.failurePolicy.retry(pool, retry)));
      if (retry.length > 0) snapshot = observer.observe(state);
    }
    const gated = strategy.healthGate
      ? await gateStep(this.gates, pool.metadata.name, rollingUpdateOf(snapshot.spec).healthGate, {
          revision: state.target.name,
          paused: state.paused,
          rollingBack: state.pin?.to === state.target.name,
          rolloutOpen: isRolloutOpen(state.history, state.target.name),
          nodes: compareNodeSets(state.target.name, snapshot.snapshots),
        })
      : undefined;
    const withGate = (s: StrategySnapshot): StrategySnapshot => ({
      ...s,
      ...(gated?.gate ? { gate: gated.gate } : {}),
      ...(gated?.holdsBatch ? { holdsBatch: gated.holdsBatch } : {}),
    });
    snapshot = withGate(snapshot);
    const verdict = strategy.failureVerdict?.(snapshot);
    if (!verdict?.action) return { state, snapshot, ...(gated ? { gated } : {}), policyActed: false, errors };
    // The failures that tripped the policy are reported as the rollout judged them, before it acts.
    if (verdict.judged) this.reportFailures(pool, state.target, { starts: [], ...verdict.judged }, snapshot);
    const gatedTarget = state.target.name;
    state = await this.failurePolicy.apply(pool, state, verdict.action, now);
    snapshot = observer.observe(state, verdict.action);
    if (state.target.name === gatedTarget) snapshot = withGate(snapshot);
    return { state, snapshot, ...(gated ? { gated } : {}), policyActed: true, errors };
  }

  /** New failures of the pool's rollout: a metric and an Event on each node. */
  private reportFailures(
    pool: NodeConfigPool,
    target: NumberedRevision,
    decision: Tracked,
    snapshot: StrategySnapshot,
  ): void {
    const { ctx } = this;
    for (const failure of this.tracker.observe(
      pool.metadata.name,
      decision,
      snapshot.snapshots,
      snapshot.now,
    )) {
      const node = ctx.informers.nodes.get(failure.name);
      if (node)
        ctx.recorder.warning(
          nodeSubject(node),
          'UpdateFailed',
          `${target.name}: ${failure.failure?.message ?? 'failed'}`,
        );
    }
  }

  /** The decision's writes, in order; returns the writes that failed. */
  private async execute(
    pool: NodeConfigPool,
    type: StrategyType,
    target: NumberedRevision,
    decision: StrategyDecision,
    members: readonly string[],
  ): Promise<unknown[]> {
    const { ctx } = this;
    const name = pool.metadata.name;
    const subject = poolSubject(pool);
    const errors: unknown[] = [];
    for (const w of decision.warnings ?? []) ctx.recorder.warning(subject, w.reason, w.message);
    if (decision.poolPatch !== undefined) await this.writer.patchPool(name, decision.poolPatch);
    // The strategy's own writes (its Leases, say) before the marks; a runtime of a strategy the pool
    // does not use forgets it.
    const runtime = this.runtimes.get(type);
    for (const [other, r] of this.runtimes) if (other !== type) r.forget?.(name);
    if (runtime?.execute) errors.push(...(await runtime.execute(pool, decision)));
    const toWrite = runtime?.annotationsToWrite?.bind(runtime);
    errors.push(...(await this.marks.applyMarks(name, target.name, decision.marks, toWrite)));
    const starts = decision.rollout ?? decision.upgrades;
    if (starts) errors.push(...(await this.executor.execute(pool, target, starts)));
    if (!decision.rollout) {
      // No rollout of the controller's over the whole pool: the others keep no taint or mark of one.
      const covered = new Set(decision.upgrades?.verdicts.map((v) => v.name));
      const rest = members.filter((n) => !covered.has(n));
      errors.push(...(await this.executor.clearRolloutMarks(pool, rest)));
    }
    if (decision.rollout && decision.rollout.starts.length > 0) {
      const { starts: started, budget } = decision.rollout;
      const names = started.map((s) => s.node);
      const list =
        names.length > 8 ? `${names.slice(0, 8).join(', ')} and ${names.length - 8} more` : names.join(', ');
      ctx.recorder.normal(
        subject,
        'NodesStarted',
        `${target.name}: started ${list} (${budget.unavailable}/${budget.maxUnavailable} unavailable)`,
      );
    }
    return errors;
  }
}
