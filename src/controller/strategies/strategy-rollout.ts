// Runs one reconcile of a pool whose strategy is Serial, Spread, OnDelete or OTA: reads the nodes
// and the Serial slots, applies the failure policy where the strategy has one (Spread; OnDelete
// upgrades), decides the node marks with the pure functions of this directory, has them written, and
// reports the pool's conditions. The reconciler owns the pool-level writes (pause, rollback, status).

import { SERIAL_POOL_LABEL, STATE_ANNOTATION, UPGRADE_REVISION_ANNOTATION } from '../../api/node-protocol.ts';
import type { DefaultedPoolSpec } from '../../api/pool-defaults.ts';
import type { NodeConfigPool } from '../../api/types.ts';
import type { Node } from '../../kube/types.ts';
import { type ControllerContext, poolSubject } from '../controller-context.ts';
import type { DecisionExecutor } from '../decision-executor.ts';
import { episodeStart, type RolloutRecord } from '../revisions/rollout-history.ts';
import { decideRollout, failureActionFor } from '../rollout/decide.ts';
import { isHealthy } from '../rollout/node-verdict.ts';
import type {
  FailureAction,
  NodeSnapshot,
  NodeVerdict,
  RevisionRef,
  RollingUpdateSettings,
  RolloutDecision,
} from '../rollout/types.ts';
import { planNodeMarks, type StrategyType } from './node-marks.ts';
import { planUpgrades } from './on-delete-upgrades.ts';
import { serialSlots, slotHandovers } from './serial-slots.ts';
import { spreadSchedule, spreadWindowStart } from './spread-schedule.ts';
import type { StrategyExecutor } from './strategy-executor.ts';
import { failedFor, readStrategyNode } from './strategy-node.ts';
import { type StrategyReport, strategyReport } from './strategy-status.ts';

/** What the reconciler and this run share; the hooks change it (pause, rollback). */
export interface StrategyState {
  target: RevisionRef;
  history: RolloutRecord[];
  lastComplete?: RevisionRef;
  paused: boolean;
  pausedByFailure?: string;
}

export interface StrategyHooks {
  /** Carries out a failure policy action (pause or rollback), updating the state. */
  failure(action: FailureAction): Promise<void>;
  /** Snapshots of the pool's nodes for a target (health, drain needs). */
  snapshot(target: string): NodeSnapshot[];
  patchPool(patch: unknown): Promise<void>;
}

export interface StrategyRun {
  report: StrategyReport;
  /** OnDelete: the decision over the nodes asked to upgrade. */
  decision?: RolloutDecision;
  requeueAfterMs?: number;
}

export class StrategyRollout {
  private readonly ctx: ControllerContext;
  private readonly decisions: DecisionExecutor;
  private readonly marks: StrategyExecutor;

  constructor(ctx: ControllerContext, decisions: DecisionExecutor, marks: StrategyExecutor) {
    this.ctx = ctx;
    this.decisions = decisions;
    this.marks = marks;
  }

  async run(
    pool: NodeConfigPool,
    spec: DefaultedPoolSpec,
    settings: RollingUpdateSettings,
    zoneLabel: string,
    state: StrategyState,
    members: readonly Node[],
    revisionNumbers: ReadonlyMap<string, number>,
    hooks: StrategyHooks,
    errors: unknown[],
  ): Promise<StrategyRun> {
    const { ctx } = this;
    const name = pool.metadata.name;
    const type = spec.updateStrategy.type as Exclude<StrategyType, 'RollingUpdate'>;
    const now = ctx.now();
    const read = () =>
      members.map((n) => readStrategyNode(ctx.informers.nodes.get(n.metadata.name) ?? n, zoneLabel));
    let nodes = read();

    // Serial: the slots the agents hold; slots of deleted nodes are freed.
    let slots: { count: number; holders: ReturnType<typeof serialSlots>['holders'] } | undefined;
    const serial = {
      pool: name,
      slots: spec.updateStrategy.serial?.slots ?? 1,
      leaseDurationSeconds: spec.updateStrategy.serial?.leaseDurationSeconds ?? 600,
    };
    if (type === 'Serial') {
      const leases = ctx.informers.leases
        .list()
        .filter((l) => l.metadata.labels?.[SERIAL_POOL_LABEL] === name);
      const view = serialSlots(
        leases,
        (node) => ctx.informers.nodes.get(node)?.metadata.annotations?.[STATE_ANNOTATION],
        (node) => ctx.informers.nodes.get(node) !== undefined,
      );
      if (view.release.length > 0) {
        errors.push(...(await this.marks.releaseSlots(name, view.release)));
        for (const r of view.release)
          ctx.recorder.normal(
            poolSubject(pool),
            'SlotReleased',
            `released Serial slot ${r.lease}: its holder ${r.node} no longer exists`,
          );
      }
      slots = { count: serial.slots, holders: view.holders.filter((h) => h.state !== 'Gone') };
    }

    // Spread: more failures than the policy tolerates pause the pool or roll it back.
    if (type === 'Spread') {
      const failures: NodeVerdict[] = nodes
        .filter((n) => failedFor(n, state.target.name))
        .map((n) => ({
          name: n.name,
          zone: n.zone,
          phase: 'Failed',
          available: false,
          counted: true,
          touched: true,
          failure: { reason: 'AgentFailed', message: n.message ?? 'failed' },
        }));
      const start = episodeStart(state.history);
      const action = failureActionFor(
        {
          settings,
          paused: state.paused,
          target: state.target,
          ...(state.lastComplete ? { lastComplete: state.lastComplete } : {}),
          ...(start !== undefined ? { episodeStart: start } : {}),
          nodes: [],
          now,
        },
        failures,
      );
      if (action) {
        await hooks.failure(action);
        nodes = read();
      }
    }

    const T = state.target;
    const holdReason =
      (type === 'Serial' || type === 'Spread') && state.paused
        ? (state.pausedByFailure ?? 'the pool is paused (spec.paused)')
        : undefined;
    const record = state.history.findLast((r) => r.name === T.name);
    const startedAt = record ? Date.parse(record.startedAt) : now;
    // The window opens a hand-out lead after the start, so writing every node's time takes no time of it.
    const windowStart = spreadWindowStart(Number.isNaN(startedAt) ? now : startedAt, nodes.length);
    // Validation requires spread.windowSeconds; an object stored before that rule gets a zero window.
    const spread =
      type === 'Spread'
        ? {
            windowStart,
            windowSeconds: spec.updateStrategy.spread?.windowSeconds ?? 0,
          }
        : undefined;
    const marks = planNodeMarks({
      type,
      target: T,
      revisionNumbers,
      nodes,
      ...(holdReason ? { hold: holdReason } : {}),
      serial,
      ...(spread ? { spread } : {}),
      outdatedTaint: spec.updateStrategy.onDelete?.outdatedTaint ?? 'None',
      slotHolders: new Set(slots?.holders.map((h) => h.node) ?? []),
      now,
    });
    errors.push(...(await this.marks.applyMarks(name, T.name, marks)));
    if (marks.length > 0) nodes = read();

    // Serial: a slot its holder released goes straight to the next waiting node.
    if (type === 'Serial' && !holdReason && slots) {
      const handovers = slotHandovers({
        pool: name,
        slots: serial.slots,
        target: T.name,
        leases: ctx.informers.leases.list().filter((l) => l.metadata.labels?.[SERIAL_POOL_LABEL] === name),
        nodes,
        holders: new Set(slots.holders.map((h) => h.node)),
        ready: (node) =>
          (ctx.informers.nodes.get(node)?.status?.conditions ?? []).some(
            (c) => c.type === 'Ready' && c.status === 'True',
          ),
      });
      if (handovers.length > 0)
        errors.push(...(await this.marks.handOverSlots(name, handovers, serial.leaseDurationSeconds)));
    }

    // OnDelete: upgrades on demand, under the RollingUpdate rules.
    let decision: RolloutDecision | undefined;
    let requested: string[] = [];
    if (type === 'OnDelete') {
      const snapshots = hooks.snapshot(T.name);
      const start = episodeStart(state.history);
      const plan = planUpgrades({
        target: T,
        nodes,
        snapshots: new Map(snapshots.map((s) => [s.name, s])),
        revisionNumbers,
        ...(pool.metadata.annotations?.[UPGRADE_REVISION_ANNOTATION] !== undefined
          ? { revisionRequest: pool.metadata.annotations[UPGRADE_REVISION_ANNOTATION] }
          : {}),
        ...(start !== undefined ? { episodeStart: start } : {}),
        progressDeadlineSeconds: settings.progressDeadlineSeconds,
        minReadySeconds: settings.minReadySeconds,
        now,
      });
      requested = plan.requested;
      if (plan.invalidRequest)
        ctx.recorder.warning(poolSubject(pool), 'UpgradeRequestInvalid', plan.invalidRequest);
      if (plan.clearRevisionRequest)
        await hooks.patchPool({ metadata: { annotations: { [UPGRADE_REVISION_ANNOTATION]: null } } });
      if (plan.nodes.length > 0) {
        const subset = new Set(plan.nodes);
        const decide = () =>
          decideRollout({
            settings,
            paused: state.paused,
            target: T,
            // No rollback target: the other nodes were never moved, so a failed upgrade pauses.
            ...(start !== undefined ? { episodeStart: start } : {}),
            nodes: hooks.snapshot(T.name).filter((s) => subset.has(s.name)),
            now,
          });
        decision = decide();
        if (decision.failureAction) {
          await hooks.failure(decision.failureAction);
          decision = decide();
        }
        errors.push(...(await this.decisions.execute(pool, T, decision)));
        nodes = read();
      }
    }

    const healthy = new Map(hooks.snapshot(T.name).map((s) => [s.name, isHealthy(s)]));
    // The times handed out (a late node's differs from the plan), the plan where none is written yet.
    const schedule = spread ? spreadSchedule(nodes, spread.windowStart, spread.windowSeconds) : undefined;
    for (const node of schedule ? nodes : []) {
      const written = node.desired === T.name && node.notBefore ? Date.parse(node.notBefore) : Number.NaN;
      if (!Number.isNaN(written)) schedule?.set(node.name, written);
    }
    const report = strategyReport({
      type,
      target: T,
      nodes,
      healthy: (node) => healthy.get(node) ?? false,
      revisionNumbers,
      paused: state.paused,
      ...(state.pausedByFailure ? { stoppedByFailure: state.pausedByFailure } : {}),
      ...(slots ? { slots } : {}),
      ...(schedule ? { schedule } : {}),
      ...(type === 'OnDelete' ? { upgrade: { requested, ...(decision ? { decision } : {}) } } : {}),
      now,
    });
    return {
      report,
      ...(decision ? { decision } : {}),
      ...(decision?.requeueAfterMs !== undefined ? { requeueAfterMs: decision.requeueAfterMs } : {}),
    };
  }
}
