// The one shape every NodeConfigPool update strategy has. A strategy is a pure decision: from a
// snapshot of the pool (its state, its nodes as the rollout and the strategies see them, the Serial
// slots) to what the nodes should carry (marks), which nodes the controller starts itself (a rollout
// decision), and what the failure policy should do. The pool reconciler observes, asks the strategy,
// carries the decision out and writes the status; so a new strategy is one folder implementing this
// interface (and a StrategyDescription for the CLI) plus its lines in registry.ts and descriptions.ts
// (and its value in the API schema's enum).

import type { DefaultedPoolSpec } from '../../api/pool-defaults.ts';
import type { NodeConfigPool } from '../../api/types.ts';
import type { RolloutRecord } from '../revisions/rollout-history.ts';
import type {
  FailureAction,
  GateVerdict,
  NodeSnapshot,
  RevisionRef,
  RollingUpdateSettings,
  RolloutDecision,
} from '../rollout/types.ts';
import type { NodeMarks, StrategyMarks, StrategyType } from './node-marks.ts';
import type { SlotHandover, SlotView } from './serial/serial-slots.ts';
import type { StrategyNode } from './strategy-node.ts';
import type { StrategyReport, StrategyReporter } from './strategy-status.ts';

export type { StrategyType } from './node-marks.ts';

/** Everything a strategy may look at, read from the caches at one moment. */
export interface StrategySnapshot {
  pool: NodeConfigPool;
  spec: DefaultedPoolSpec;
  /** The RollingUpdate parameters (schema defaults when the pool sets none). */
  settings: RollingUpdateSettings;
  zoneLabel: string;
  target: RevisionRef;
  lastComplete?: RevisionRef;
  history: readonly RolloutRecord[];
  paused: boolean;
  /** Why the failure policy paused the pool, while it stays paused. */
  pausedByFailure?: string;
  /** The failure policy already acted in this reconcile; this is the decision made after it. */
  failureApplied?: FailureAction;
  /** The pool's members as the strategies' marks see them. */
  nodes: readonly StrategyNode[];
  /** The pool's members as the rollout decision sees them (health, drain needs), for the target. */
  snapshots: readonly NodeSnapshot[];
  revisionNumbers: ReadonlyMap<string, number>;
  /** Serial slot Leases labelled for this pool. */
  slots: SlotView;
  now: number;
  /** The pool's health gate holds or fails (src/controller/gates): RollingUpdate starts no batch, or fails. */
  gate?: GateVerdict;
}

/** What a strategy wants done. The reconciler carries it out in this order. */
export interface StrategyDecision {
  /** Serial slots to free (holder Node gone). */
  releaseSlots?: SlotView['release'];
  /** Serial: free or finished slots to give to waiting nodes, before the marks (compare-and-swap on each Lease). */
  handOverSlots?: SlotHandover[];
  /**
   * Serial: the nodes still waiting for a slot after handOverSlots, in rollout order; a slot whose
   * holder finishes before the next reconcile goes to the first of them at once (SerialHandoff).
   */
  slotQueue?: { target: string; nodes: string[] };
  /** Warning Events on the pool (reason, message). */
  warnings?: { reason: string; message: string }[];
  /** A merge patch of the pool itself (e.g. clearing a finished upgrade request). */
  poolPatch?: unknown;
  /** Annotations and taints each node should carry. */
  marks: NodeMarks[];
  /** The pool's own rollout (RollingUpdate): executed, tracked, and the source of the pool's status. */
  rollout?: RolloutDecision;
  /** A rollout over some nodes only (OnDelete upgrades): executed; the strategy's report covers it. */
  upgrades?: RolloutDecision;
  /** Nodes asked to upgrade (OnDelete), for the report. */
  requested?: string[];
  /** More failures than the failure policy tolerates: pause or roll back (the reconciler does it once). */
  failureAction?: FailureAction;
  /** Spread: the canary passed now (ms); recorded in the open rollout's history record. */
  canaryPassedAt?: number;
  requeueAfterMs?: number;
}

export interface RolloutStrategy {
  type: StrategyType;
  /** Pure: same snapshot, same decision. */
  decide(snapshot: StrategySnapshot): StrategyDecision;
  /** What the strategy wants on each node (<name>-marks.ts); decide plans its marks with it. */
  marks: StrategyMarks;
  /** The strategy's notes in its report (<name>-report.ts); report builds on it. */
  reportNotes?: StrategyReporter;
  /**
   * The pool's Progressing/Complete/Degraded from the nodes after the decision was carried out.
   * Absent: the conditions come from `decision.rollout` (RollingUpdate).
   */
  report?(after: StrategySnapshot, decision: StrategyDecision): StrategyReport;
  /** Resumed after the failure policy paused the pool: nodes to give a fresh deadline. */
  retryOnResume?(decision: StrategyDecision): string[];
  /** Revisions no node uses are deleted at once (no history kept beyond the target). */
  keepsOnlyRevisionsInUse?: boolean;
}
