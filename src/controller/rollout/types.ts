// The inputs and outputs of the rollout decision. Everything here is plain data: the reconciler builds
// the inputs from the API objects, the pure decision function turns them into what to do.

import type { PrestageReport } from '../../api/node-protocol.ts';
import type { IntOrPercent } from './int-or-percent.ts';
import type { MaintenanceWindowSpec, WindowStatus } from './maintenance-windows.ts';
import type { NodeOrder } from './rollout-order.ts';

/** What the decision needs to know about one node of the pool. */
export interface NodeSnapshot {
  name: string;
  /** Value of the pool's zone label ('' when unlabelled). */
  zone: string;
  /** Node condition Ready is True. */
  ready: boolean;
  /**
   * Why Ready is not True, as the condition says (KubeletNotReady, NodeStatusUnknown: the kubelet
   * stopped posting status), or 'no Ready condition'; absent while Ready.
   */
  notReadyReason?: string;
  /** The Node is being deleted. */
  deleting: boolean;
  /** spec.unschedulable, whoever set it. */
  cordoned: boolean;
  /** The controller cordoned it (and will uncordon it). */
  cordonedByUs: boolean;
  desiredRevision?: string;
  currentRevision?: string;
  /** The agent's nodeherd.io/state. */
  agentState?: string;
  agentMessage?: string;
  /** NodeConfigReady's message while the agent reports a failure: the reason and its excerpt (journal lines). */
  failureDetail?: string;
  /** Node condition NodeConfigReady is True. */
  configReady: boolean;
  /** Node condition ConfigDrift is True: the agent found drift it did not repair. */
  drifted?: boolean;
  /** The health gate's pods on the node are Ready (true when there is no gate). */
  podsReady: boolean;
  /**
   * Why the node's kubelet is not the one its revision pins (src/api/kubelet-version.ts): the Node's
   * nodeInfo.kubeletVersion against the revision's kubelet package; absent when it is, or none is pinned.
   */
  kubeletWaiting?: string;
  /** Since when the node has been healthy, as far as known (ms). */
  healthySince?: number;
  /** The node was seen healthy on its desired revision after its update started: being unhealthy now is a regression. */
  wasHealthy: boolean;
  /** When the Ready condition last changed (ms): for a NotReady node, since when it is down. */
  readyChangedAt?: number;
  /** When the Node object was created (ms). */
  createdAt?: number;
  /** When the controller started the node's current update (ms). */
  updateStartedAt?: number;
  /**
   * When the progress deadline's clock started (ms), if later than updateStartedAt: the update began
   * before this controller process watched, and only time it observed counts against the node.
   */
  deadlineFrom?: number;
  /** The revision the node is being drained for (desired-revision follows once drained). */
  drainingFor?: string;
  /** The plan from the node's current revision to the target needs a drain (Drain or Reboot). */
  needsDrain: boolean;
  /** Why the drain does not progress (e.g. a PodDisruptionBudget), when it does not. */
  drainBlocked?: string;
  /**
   * The OS asks for a reboot: condition nodeherd.io/RebootRequired True with a reason other than
   * Rebooting (the agent is not already rebooting for a request).
   */
  rebootWanted?: boolean;
  /** nodeherd.io/reboot-requested: the controller asked the node to reboot (an opaque id). */
  rebootRequested?: string;
  /** nodeherd.io/rebooted: the request id the agent has rebooted for. */
  rebooted?: string;
  /** nodeherd.io/package-manager: the package manager the node's agent reported (absent: apt). */
  packageManager?: string;
  /**
   * Why the node cannot take the target at all (its package manager is not the target's:
   * package-manager-fit.ts): it is not started, and not counted or failed for it.
   */
  refused?: string;
  /** The plan from the node's current revision to the target installs packages (something to download). */
  needsDownload?: boolean;
  /** nodeherd.io/prestage-revision: the revision the controller told the node to pre-stage. */
  prestageRevision?: string;
  /** nodeherd.io/prestage-asked-at: when the controller asked (ms); spec.prestage.timeoutSeconds counts from it. */
  prestageAskedAt?: number;
  /** nodeherd.io/prestaged: the agent's answer (never trusted beyond its revision and outcome). */
  prestaged?: PrestageReport;
}

/** spec.drain.onTimeout Skip, as the decision applies it. */
export interface DrainSkip {
  /** After this long draining (from the update's start) the node is skipped. */
  timeoutSeconds: number;
  /** The most nodes skipped at once; a drain timing out beyond them fails at the progress deadline. */
  maxSkipped: number;
}

/** A pool's revision by name and number (the agent's RevisionRef carries its hash and spec instead). */
export interface NumberedRevision {
  name: string;
  number: number;
}

export interface RollingUpdateSettings {
  maxUnavailable: IntOrPercent;
  maxUnavailablePerZone?: IntOrPercent;
  canary?: { nodes: IntOrPercent };
  minReadySeconds: number;
  progressDeadlineSeconds: number;
  failurePolicy: { action: 'Pause' | 'Rollback'; maxFailures: number };
  maintenanceWindows?: MaintenanceWindowSpec[];
}

export interface RolloutInput {
  settings: RollingUpdateSettings;
  paused: boolean;
  target: NumberedRevision;
  /** The revision of the last completed rollout (status.currentRevision): where a rollback returns. */
  lastComplete?: NumberedRevision;
  /**
   * When the current rollout episode began (the first rollout since the last completed one, rollbacks
   * included); undefined when no rollout is in progress. Nodes started since then are "touched": their
   * trouble is the rollout's trouble.
   */
  episodeStart?: number;
  nodes: readonly NodeSnapshot[];
  now: number;
  /** The pool's health gate does not pass (src/controller/gates): no node starts; a failure trips the policy. */
  gate?: GateVerdict;
  /**
   * The gates that look at the batch itself (blocking pods on the nodes it would take): a hold here
   * starts none of them. Asked only of a batch the rest of the decision would start.
   */
  holdsBatch?: (nodes: readonly string[]) => GateVerdict | undefined;
  /**
   * spec.reboots.osRequested.policy is Reboot: a node whose OS asks for a reboot is not done until it
   * rebooted, and goes through the same batches (budget, canary, windows, gates, drain, soak) as a
   * node that is not on the target.
   */
  osReboots?: boolean;
  /**
   * spec.prestage: the nodes next in line download the target's packages before their turn (at most
   * maxConcurrent downloading at once); a node that needs a download starts only once it succeeded,
   * and a failed download fails it before anything is disrupted.
   */
  prestage?: {
    maxConcurrent: number;
    /**
     * A node whose turn it is and that has not answered its ask (prestageAskedAt) within this long
     * starts anyway (NodeStart.prestageTimedOut): its packages download inside its turn.
     */
    timeoutSeconds: number;
  };
  /**
   * spec.drain.onTimeout Skip: a drain that has not finished after timeoutSeconds leaves its node
   * cordoned, counted as unavailable and still draining, and the rollout goes on without it (up to
   * maxSkipped such nodes). Absent: a drain runs until the progress deadline fails the node.
   */
  drainSkip?: DrainSkip;
  /** The pool's order (spec.rolloutOrder); absent: Interleaved. */
  order?: NodeOrder;
  /**
   * spec.rolloutOrder.preferNoScheduleNext: while a batch drains, the next batch is tainted
   * PreferNoSchedule (RolloutDecision.taintNext), so evicted pods land on nodes already done.
   */
  taintNext?: boolean;
}

/** A health gate that holds the rollout, or fails it (metric or alert gates). */
export interface GateVerdict {
  verdict: 'hold' | 'fail';
  reason: string;
  message: string;
}

/** Where a node stands in the rollout. */
export type NodePhase =
  /** Joined the pool and never applied anything: gets the target at once (bootstrap is not an update). */
  | 'Bootstrapping'
  /** NotReady before its turn: neither counted nor blocking; updated once Ready again. */
  | 'Skipped'
  /** Not on the target yet, available: updating it uses the budget. */
  | 'Pending'
  /** Not on the target yet and already unavailable: updating it costs no budget. */
  | 'Waiting'
  /** Still applying an older revision it was given; it finishes first. */
  | 'Busy'
  /** Cordoned and being drained for the target. */
  | 'Draining'
  /**
   * Draining past spec.drain.timeoutSeconds with onTimeout Skip: stays cordoned and unavailable (in
   * the status's count, outside maxUnavailable: maxSkipped bounds it), its drain goes on, the rollout
   * goes on without it; neither failed nor done.
   */
  | 'DrainSkipped'
  /** Given the target, not healthy yet. */
  | 'Updating'
  /** Healthy on the target, within minReadySeconds. */
  | 'Soaking'
  /** On the target, healthy and soaked. */
  | 'Updated'
  /** On the target but not healthy, outside a rollout (nothing to blame it on). */
  | 'Unhealthy'
  /** Failed the target: the agent said so, the deadline passed, or it turned unhealthy after its update. */
  | 'Failed';

export type FailureReason =
  | 'AgentFailed'
  | 'ProgressDeadlineExceeded'
  | 'BecameUnhealthy'
  | 'DrainTimeout'
  /** The pre-stage's download failed (a version the repositories do not have): nothing was disrupted. */
  | 'DownloadFailed';

export interface NodeVerdict {
  name: string;
  zone: string;
  phase: NodePhase;
  /** Available: counts as capacity; every other node (except Skipped and Bootstrapping) uses budget. */
  available: boolean;
  /** Counted against maxUnavailable. */
  counted: boolean;
  /** Started during the current rollout episode. */
  touched: boolean;
  failure?: { reason: FailureReason; message: string };
  /** Why the node is not available, for status messages. */
  detail?: string;
}

export interface NodeStart {
  node: string;
  revision: string;
  /** Cordon and drain before giving the node the revision. */
  drain: boolean;
  /** The node was already unavailable: starting it uses no budget. */
  free: boolean;
  /**
   * The OS asks for a reboot (policy Reboot): once drained the node gets nodeherd.io/reboot-requested
   * in the same patch as its revision, so a revision that reboots anyway reboots once for both.
   */
  reboot?: boolean;
  /**
   * Pre-staging: the node was asked to download the target's packages and did not answer within
   * spec.prestage.timeoutSeconds; it starts anyway and downloads inside its turn (a Warning Event says so).
   */
  prestageTimedOut?: { askedAt: number; timeoutSeconds: number };
}

export type UncordonReason = 'Healthy' | 'Failed' | 'Aborted' | 'Idle';

export type BlockReason =
  | 'Paused'
  | 'FailurePolicy'
  | 'OutsideMaintenanceWindow'
  | 'WaitingForCanary'
  | 'BudgetExhausted'
  | 'ZoneBudgetExhausted'
  | 'HealthGate'
  /** The nodes whose turn it is are still downloading their packages (spec.prestage). */
  | 'Prestaging';

export interface FailureAction {
  action: 'Pause' | 'Rollback';
  /** For Rollback: the revision the pool returns to. */
  to?: NumberedRevision;
  message: string;
}

export interface Budget {
  maxUnavailable: number;
  /** Nodes counted unavailable after this decision's starts. */
  unavailable: number;
  zones: Record<string, { max: number; unavailable: number }>;
  canary?: { size: number; passed: boolean };
}

export interface RolloutDecision {
  /** In rollout order. */
  verdicts: NodeVerdict[];
  /** Nodes to give the target at once. */
  bootstrap: string[];
  starts: NodeStart[];
  uncordon: { node: string; reason: UncordonReason }[];
  /** Nodes whose drain for an outdated revision stops (their draining-for annotation is cleared). */
  abortDrain: string[];
  /** Nodes whose drain for the target goes on. */
  drain: string[];
  /** Of the nodes draining (drain and starts), those to be asked for a reboot once drained. */
  rebootAfterDrain: string[];
  /**
   * The nodes that carry nodeherd.io/prestage-revision (the target) after this decision, in rollout
   * order; every other node of the pool has it removed. Empty without spec.prestage.
   */
  prestage: string[];
  failures: NodeVerdict[];
  failureAction?: FailureAction;
  /** Every node is on the target and available (Skipped nodes aside). */
  complete: boolean;
  /** Why nodes that wait were not started. */
  blocked?: { reason: BlockReason; message: string };
  /** The gate that held the batch this decision would have started (RolloutInput.holdsBatch). */
  batchHeld?: GateVerdict;
  budget: Budget;
  window: WindowStatus;
  /** When something time-based changes (soak over, deadline, window opens). */
  requeueAfterMs?: number;
  /**
   * With RolloutInput.taintNext: the nodes that should carry the next-in-line PreferNoSchedule taint
   * now (the next batch in line while a batch drains); every other node of the pool loses it.
   */
  taintNext?: string[];
}
