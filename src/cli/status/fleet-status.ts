// What `nodeherd status` shows, computed from the API objects alone: pools, their revisions and the
// Nodes they select. Counts come from the Nodes themselves (not the controller's status), so the view
// is current even while the controller is down or behind; conditions come from the controller.

import { matchesLabelSelector } from '../../api/label-selector.ts';
import { CONFIG_DRIFT_CONDITION, NODE_CONFIG_READY_CONDITION } from '../../api/node-protocol.ts';
import { prestageProgress, readAgentReport, waitingOsReboot } from '../../api/node-report.ts';
import type { NodeConfigPool, NodeConfigRevision } from '../../api/types.ts';
import { UPDATE_STARTED_ANNOTATION } from '../../controller/annotations.ts';
import { failurePolicyPause } from '../../controller/pools/pool-state.ts';
import { strategyDescription } from '../../controller/strategies/descriptions.ts';
import type { Node } from '../../kube/types.ts';
import type { EtaResult } from '../rollout-eta.ts';
import { type RecordedFailure, recordedFailures } from './failure-view.ts';

/** status-eta.ts's statusEta, passed in: a `nodeherd status` with no rollout under way never loads it. */
export type EtaEstimator = (
  pool: NodeConfigPool,
  members: readonly Node[],
  revisions: readonly NodeConfigRevision[],
  now: number,
) => EtaResult | undefined;

export interface StateCounts {
  /** On the target revision (current-revision = target). */
  updated: number;
  /** Updated, Ready, NodeConfigReady and the agent settled on the target. */
  ready: number;
  /** The agent is applying or verifying. */
  applying: number;
  /**
   * Not on the target and not started: waiting for their batch, a slot, a start time, a resume or a
   * window (or the agent waits for its gate).
   */
  waiting: number;
  /** The agent reported Failed, for the target revision (a failure of another revision is history). */
  failed: number;
  /** NotReady, cordoned or being deleted. */
  unavailable: number;
  /** The agent found drift it did not repair (ConfigDrift True: policy Report, or the repair failed). */
  drifted: number;
}

export interface RevisionCount {
  name: string;
  /** Revision number, when the NodeConfigRevision is known. */
  number?: number;
  nodes: number;
  target: boolean;
}

export interface ConditionView {
  type: string;
  status: string;
  reason?: string;
  message?: string;
}

export interface NodeProblem {
  name: string;
  message: string;
}

export interface PoolView {
  name: string;
  strategy: string;
  /** Strategy settings in words, e.g. "maxUnavailable 25%, canary 1". */
  strategyDetail: string;
  paused: boolean;
  target?: { name: string; number?: number };
  nodes: number;
  counts: StateCounts;
  /** Newest revision first; nodes without a current revision are counted under name "(none)". */
  revisions: RevisionCount[];
  conditions: ConditionView[];
  /** Nodes whose agent reported Failed, with its message. */
  failedNodes: NodeProblem[];
  /** The failures behind the rollback that pins the pool, as its status recorded them (issue 36). */
  recordedFailures: RecordedFailure[];
  /**
   * Why the pool is paused: by a person (spec.paused), or by the failure policy with its message; and
   * the nodes whose failure was of a revision that is no longer the target (message: that revision).
   */
  pause?: { by: 'user' | 'failure-policy'; message: string; earlierFailures: NodeProblem[] };
  /** Nodes with ConfigDrift True, with the condition's message. */
  driftedNodes: NodeProblem[];
  /**
   * Nodes waiting for a reboot: RebootRequired True (not Rebooting) and no unanswered request, with
   * the condition's message (the packages that asked).
   */
  rebootNodes: NodeProblem[];
  /** spec.reboots.osRequested.policy: Reboot (the controller reboots them as a rollout) or Report. */
  rebootPolicy: string;
  /**
   * Nodes told to pre-stage the target (nodeherd.io/prestage-revision): `state` downloaded, downloading
   * (no answer yet) or failed, with the agent's message.
   */
  prestagedNodes: PrestagedNode[];
  /** Nodes this pool selects that another pool selects too (managed by neither). */
  conflictingNodes: string[];
  /** Pools with maintenance windows: the next opening, and when the window open now closes (RFC 3339). */
  maintenanceWindow?: { nextOpen?: string; closesAt?: string };
  /** How long the rollout under way still takes (status-eta.ts); absent when nothing is left to do. */
  eta?: EtaResult;
  /** Waves: the pools this one waits for before it starts a new revision, and their soak. */
  wave?: { after: string[]; soakSeconds: number };
}

export interface FleetStatus {
  /** API server URL. */
  server: string;
  /** When the objects were read (RFC 3339). */
  observedAt: string;
  pools: PoolView[];
  /** Nodes no pool selects (only counted when no pool filter is given). */
  unpooledNodes: number;
  /**
   * The API server's storage alarm, when it is at its quota and refuses writes (read from its
   * `/readyz?verbose`, the embedded server's `etcd-storage-quota` check); absent otherwise.
   */
  storageAlarm?: string;
}

export interface FleetObjects {
  pools: readonly NodeConfigPool[];
  revisions: readonly NodeConfigRevision[];
  nodes: readonly Node[];
}

const NO_REVISION = '(none)';

function strategyDetail(pool: NodeConfigPool): string {
  const strategy = pool.spec.updateStrategy ?? {};
  return strategyDescription(strategy.type ?? 'RollingUpdate')?.detail(strategy) ?? '';
}

function conditionStatus(node: Node, type: string): string | undefined {
  return node.status?.conditions?.find((c) => c.type === type)?.status;
}

/**
 * The agent reported Failed for the target: the revision it was given (desired) is the target, or no
 * target is known. A node whose failed revision is no longer the target (the config was reverted, a
 * rollback pinned the pool) runs what it ran before; its failure is not the target's.
 */
function failsTarget(node: Node, target: string | undefined): boolean {
  const { state, desiredRevision: desired } = readAgentReport(node);
  if (state !== 'Failed') return false;
  return target === undefined || desired === undefined || desired === target;
}

function countStates(nodes: readonly Node[], target: string | undefined): StateCounts {
  const counts: StateCounts = {
    updated: 0,
    ready: 0,
    applying: 0,
    waiting: 0,
    failed: 0,
    unavailable: 0,
    drifted: 0,
  };
  for (const node of nodes) {
    const { state, currentRevision: current, desiredRevision: desired } = readAgentReport(node);
    const ready = conditionStatus(node, 'Ready') === 'True';
    if (target !== undefined && current === target) {
      counts.updated++;
      const settled = state === 'Done' || state === 'Idle' || state === undefined;
      const configReady = conditionStatus(node, NODE_CONFIG_READY_CONDITION) === 'True';
      if (ready && configReady && settled && (desired === undefined || desired === target)) counts.ready++;
    }
    const applying = state === 'Applying' || state === 'Verifying';
    const failed = failsTarget(node, target);
    if (applying) counts.applying++;
    if (state === 'Waiting' || (target !== undefined && current !== target && !applying && !failed))
      counts.waiting++;
    if (failed) counts.failed++;
    if (!ready || node.spec?.unschedulable === true || node.metadata.deletionTimestamp) counts.unavailable++;
    if (conditionStatus(node, CONFIG_DRIFT_CONDITION) === 'True') counts.drifted++;
  }
  return counts;
}

function pauseView(pool: NodeConfigPool, earlierFailures: NodeProblem[]): Pick<PoolView, 'pause'> {
  if (pool.spec.paused !== true) return {};
  const byPolicy = failurePolicyPause(pool);
  return {
    pause: {
      by: byPolicy ? 'failure-policy' : 'user',
      message: byPolicy ? (byPolicy.message ?? '') : 'spec.paused is true',
      earlierFailures: earlierFailures.sort((a, b) => (a.name < b.name ? -1 : 1)),
    },
  };
}

function maintenanceWindowView(pool: NodeConfigPool): Pick<PoolView, 'maintenanceWindow'> {
  if (!pool.spec.updateStrategy?.rollingUpdate?.maintenanceWindows?.length) return {};
  const { nextWindowOpen, windowClosesAt } = pool.status ?? {};
  return {
    maintenanceWindow: {
      ...(nextWindowOpen ? { nextOpen: nextWindowOpen } : {}),
      ...(windowClosesAt ? { closesAt: windowClosesAt } : {}),
    },
  };
}

export interface PrestagedNode extends NodeProblem {
  state: 'downloaded' | 'downloading' | 'failed';
}

/** The node's pre-stage of the revision it is told to pre-stage, if it is told to. */
function prestageOf(node: Node): PrestagedNode | undefined {
  const progress = prestageProgress(node);
  if (!progress) return undefined;
  const message =
    progress.state === 'downloading'
      ? `downloading ${progress.revision}'s packages`
      : (progress.message ?? '');
  return { name: node.metadata.name, state: progress.state, message };
}

function poolView(
  pool: NodeConfigPool,
  members: readonly Node[],
  conflicting: string[],
  revisions: readonly NodeConfigRevision[],
  now: number,
  estimate: EtaEstimator | undefined,
): PoolView {
  const eta = estimate?.(pool, members, revisions, now);
  const numbers = new Map<string, number>();
  for (const r of revisions) {
    if (r.spec?.pool === pool.metadata.name) numbers.set(r.metadata.name, r.spec.revision);
  }
  const targetName = pool.status?.targetRevision;
  const perRevision = new Map<string, number>();
  if (targetName) perRevision.set(targetName, 0);
  const failedNodes: NodeProblem[] = [];
  const driftedNodes: NodeProblem[] = [];
  const rebootNodes: NodeProblem[] = [];
  const earlierFailures: NodeProblem[] = [];
  for (const node of members) {
    const reboot = waitingOsReboot(node);
    if (reboot) rebootNodes.push({ name: node.metadata.name, message: reboot.message ?? '' });
    const drift = node.status?.conditions?.find((c) => c.type === CONFIG_DRIFT_CONDITION);
    if (drift?.status === 'True')
      driftedNodes.push({ name: node.metadata.name, message: drift.message ?? '' });
    const report = readAgentReport(node);
    const current = report.currentRevision || NO_REVISION;
    perRevision.set(current, (perRevision.get(current) ?? 0) + 1);
    if (failsTarget(node, targetName)) {
      failedNodes.push({ name: node.metadata.name, message: report.message ?? '' });
    } else if (report.state === 'Failed') {
      earlierFailures.push({ name: node.metadata.name, message: report.desiredRevision ?? '' });
    }
  }
  const revisionCounts: RevisionCount[] = [...perRevision.entries()]
    .map(([name, nodes]) => {
      const number = numbers.get(name);
      return { name, ...(number !== undefined ? { number } : {}), nodes, target: name === targetName };
    })
    .sort((a, b) => (b.number ?? -1) - (a.number ?? -1) || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  const targetNumber = targetName ? numbers.get(targetName) : undefined;
  return {
    name: pool.metadata.name,
    strategy: pool.spec.updateStrategy?.type ?? 'RollingUpdate',
    strategyDetail: strategyDetail(pool),
    paused: pool.spec.paused === true,
    ...(targetName
      ? { target: { name: targetName, ...(targetNumber !== undefined ? { number: targetNumber } : {}) } }
      : {}),
    nodes: members.length,
    counts: countStates(members, targetName),
    revisions: revisionCounts,
    conditions: (pool.status?.conditions ?? []).filter(shownCondition).map((c) => ({
      type: c.type,
      status: c.status,
      ...(c.reason ? { reason: c.reason } : {}),
      ...(c.message ? { message: c.message } : {}),
    })),
    failedNodes: failedNodes.sort((a, b) => (a.name < b.name ? -1 : 1)),
    recordedFailures: recordedFailures(pool, new Set(failedNodes.map((f) => f.name))),
    ...pauseView(pool, earlierFailures),
    driftedNodes: driftedNodes.sort((a, b) => (a.name < b.name ? -1 : 1)),
    rebootNodes: rebootNodes.sort((a, b) => (a.name < b.name ? -1 : 1)),
    rebootPolicy: pool.spec.reboots?.osRequested?.policy ?? 'Report',
    prestagedNodes: members
      .map(prestageOf)
      .filter((n): n is PrestagedNode => n !== undefined)
      .sort((a, b) => (a.name < b.name ? -1 : 1)),
    conflictingNodes: conflicting.sort(),
    ...maintenanceWindowView(pool),
    ...(eta ? { eta } : {}),
    ...(pool.spec.updateStrategy?.wave?.after.length
      ? {
          wave: {
            after: [...pool.spec.updateStrategy.wave.after],
            soakSeconds: pool.spec.updateStrategy.wave.soakSeconds ?? 0,
          },
        }
      : {}),
  };
}

/** Builds the status of every pool (or only `poolName`) from the objects. */
export function buildFleetStatus(
  objects: FleetObjects,
  meta: { server: string; observedAt: string },
  poolName?: string,
  estimate?: EtaEstimator,
): FleetStatus {
  const pools = [...objects.pools].sort((a, b) => (a.metadata.name < b.metadata.name ? -1 : 1));
  const members = new Map<string, Node[]>(pools.map((p) => [p.metadata.name, []]));
  const conflicts = new Map<string, string[]>(pools.map((p) => [p.metadata.name, []]));
  let unpooled = 0;
  for (const node of objects.nodes) {
    const selecting = pools.filter((p) => matchesLabelSelector(p.spec.nodeSelector, node.metadata.labels));
    if (selecting.length === 0) unpooled++;
    else if (selecting.length === 1) members.get(selecting[0]!.metadata.name)!.push(node);
    else for (const p of selecting) conflicts.get(p.metadata.name)!.push(node.metadata.name);
  }
  const shown = poolName === undefined ? pools : pools.filter((p) => p.metadata.name === poolName);
  return {
    server: meta.server,
    observedAt: meta.observedAt,
    pools: shown.map((p) =>
      poolView(
        p,
        members.get(p.metadata.name)!,
        conflicts.get(p.metadata.name)!,
        objects.revisions,
        Number.isNaN(Date.parse(meta.observedAt)) ? Date.now() : Date.parse(meta.observedAt),
        estimate,
      ),
    ),
    unpooledNodes: poolName === undefined ? unpooled : 0,
  };
}

/**
 * Ready and Reconciling repeat Complete and Progressing for GitOps tools (kstatus); people see those.
 * Stalled is shown when True: it says that only a person moves the rollout on.
 */
function shownCondition(c: { type: string; status: string }): boolean {
  if (c.type === 'Ready' || c.type === 'Reconciling') return false;
  return c.type !== 'Stalled' || c.status === 'True';
}

/**
 * Whether a pool may have a rollout under way (a member not given or not on the target, or updated in
 * the last hour, maybe still soaking): only then is the ETA's code loaded.
 */
export function mayBeRollingOut(objects: FleetObjects, now: number): boolean {
  const targets = new Set(objects.pools.map((p) => p.status?.targetRevision).filter((t) => t !== undefined));
  return objects.nodes.some((node) => {
    const { currentRevision: current, desiredRevision: desired } = readAgentReport(node);
    if (desired !== undefined && desired !== current) return true;
    if (current !== undefined && !targets.has(current)) return true;
    const started = Date.parse(node.metadata.annotations?.[UPDATE_STARTED_ANNOTATION] ?? '');
    return !Number.isNaN(started) && now - started < 3_600_000;
  });
}
