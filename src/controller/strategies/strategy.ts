// The one shape every NodeConfigPool update strategy has. A strategy is a pure decision: from a
// snapshot of the pool (its state, its nodes as the rollout and the strategies see them, and what the
// strategy observes of its own) to what the nodes should carry (marks), which nodes the controller
// starts itself (a rollout decision), and what the failure policy should do. What a strategy reads,
// writes and watches beyond the nodes' marks and starts (Leases it hands out, say) is its runtime, kept
// in its folder too. The pool reconciler observes, asks the strategy, carries the decision out and writes
// the status; so a new strategy is one folder implementing this interface (and a StrategyDescription
// for the CLI) plus its lines in registry.ts and descriptions.ts (and its value in the API schema's
// enum).

import type { DefaultedPoolSpec } from '../../api/pool-defaults.ts';
import type { NodeConfigPool } from '../../api/types.ts';
import type { Node } from '../../kube/types.ts';
import type { ControllerContext, Informers } from '../controller-context.ts';
import type { NodePatch } from '../node-updates.ts';
import type { RolloutRecord } from '../revisions/rollout-history.ts';
import type { RolloutJudgement } from '../rollout/decide.ts';
import type { NodeOrder } from '../rollout/rollout-order.ts';
import type {
  FailureAction,
  GateVerdict,
  NodeSnapshot,
  NumberedRevision,
  RollingUpdateSettings,
  RolloutDecision,
} from '../rollout/types.ts';
import type { NodeMarks, StrategyType } from './node-marks.ts';
import type { StrategyNode } from './strategy-node.ts';
import type { StrategyReport } from './strategy-status.ts';

export type { StrategyType } from './node-marks.ts';

/** Everything a strategy may look at, read from the caches at one moment. */
export interface StrategySnapshot<Own = unknown> {
  pool: NodeConfigPool;
  spec: DefaultedPoolSpec;
  /** The RollingUpdate parameters (schema defaults when the pool sets none). */
  settings: RollingUpdateSettings;
  zoneLabel: string;
  target: NumberedRevision;
  lastComplete?: NumberedRevision;
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
  /** What the strategy's runtime observed for this pool (StrategyRuntime.observe); undefined without one. */
  own: Own;
  now: number;
  /** The pool's health gate holds or fails (src/controller/gates): RollingUpdate starts no batch, or fails. */
  gate?: GateVerdict;
  /** The gates that look at the batch itself (blocking pods): a hold starts none of it. */
  holdsBatch?: (nodes: readonly string[]) => GateVerdict | undefined;
  /** The pool's order (spec.rolloutOrder) with its keys; absent: Interleaved. */
  order?: NodeOrder;
}

/** What the failure policy is to do, judged from a snapshot before the strategy decides from it. */
export interface FailureVerdict {
  /** More failures than the failure policy tolerates: pause or roll back (the reconciler does it once). */
  action?: FailureAction;
  /** The pool's own rollout judged (RollingUpdate): the failures it reports when the policy acts. */
  judged?: RolloutJudgement;
}

/**
 * What a strategy wants done, as every strategy says it. A strategy with writes of its own extends it
 * (its runtime's execute carries those out before the marks); the reconciler writes the warnings, the
 * pool patch, the marks and the starts, in that order.
 */
export interface StrategyDecision {
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
  /** The canary passed now (ms); recorded in the open rollout's history record. */
  canaryPassedAt?: number;
  requeueAfterMs?: number;
}

export interface RolloutStrategy<Decision extends StrategyDecision = StrategyDecision, Own = unknown> {
  type: StrategyType;
  /**
   * Pure: same snapshot, same decision. Made once per reconcile, over a snapshot that carries the
   * verdicts: the health gate's (StrategySnapshot.gate, holdsBatch) and the failure policy's
   * (failureApplied, and the state it left).
   */
  decide(snapshot: StrategySnapshot<Own>): Decision;
  /** Its batches pass the pool's health gate (rollingUpdate.healthGate), evaluated before it decides. */
  healthGate?: boolean;
  /** The failure policy's verdict on the snapshot (absent: it never fails a rollout). */
  failureVerdict?(snapshot: StrategySnapshot<Own>): FailureVerdict;
  /**
   * The pool's Progressing/Complete/Degraded from the nodes after the decision was carried out.
   * Absent: the conditions come from `decision.rollout` (RollingUpdate).
   */
  report?(after: StrategySnapshot<Own>, decision: Decision): StrategyReport;
  /** Resumed after the failure policy paused the pool: nodes to give a fresh deadline. */
  retryOnResume?(snapshot: StrategySnapshot<Own>): string[];
  /** Revisions no node uses are deleted at once (no history kept beyond the target). */
  keepsOnlyRevisionsInUse?: boolean;
  /** What it reads, writes and watches of its own, one per controller (absent: marks and starts only). */
  runtime?(io: StrategyIO): StrategyRuntime<Decision, Own>;
}

/** What a strategy's runtime may use: the controller's caches and client, and the Node patch. */
export interface StrategyIO {
  ctx: ControllerContext;
  patchNode(name: string, patch: NodePatch): Promise<Node>;
}

export interface StrategyRuntime<Decision extends StrategyDecision = StrategyDecision, Own = unknown> {
  /** What the strategy reads for a pool besides its nodes (StrategySnapshot.own), from the caches. */
  observe(pool: NodeConfigPool): Own;
  /** The decision's writes of its own, before the marks; returns the writes that failed. */
  execute?(pool: NodeConfigPool, decision: Decision): Promise<unknown[]>;
  /** A mark's annotations as they are to be written now, the Node as the cache has it. */
  annotationsToWrite?(mark: NodeMarks, node: Node): Record<string, string | null>;
  /** Subscribes to the informers it needs; `enqueue` queues a pool. */
  watch?(informers: Informers, enqueue: (pool: string) => void): void;
  /** The pool is gone or uses another strategy now: what was kept for it goes. */
  forget?(pool: string): void;
}
