// Reads what the rollout decision needs from a Node object (labels, conditions, the agent's
// annotations and the controller's own), and combines it with what only the controller knows (health
// gate pods, the plan's disruption, drain progress, observed health).

import { type KubeletPin, kubeletVersionMatches } from '../api/kubelet-version.ts';
import {
  CONFIG_DRIFT_CONDITION,
  NODE_CONFIG_READY_CONDITION,
  PACKAGE_MANAGER_ANNOTATION,
  PRESTAGE_ASKED_AT_ANNOTATION,
  PRESTAGE_REVISION_ANNOTATION,
  PRESTAGED_ANNOTATION,
  parsePrestageReport,
  REBOOT_REQUESTED_ANNOTATION,
  REBOOTED_ANNOTATION,
} from '../api/node-protocol.ts';
import { osRebootRequest, readAgentReport } from '../api/node-report.ts';
import { DEFAULT_PACKAGE_MANAGER } from '../api/packages/registry.ts';
import type { Node } from '../kube/types.ts';
import { CORDONED_BY_ANNOTATION, DRAINING_FOR_ANNOTATION, UPDATE_STARTED_ANNOTATION } from './annotations.ts';
import type { NodeHealthTracker } from './node-health-tracker.ts';
import { isHealthy } from './rollout/node-verdict.ts';
import type { NodeSnapshot } from './rollout/types.ts';

/**
 * A Kubernetes timestamp as ms. Second-precision times are taken as the END of their second: a
 * condition that says 10:00:00 may have changed at 10:00:00.999, and a soak must not be shortened.
 */
export function kubeTimestamp(value: string | undefined): number | undefined {
  if (!value) return undefined;
  const ms = Date.parse(value);
  if (Number.isNaN(ms)) return undefined;
  return /\.\d+/.test(value) ? ms : ms + 999;
}

export interface NodeFacts
  extends Omit<
    NodeSnapshot,
    | 'podsReady'
    | 'healthySince'
    | 'wasHealthy'
    | 'needsDrain'
    | 'drainBlocked'
    | 'needsDownload'
    | 'kubeletWaiting'
  > {
  /** When the conditions behind health last turned True (Ready, NodeConfigReady). */
  conditionsSince?: number;
  /** status.nodeInfo.kubeletVersion: the version the running kubelet reports. */
  kubeletVersion?: string;
}

// A pool reconcile reads every member, and at 1,000 nodes most of them have not changed since the
// last one: the facts are kept per Node object (the caches replace an object when it changes, never
// edit it), so an unchanged node costs a lookup. Callers must not modify what they get.
const factsByNode = new WeakMap<Node, KnownFacts>();

interface KnownFacts {
  zoneLabel: string;
  facts: NodeFacts;
  /** agentReport(node), once asked for. */
  report?: string;
  /** The last snapshot made of the node (snapshotNode). */
  snapshot?: KnownSnapshot;
}

function knownFacts(node: Node, zoneLabel: string): KnownFacts {
  const known = factsByNode.get(node);
  if (known?.zoneLabel === zoneLabel) return known;
  const fresh: KnownFacts = { zoneLabel, facts: readFreshNodeFacts(node, zoneLabel) };
  factsByNode.set(node, fresh);
  return fresh;
}

export function readNodeFacts(node: Node, zoneLabel: string): NodeFacts {
  return knownFacts(node, zoneLabel).facts;
}

function readFreshNodeFacts(node: Node, zoneLabel: string): NodeFacts {
  const annotations = node.metadata.annotations ?? {};
  const labels = node.metadata.labels ?? {};
  const conditions = node.status?.conditions ?? [];
  const ready = conditions.find((c) => c.type === 'Ready');
  const configReady = conditions.find((c) => c.type === NODE_CONFIG_READY_CONDITION);
  const times = [ready, configReady]
    .filter((c) => c?.status === 'True')
    .map((c) => kubeTimestamp(c!.lastTransitionTime) ?? Number.NEGATIVE_INFINITY);
  const facts: NodeFacts = {
    name: node.metadata.name,
    zone: labels[zoneLabel] ?? '',
    ready: ready?.status === 'True',
    deleting: node.metadata.deletionTimestamp !== undefined,
    cordoned: node.spec?.unschedulable === true,
    cordonedByUs: annotations[CORDONED_BY_ANNOTATION] !== undefined,
    configReady: configReady?.status === 'True',
  };
  if (conditions.some((c) => c.type === CONFIG_DRIFT_CONDITION && c.status === 'True')) facts.drifted = true;
  // The OS asks for a reboot (not one the agent is already doing for a request).
  if (osRebootRequest(node)) facts.rebootWanted = true;
  const report = readAgentReport(node);
  const optional: Partial<NodeFacts> = {
    desiredRevision: report.desiredRevision || undefined,
    currentRevision: report.currentRevision || undefined,
    agentState: report.state || undefined,
    agentMessage: report.message || undefined,
    failureDetail:
      report.state === 'Failed' && configReady?.status === 'False'
        ? configReady.message || undefined
        : undefined,
    drainingFor: annotations[DRAINING_FOR_ANNOTATION] || undefined,
    rebootRequested: annotations[REBOOT_REQUESTED_ANNOTATION] || undefined,
    rebooted: annotations[REBOOTED_ANNOTATION] || undefined,
    packageManager: annotations[PACKAGE_MANAGER_ANNOTATION] || undefined,
    prestageRevision: annotations[PRESTAGE_REVISION_ANNOTATION] || undefined,
    prestaged: parsePrestageReport(annotations[PRESTAGED_ANNOTATION]),
    prestageAskedAt: kubeTimestamp(annotations[PRESTAGE_ASKED_AT_ANNOTATION]),
    updateStartedAt: kubeTimestamp(annotations[UPDATE_STARTED_ANNOTATION]),
    createdAt: kubeTimestamp(node.metadata.creationTimestamp),
    readyChangedAt: kubeTimestamp(ready?.lastTransitionTime),
    notReadyReason:
      ready?.status === 'True'
        ? undefined
        : ready
          ? ready.reason || `Ready=${ready.status}`
          : 'no Ready condition',
    conditionsSince: times.length === 2 ? Math.max(...times) : undefined,
    kubeletVersion: node.status?.nodeInfo?.kubeletVersion || undefined,
  };
  for (const [key, value] of Object.entries(optional))
    if (value !== undefined) Object.assign(facts, { [key]: value });
  return facts;
}

export interface SnapshotContext {
  zoneLabel: string;
  /** The pool's target revision (for the drain question). */
  target?: string;
  needsDrain(from: string | undefined, to: string): boolean;
  /** Whether the plan installs packages (asked only of pools that pre-stage: absent, never). */
  needsDownload?(from: string | undefined, to: string): boolean;
  podsReady(node: string): boolean;
  drainBlocked(node: string): string | undefined;
  /** The kubelet a revision pins (its package and version), if any: the node's Node must report it. */
  kubeletPin?(revision: string): KubeletPin | undefined;
  health: NodeHealthTracker;
  now: number;
  /** No health-gate pods: a node's health changes only with its object (its change time is exact). */
  healthFromNodeOnly?: boolean;
  /** Why a node with this package manager cannot take the target (rollout/package-manager-fit.ts). */
  packageManagerRefusal?(nodeManager: string): string | undefined;
}

/** The agent's report as one string: state, current revision and message. */
export function agentReport(node: Node): string {
  const { state, currentRevision, message } = readAgentReport(node);
  return [state, currentRevision, message].join('\u0000');
}

/** The revision an agent's "revision X failed: ..." message names, if it names one. */
export function failedRevisionOf(message: string | undefined): string | undefined {
  return message ? /\brevision (\S+) failed\b/.exec(message)?.[1] : undefined;
}

// The snapshot of an unchanged node is the one the last reconcile made, and at 1,000 nodes most are
// unchanged: building one (its facts, the controller's own knowledge of the node, the health tracker's
// record) for every member on every Node event made pool reconciles O(N) in allocations (issue 17). A
// snapshot is kept with the Node object's facts, and with everything else it was built from: the zone label, the target,
// the tracker, and the answers of the context (stale report, pods ready, drain needed, readiness seen,
// drain blocked, deadline start) and the tracker's record of the node after it observed the node. Those
// answers are asked again on every call, in the same order as a fresh build asks them (some record what
// they see); the kept snapshot is returned only when every one is the same, and the tracker still holds
// the record it made then: its observe() would then change nothing and answer the same. So a kept
// snapshot is the one a fresh build would make. Nothing outlives its Node object; callers must not
// modify what they get.
interface KnownSnapshot {
  health: NodeHealthTracker;
  zoneLabel: string;
  target: string | undefined;
  stale: boolean;
  podsReady: boolean;
  kubeletWaiting: string | undefined;
  needsDrain: boolean;
  needsDownload: boolean;
  readinessSince: number | undefined;
  drainBlocked: string | undefined;
  deadlineFrom: number | undefined;
  /** The tracker's record of the node after this snapshot's observe() (an immutable object). */
  seen: unknown;
  snapshot: NodeSnapshot;
}

/**
 * Why the node's kubelet is not yet the one the revision it should run pins (the health gate on the
 * kubelet version, issue 35): until its Node reports that version it is not healthy, so it neither
 * soaks nor counts as updated, and its progress deadline runs.
 */
function kubeletWaitingOf(facts: NodeFacts, ctx: SnapshotContext): string | undefined {
  const wanted = facts.desiredRevision ?? facts.currentRevision;
  const pin = wanted === undefined ? undefined : ctx.kubeletPin?.(wanted);
  if (!pin || kubeletVersionMatches(pin, facts.kubeletVersion)) return undefined;
  const reported = facts.kubeletVersion ? `reports ${facts.kubeletVersion}` : 'reports no version';
  return `kubelet ${reported}; ${wanted} pins ${pin.package} ${pin.version}`;
}

export function snapshotNode(node: Node, ctx: SnapshotContext): NodeSnapshot {
  const known = knownFacts(node, ctx.zoneLabel);
  const { facts } = known;
  const { name } = facts;
  // The agent's state is about the revision it last worked on. Right after the node is given a new
  // one, a Failed left from the old revision is not news about the new one: drop it until it changes.
  const failedAt = facts.agentState === 'Failed' ? failedRevisionOf(facts.agentMessage) : undefined;
  const staleFailure = failedAt !== undefined && failedAt !== facts.desiredRevision;
  known.report ??= agentReport(node);
  const stale = staleFailure || ctx.health.isStale(name, facts.desiredRevision, known.report);
  const podsReady = ctx.podsReady(name);
  const kubeletWaiting = kubeletWaitingOf(facts, ctx);
  const needsDrain =
    ctx.target !== undefined && facts.currentRevision !== undefined && facts.currentRevision !== ctx.target
      ? ctx.needsDrain(facts.currentRevision, ctx.target)
      : false;
  const needsDownload =
    ctx.needsDownload !== undefined &&
    ctx.target !== undefined &&
    facts.currentRevision !== undefined &&
    facts.currentRevision !== ctx.target &&
    ctx.needsDownload(facts.currentRevision, ctx.target);
  // How long a node has been (Not)Ready, by our clock when we saw the change, else by its condition.
  const readinessSince = ctx.health.readinessSince(name);
  const drainBlocked = ctx.drainBlocked(name);
  const deadlineFrom =
    facts.updateStartedAt !== undefined
      ? ctx.health.deadlineFrom(name, facts.updateStartedAt, ctx.now)
      : undefined;
  const refused = ctx.packageManagerRefusal?.(facts.packageManager ?? DEFAULT_PACKAGE_MANAGER);
  const kept = known.snapshot;
  if (
    kept !== undefined &&
    kept.snapshot.refused === refused &&
    kept.health === ctx.health &&
    kept.zoneLabel === ctx.zoneLabel &&
    kept.target === ctx.target &&
    kept.stale === stale &&
    kept.podsReady === podsReady &&
    kept.kubeletWaiting === kubeletWaiting &&
    kept.needsDrain === needsDrain &&
    kept.needsDownload === needsDownload &&
    kept.readinessSince === readinessSince &&
    kept.drainBlocked === drainBlocked &&
    kept.deadlineFrom === deadlineFrom &&
    kept.seen === ctx.health.lastSeen(name)
  )
    return kept.snapshot;

  const { conditionsSince, kubeletVersion: _version, ...rest } = facts;
  if (stale) delete rest.agentState;
  const base: NodeSnapshot = { ...rest, podsReady, wasHealthy: false, needsDrain };
  if (needsDownload) base.needsDownload = true;
  if (kubeletWaiting !== undefined) base.kubeletWaiting = kubeletWaiting;
  if (readinessSince !== undefined) base.readyChangedAt = readinessSince;
  if (drainBlocked) base.drainBlocked = drainBlocked;
  if (deadlineFrom !== undefined) base.deadlineFrom = deadlineFrom;
  if (refused !== undefined) base.refused = refused;
  const healthy = isHealthy(base);
  // A reboot request is a new update of the same revision: health seen before it is not health after it.
  const update = `${facts.desiredRevision ?? ''}@${facts.updateStartedAt ?? ''}@${facts.rebootRequested ?? ''}`;
  const seen = ctx.health.observe(name, update, healthy, ctx.now, ctx.healthFromNodeOnly);
  base.wasHealthy = seen.wasHealthy && facts.updateStartedAt !== undefined;
  // Seen turning healthy: that moment (never earlier than the truth: the watch only lags). Otherwise
  // (healthy when first seen, e.g. after a restart) the conditions' times, read conservatively.
  if (healthy) {
    const since = seen.since ?? conditionsSince;
    if (since !== undefined && Number.isFinite(since)) base.healthySince = since;
  }
  known.snapshot = {
    health: ctx.health,
    zoneLabel: ctx.zoneLabel,
    target: ctx.target,
    stale,
    podsReady,
    kubeletWaiting,
    needsDrain,
    needsDownload,
    readinessSince,
    drainBlocked,
    deadlineFrom,
    seen: ctx.health.lastSeen(name),
    snapshot: base,
  };
  return base;
}
