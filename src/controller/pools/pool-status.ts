// The NodeConfigPool status the controller writes: counts per state and per revision, the conditions
// (Progressing, Complete, Paused, Degraded, RolledBack, RenderDegraded, HealthGate, and kstatus's Ready,
// Reconciling and Stalled derived from them), observedGeneration and the
// rollout history. Pure: from the decision and what the reconciler learned, so it is table-testable, and
// an unchanged world yields an identical status (and no write).

import type { NodeConfigPoolStatus, RenderConflict } from '../../api/types.ts';
import { findCondition, kubeTime, type StatusCondition, setCondition } from '../../kube/conditions.ts';
import { skippedDegraded } from '../drain/skip-status.ts';
import { plural } from '../plural.ts';
import type { RolloutRecord } from '../revisions/rollout-history.ts';
import type { RolloutPin } from '../revisions/rollout-target.ts';
import { isHealthy, rebootPending } from '../rollout/node-verdict.ts';
import { PACKAGE_MANAGER_MISMATCH_CONDITION } from '../rollout/package-manager-fit.ts';
import type { NodeSnapshot, NumberedRevision, RolloutDecision } from '../rollout/types.ts';
import type { StrategyReport } from '../strategies/strategy-status.ts';
import { KSTATUS_CONDITION_TYPES, kstatusConditions } from './kstatus-conditions.ts';
import { recordEpisodes } from './pool-episodes.ts';
import type { RenderHold } from './render-hold.ts';

export interface RenderOutcome {
  /** Why the latest NodeConfigs could not become a revision. */
  problem?: { reason: string; message: string };
  conflicts: RenderConflict[];
  /** The NodeConfigs are settling (changed within the quiet period): not rendered yet. */
  settling?: string;
}

export interface PoolStatusInput {
  generation: number;
  previous: NodeConfigPoolStatus | undefined;
  strategyType: string;
  /** A strategy with a report of its own: its conditions (RollingUpdate's come from the decision). */
  strategy?: StrategyReport;
  target?: NumberedRevision;
  lastComplete?: string;
  history: RolloutRecord[];
  decision?: RolloutDecision;
  nodes: readonly NodeSnapshot[];
  revisionNumbers: ReadonlyMap<string, number>;
  render: RenderOutcome;
  paused: boolean;
  /** The failure policy paused the pool (spec.paused was set by the controller). */
  pausedByFailure?: string;
  pin?: RolloutPin;
  /** Why the pool is pinned (RolledBack condition reason and message). */
  rollback?: { reason: string; message: string };
  /** Nodes selected by this pool and another one (none of them manages them). */
  nodeConflicts: ReadonlyMap<string, readonly string[]>;
  /** A new revision held back by the pools this one waits for (waves). */
  wave?: { reason: string; message: string };
  /**
   * The HealthGate condition (metric, alert and blocking-pod gates): what they said this time; undefined:
   * not evaluated, the last word stays; null: the pool has no such gates, the condition goes.
   */
  healthGate?: { passed: boolean; reason: string; message: string } | null;
  /**
   * The rollout of the target is held while the NodeConfigs do not render (render-hold.ts), or because
   * its kubelet breaks the version skew policy (kubelet-skew.ts).
   */
  held?: RenderHold;
  now: number;
}

/** The reason of Progressing and Complete while a rendering problem holds the rollout. */
export const HELD_REASON = 'RenderHeld';
/** The reason of Complete (and Progressing) for a pool whose nodeSelector selects no node. */
export const NO_NODES_REASON = 'NoNodes';

/** Progressing and Complete while a failed rendering holds the rollout: it stops, and is not complete. */
function withRenderHold(conds: Cond[], held: RenderHold, input: PoolStatusInput): Cond[] {
  const on = count(input.nodes, (n) => n.currentRevision === held.revision);
  const message = `${held.message}; ${on}/${input.nodes.length} nodes on ${held.revision}`;
  return conds.map((c) =>
    c.type === 'Complete' || c.type === 'Progressing'
      ? { ...c, status: 'False', reason: held.conditionReason ?? HELD_REASON, message }
      : c,
  );
}

/**
 * A pool that selects no node is not Complete (issue 33): "0 nodes on …" looked like a finished
 * rollout when a nodeSelector had a typo. Members claimed by another pool too are not its nodes.
 */
function withNoNodes(conds: Cond[], input: PoolStatusInput): Cond[] {
  const claimed = input.nodeConflicts.size;
  const message =
    claimed > 0
      ? `no node is this pool's alone: ${plural(claimed, 'node')} it selects ${claimed === 1 ? 'is' : 'are'} selected by another pool too`
      : 'spec.nodeSelector selects no node; check its labels (kubectl get nodes --show-labels)';
  return conds.map((c) =>
    c.type === 'Complete' || c.type === 'Progressing'
      ? { ...c, status: 'False', reason: NO_NODES_REASON, message }
      : c,
  );
}

// Waves: a held revision makes the pool not Complete; with its current revision done, the hold is what
// Progressing says, otherwise the rollout in progress is, with the waiting revision noted.
function withWaveHold(conds: Cond[], wave: { reason: string; message: string }): Cond[] {
  const complete = conds.find((c) => c.type === 'Complete');
  return conds.map((c) => {
    if (c.type === 'Complete') return { ...c, status: 'False', reason: wave.reason, message: wave.message };
    if (c.type !== 'Progressing') return c;
    return complete?.status === 'True'
      ? { ...c, status: 'False', reason: wave.reason, message: wave.message }
      : { ...c, message: `${c.message}; next: ${wave.message}` };
  });
}

type Cond = Omit<StatusCondition, 'lastTransitionTime' | 'observedGeneration'>;

// Counted over every member on every reconcile: without an array of the matches.
function count<T>(list: readonly T[], match: (item: T) => boolean): number {
  let n = 0;
  for (const item of list) if (match(item)) n++;
  return n;
}

const IN_FLIGHT: ReadonlySet<string> = new Set(['Draining', 'Updating', 'Soaking', 'Busy']);
const APPLYING: ReadonlySet<string> = new Set(['Draining', 'Updating', 'Busy', 'Bootstrapping']);
/** RollingUpdate: not on the target and not started, waiting for their batch (or a resume, a window). */
const WAITING: ReadonlySet<string> = new Set(['Pending', 'Waiting', 'Skipped']);

function names(list: readonly string[], max = 5): string {
  return list.length > max
    ? `${list.slice(0, max).join(', ')} and ${list.length - max} more`
    : list.join(', ');
}

type RevisionCount = { name: string; revision: number; nodes: number; ready: number; failed: number };

/** Nodes per revision (on it, ready on it, failed it), newest first; the target always listed. */
function revisionCounts(input: PoolStatusInput, failedNames: readonly string[]): RevisionCount[] {
  const perRevision = new Map<string, { nodes: number; ready: number; failed: number }>();
  const bucket = (name: string) => {
    const known = perRevision.get(name);
    if (known) return known;
    const fresh = { nodes: 0, ready: 0, failed: 0 };
    perRevision.set(name, fresh);
    return fresh;
  };
  if (input.target) bucket(input.target.name);
  const failedSet = new Set(failedNames);
  for (const node of input.nodes) {
    if (node.currentRevision) {
      const b = bucket(node.currentRevision);
      b.nodes++;
      if (isHealthy(node) && node.desiredRevision === node.currentRevision) b.ready++;
    }
    if (failedSet.has(node.name) && node.desiredRevision) bucket(node.desiredRevision).failed++;
  }
  return [...perRevision.entries()]
    .map(([name, b]) => ({ name, revision: input.revisionNumbers.get(name) ?? 0, ...b }))
    .sort((a, b) => b.revision - a.revision || (a.name < b.name ? -1 : 1));
}

/** A pause the failure policy set says so, and how it ends (not "spec.paused", which reads as a person's). */
function blockedMessage(input: PoolStatusInput, blocked: { reason: string; message: string }): string {
  if (blocked.reason !== 'Paused' || !input.pausedByFailure) return blocked.message;
  return `${FAILURE_PAUSE}: ${input.pausedByFailure}`;
}

/** How a pause the failure policy set reads, and how it ends. */
export const FAILURE_PAUSE =
  'paused by the failure policy (it set spec.paused); fix or revert the change, then resume (nodeherd resume <pool>, or spec.paused false)';

/** Progressing and Complete of a RollingUpdate that is not complete: progress, what blocks it, stalls. */
function rollingProgress(
  input: PoolStatusInput,
  T: string,
  updated: number,
  failedNames: readonly string[],
): Cond[] {
  const verdicts = input.decision?.verdicts ?? [];
  const blocked = input.decision?.blocked;
  const inFlight = count(verdicts, (v) => IN_FLIGHT.has(v.phase));
  const progress = `${updated}/${input.nodes.length} nodes on ${T}, ${plural(inFlight, 'node')} in flight`;
  const drainNote = verdicts.find(
    (v) => (v.phase === 'Draining' && v.detail && v.detail !== 'draining') || v.phase === 'DrainSkipped',
  );
  // A node waiting for its kubelet to report the pinned version (kubelet-skew.ts) says so.
  const kubeletNote = verdicts.find((v) => v.phase === 'Updating' && v.detail?.startsWith('kubelet reports'));
  const stopping =
    blocked && ['Paused', 'FailurePolicy', 'OutsideMaintenanceWindow', 'HealthGate'].includes(blocked.reason);
  // Failed nodes (within maxFailures) keep their place in the budget: with nothing in flight, nothing
  // will free one.
  const stalled =
    blocked !== undefined &&
    ['BudgetExhausted', 'ZoneBudgetExhausted', 'WaitingForCanary'].includes(blocked.reason) &&
    inFlight === 0 &&
    failedNames.length > 0;
  const stallNote = stalled
    ? `; stalled: ${plural(failedNames.length, 'failed node')} (${names(failedNames)}) ${failedNames.length === 1 ? 'holds' : 'hold'} the budget; fix or remove them, or raise maxUnavailable`
    : '';
  return [
    {
      type: 'Progressing',
      status: stopping || stalled ? 'False' : 'True',
      reason: stalled ? 'Stalled' : (blocked?.reason ?? 'RollingUpdate'),
      message: `${progress}${blocked ? `; ${blockedMessage(input, blocked)}` : ''}${stallNote}${drainNote ? `; ${drainNote.name}: ${drainNote.detail}` : ''}${kubeletNote ? `; ${kubeletNote.name}: ${kubeletNote.detail}` : ''}`,
    },
    { type: 'Complete', status: 'False', reason: 'RolloutInProgress', message: progress },
  ];
}

/** Progressing and Complete: no revision yet, the strategy's report, or the rollout decision's. */
function progressConditions(input: PoolStatusInput, updated: number, failedNames: readonly string[]): Cond[] {
  const T = input.target?.name;
  if (!T) {
    const message = 'no revision could be rendered yet';
    return [
      { type: 'Progressing', status: 'False', reason: 'NoRevision', message },
      { type: 'Complete', status: 'False', reason: 'NoRevision', message },
    ];
  }
  if (input.strategy)
    return [
      { type: 'Progressing', ...input.strategy.progressing },
      { type: 'Complete', ...input.strategy.complete },
    ];
  if (!input.decision?.complete) return rollingProgress(input, T, updated, failedNames);
  const skipped = input.decision.verdicts.filter((v) => v.phase === 'Skipped').map((v) => v.name);
  const note =
    skipped.length > 0
      ? `; ${plural(skipped.length, 'NotReady node')} will be updated when Ready: ${names(skipped)}`
      : '';
  return [
    {
      type: 'Progressing',
      status: 'False',
      reason: 'RolloutComplete',
      message: `every node runs ${T}${note}`,
    },
    {
      type: 'Complete',
      status: 'True',
      reason: 'RolloutComplete',
      message: `${plural(updated, 'node')} on ${T}${note}`,
    },
  ];
}

/** Degraded: failed nodes, nodes claimed by two pools, unreadable windows. */
function degradedCondition(input: PoolStatusInput, failedNames: readonly string[]): Cond {
  const { decision } = input;
  const degraded: string[] = [];
  let degradedReason = '';
  if (input.strategy?.degraded) {
    degradedReason = input.strategy.degraded.reason;
    degraded.push(input.strategy.degraded.message);
  }
  if (failedNames.length > 0) {
    degradedReason ||= 'NodesFailed';
    const details = (decision?.failures ?? [])
      .slice(0, 5)
      .map((f) => `${f.name}: ${f.failure?.message ?? f.phase}`);
    degraded.push(`${plural(failedNames.length, 'node')} failed: ${details.join('; ')}`);
  }
  const skipped = skippedDegraded(decision?.verdicts ?? []);
  if (skipped) {
    degradedReason ||= 'DrainSkipped';
    degraded.push(skipped);
  }
  if (input.nodeConflicts.size > 0) {
    degradedReason ||= 'NodeInMultiplePools';
    const list = [...input.nodeConflicts.entries()].map(([node, pools]) => `${node} (${pools.join(', ')})`);
    degraded.push(
      `${plural(list.length, 'node')} selected by more than one pool, so managed by none: ${names(list)}`,
    );
  }
  if (decision?.window.error) {
    degradedReason ||= 'InvalidMaintenanceWindow';
    degraded.push(`maintenance windows: ${decision.window.error}`);
  }
  return degraded.length > 0
    ? { type: 'Degraded', status: 'True', reason: degradedReason, message: degraded.join('; ') }
    : { type: 'Degraded', status: 'False', reason: 'AsExpected', message: '' };
}

export function buildPoolStatus(input: PoolStatusInput): NodeConfigPoolStatus {
  const { decision, target, nodes } = input;
  const now = kubeTime(input.now);
  const verdicts = decision?.verdicts ?? [];
  const T = target?.name;
  const failedNames = verdicts.filter((v) => v.phase === 'Failed').map((v) => v.name);
  const drifted = count(nodes, (n) => n.drifted === true);
  const rebootRequired = count(nodes, (n) => n.rebootWanted === true && !rebootPending(n));
  const updated = T ? count(nodes, (n) => n.currentRevision === T) : 0;
  const ready = T
    ? count(nodes, (n) => n.currentRevision === T && n.desiredRevision === T && isHealthy(n))
    : 0;
  const { episodes, droppedBefore } = recordEpisodes({
    previous: input.previous?.episodes,
    droppedBefore: input.previous?.episodesDroppedBefore,
    nodes,
    target: T,
    rollingBack: input.pin !== undefined && input.pin.to === T,
    now: input.now,
  });
  const status: NodeConfigPoolStatus = {
    observedGeneration: input.generation,
    ...(T ? { targetRevision: T } : {}),
    ...(input.lastComplete ? { currentRevision: input.lastComplete } : {}),
    revisions: revisionCounts(input, failedNames),
    nodes: nodes.length,
    updated,
    ready,
    unavailable: decision
      ? count(verdicts, (v) => !v.available)
      : count(nodes, (n) => !isHealthy(n) || n.cordoned),
    failed: input.strategy ? input.strategy.failed.length : failedNames.length,
    applying: input.strategy ? input.strategy.applying : count(verdicts, (v) => APPLYING.has(v.phase)),
    updateAvailable: input.strategy?.updateAvailable ?? 0,
    waiting: input.strategy ? input.strategy.waiting : count(verdicts, (v) => WAITING.has(v.phase)),
    // Omitted when none, so pools that never drift keep the status they had.
    ...(drifted > 0 ? { drifted } : {}),
    ...(rebootRequired > 0 ? { rebootRequired } : {}),
    ...(decision?.window.nextOpening !== undefined
      ? { nextWindowOpen: kubeTime(decision.window.nextOpening) }
      : {}),
    ...(decision?.window.open && decision.window.closesAt !== undefined
      ? { windowClosesAt: kubeTime(decision.window.closesAt) }
      : {}),
    history: input.history,
    // What happened to each node (pool-episodes.ts): omitted while nothing has.
    ...(episodes.length > 0 ? { episodes } : {}),
    ...(droppedBefore !== undefined ? { episodesDroppedBefore: droppedBefore } : {}),
    ...(input.render.conflicts.length > 0 ? { conflicts: input.render.conflicts } : {}),
  };

  let progress = progressConditions(input, updated, failedNames);
  if (input.wave) progress = withWaveHold(progress, input.wave);
  if (input.held) progress = withRenderHold(progress, input.held, input);
  else if (T && nodes.length === 0) progress = withNoNodes(progress, input);
  const conds: Cond[] = [
    ...progress,
    input.paused
      ? input.pausedByFailure
        ? { type: 'Paused', status: 'True', reason: 'FailurePolicy', message: input.pausedByFailure }
        : { type: 'Paused', status: 'True', reason: 'PausedByUser', message: 'spec.paused is true' }
      : { type: 'Paused', status: 'False', reason: 'NotPaused', message: '' },
    degradedCondition(input, failedNames),
    input.pin && input.rollback
      ? { type: 'RolledBack', status: 'True', reason: input.rollback.reason, message: input.rollback.message }
      : { type: 'RolledBack', status: 'False', reason: 'NotRolledBack', message: '' },
    input.render.problem
      ? { type: 'RenderDegraded', status: 'True', ...input.render.problem }
      : input.render.settling
        ? { type: 'RenderDegraded', status: 'False', reason: 'Settling', message: input.render.settling }
        : { type: 'RenderDegraded', status: 'False', reason: 'Rendered', message: '' },
  ];
  // HealthGate: True while the gates pass; False with MetricGateFailed, AlertFiring, BlockingPods or GateUnavailable.
  if (input.healthGate) {
    const { passed, reason, message } = input.healthGate;
    conds.push({ type: 'HealthGate', status: passed ? 'True' : 'False', reason, message });
  }
  // PackageManagerMismatch: only while a node is not started for its package manager (then it goes).
  conds.push(...kstatusConditions(conds));
  const refused = nodes.filter((n) => n.refused !== undefined && n.desiredRevision !== T);
  if (refused.length > 0) {
    const list = refused.slice(0, 5).map((n) => `${n.name} (${n.refused})`);
    conds.push({
      type: PACKAGE_MANAGER_MISMATCH_CONDITION,
      status: 'True',
      reason: 'NotStarted',
      message: `${plural(refused.length, 'node')} not started on ${T}: ${list.join('; ')}`,
    });
  }
  let conditions = (input.previous?.conditions ?? []) as StatusCondition[];
  if (input.healthGate === null) conditions = conditions.filter((c) => c.type !== 'HealthGate');
  if (refused.length === 0) {
    conditions = conditions.filter((c) => c.type !== PACKAGE_MANAGER_MISMATCH_CONDITION);
  }
  for (const c of conds)
    conditions = setCondition(conditions, { ...c, observedGeneration: input.generation }, now);
  status.conditions = conditions as NodeConfigPoolStatus['conditions'];
  return status;
}

export interface ConditionChange {
  type: string;
  status: string;
  reason: string;
  message: string;
  warning: boolean;
}

const WARN_WHEN_TRUE = new Set([
  'Degraded',
  'RenderDegraded',
  'RolledBack',
  PACKAGE_MANAGER_MISMATCH_CONDITION,
]);
const DERIVED: ReadonlySet<string> = new Set(KSTATUS_CONDITION_TYPES);

/** Conditions whose status or reason changed: each becomes an Event on the pool. */
export function conditionChanges(
  before: readonly StatusCondition[] | undefined,
  after: readonly StatusCondition[] | undefined,
): ConditionChange[] {
  const changes: ConditionChange[] = [];
  for (const c of after ?? []) {
    // Derived for GitOps tools from the others, whose changes already make Events.
    if (DERIVED.has(c.type)) continue;
    const old = findCondition(before, c.type);
    if (old && old.status === c.status && old.reason === c.reason) continue;
    if (!old && c.status !== 'True' && c.type !== 'HealthGate') continue;
    const warning =
      (c.status === 'True' && WARN_WHEN_TRUE.has(c.type)) ||
      (c.type === 'Paused' && c.reason === 'FailurePolicy') ||
      (c.type === 'HealthGate' && c.status === 'False');
    changes.push({
      type: c.type,
      status: c.status,
      reason: c.reason ?? '',
      message: c.message ?? '',
      warning,
    });
  }
  return changes;
}
