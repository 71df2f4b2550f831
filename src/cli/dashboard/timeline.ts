// The rollout timeline, as a pure model: what state each node of a pool is in (from the agent's and
// the controller's annotations and the Node's Ready condition), a track of states over time per node,
// rows that aggregate nodes into groups on a large pool, and the states of a row over time buckets.
// The web view (dashboard) and the terminal view (`nodeherd status --timeline`) both draw from it; it
// reads no clock and does no I/O, so the browser bundle carries it too.

import {
  CURRENT_REVISION_ANNOTATION,
  DESIRED_REVISION_ANNOTATION,
  REBOOT_REQUESTED_ANNOTATION,
  REBOOTED_ANNOTATION,
  STATE_ANNOTATION,
  STATE_REVISION_ANNOTATION,
} from '../../api/node-protocol.ts';
import type { NodeConfigPool } from '../../api/types.ts';
import {
  DRAINING_FOR_ANNOTATION,
  ROLLBACK_FROM_ANNOTATION,
  UPDATE_STARTED_ANNOTATION,
} from '../../controller/annotations.ts';
import { readyCondition } from '../../kube/conditions.ts';
import type { Node } from '../../kube/types.ts';

/** The states a node goes through in a rollout, in the order the legend lists them. */
export const TIMELINE_STATES = [
  'waiting',
  'applying',
  'notready',
  'soaking',
  'done',
  'failed',
  'rolledback',
  'draining',
  'rebooting',
] as const;
export type TimelineState = (typeof TIMELINE_STATES)[number];

export const STATE_LABELS: Record<TimelineState, string> = {
  waiting: 'waiting',
  draining: 'draining',
  applying: 'applying',
  rebooting: 'rebooting',
  notready: 'NotReady',
  soaking: 'soaking',
  done: 'done',
  failed: 'failed',
  rolledback: 'rolled back',
};

/** Which state a bucket shows when a node (or a group) was in several: problems first. */
const SEVERITY: Record<TimelineState, number> = {
  failed: 8,
  notready: 7,
  rebooting: 6,
  applying: 5,
  draining: 4,
  soaking: 3,
  rolledback: 2,
  waiting: 1,
  done: 0,
};

export const DEFAULT_ZONE_LABEL = 'topology.kubernetes.io/zone';

/** What classifying a node needs to know about its pool's rollout. */
export interface RolloutContext {
  /** The pool's target revision (name); undefined before the controller rendered one. */
  target: string | undefined;
  /** When the rollout of the target started (ms since the epoch). */
  startedAt: number;
  /** RollingUpdate's minReadySeconds: how long a node soaks healthy after its update. */
  minReadySeconds: number;
  /** The rollout is a rollback (automatic or requested) away from this revision. */
  rollbackFrom: string | undefined;
  zoneLabel: string;
}

export interface Segment {
  state: TimelineState;
  /** ms since the epoch. */
  from: number;
  /** Open (until now) when absent. */
  to?: number;
}

export interface NodeTrack {
  name: string;
  zone?: string;
  segments: Segment[];
}

/** A span of time (ms since the epoch); open (until now) without `to`. */
export interface Interval {
  from: number;
  to?: number;
}

export interface PoolTimeline {
  pool: string;
  target?: string;
  /** The rollout's start (ms since the epoch). */
  start: number;
  /** Until when the tracks are known (ms since the epoch): now, for a live view. */
  end: number;
  tracks: NodeTrack[];
  /** When the pool was paused (by its user or its failure policy). */
  paused: Interval[];
}

function time(value: string | undefined): number | undefined {
  if (!value) return undefined;
  const ms = Date.parse(value);
  return Number.isNaN(ms) ? undefined : ms;
}

function readiness(node: Node): { ready: boolean; since: number | undefined } {
  const condition = readyCondition(node);
  return { ready: condition?.status === 'True', since: time(condition?.lastTransitionTime) };
}

/** The rollout context of a pool: its target, when that rollout started, its soak time. */
export function rolloutContext(pool: NodeConfigPool, fallbackStart: number): RolloutContext {
  const target = pool.status?.targetRevision;
  const history = pool.status?.history ?? [];
  const record = [...history].reverse().find((r) => r.name !== undefined && r.name === target);
  const rolling = pool.spec.updateStrategy?.rollingUpdate;
  const rollbackFrom = pool.metadata.annotations?.[ROLLBACK_FROM_ANNOTATION];
  // A rollback's timeline begins with the rollout it undid: the failed node's mark is part of it.
  const undone = rollbackFrom
    ? [...history].reverse().find((r) => r.name === rollbackFrom && r.result !== 'InProgress')
    : undefined;
  const started = time(record?.startedAt);
  const undoneStart = time(undone?.startedAt);
  return {
    target,
    startedAt:
      (started !== undefined && undoneStart !== undefined ? Math.min(started, undoneStart) : started) ??
      fallbackStart,
    minReadySeconds: rolling?.minReadySeconds ?? 0,
    rollbackFrom: rollbackFrom || undefined,
    zoneLabel: rolling?.zoneLabel ?? DEFAULT_ZONE_LABEL,
  };
}

/** When the controller started this node's current update, if it did so in this rollout. */
function updateStartedInRollout(node: Node, context: RolloutContext): number | undefined {
  const started = time(node.metadata.annotations?.[UPDATE_STARTED_ANNOTATION]);
  return started !== undefined && started >= context.startedAt ? started : undefined;
}

/**
 * The state `node` is in at `now`. `arrived`: when the controller saw it reach the target healthy (the
 * pool's recorded episode), which a later Ready transition (a restart of the node or of `up`) does not
 * move: its soak is counted from then.
 */
export function nodeState(node: Node, context: RolloutContext, now: number, arrived?: number): TimelineState {
  const a = node.metadata.annotations ?? {};
  const target = context.target;
  const current = a[CURRENT_REVISION_ANNOTATION];
  const desired = a[DESIRED_REVISION_ANNOTATION];
  const state = a[STATE_ANNOTATION];
  const stateRevision = a[STATE_REVISION_ANNOTATION];
  const { ready, since } = readiness(node);
  if (target === undefined) return current ? 'done' : 'waiting';
  if (state === 'Failed' && (stateRevision === undefined || stateRevision === desired)) return 'failed';
  const rebootRequested = a[REBOOT_REQUESTED_ANNOTATION];
  if (rebootRequested !== undefined && a[REBOOTED_ANNOTATION] !== rebootRequested) return 'rebooting';
  if (a[DRAINING_FOR_ANNOTATION] === target) return 'draining';
  const onTarget = current === target;
  if (!onTarget) {
    if (desired !== target || state === 'Waiting') return 'waiting';
    return ready ? 'applying' : 'notready';
  }
  if ((state === 'Applying' || state === 'Verifying') && (stateRevision ?? desired) === target) {
    return ready ? 'applying' : 'notready';
  }
  if (!ready) return 'notready';
  const started = updateStartedInRollout(node, context);
  if (started !== undefined && context.minReadySeconds > 0) {
    const healthySince =
      arrived !== undefined && arrived >= started ? arrived : Math.max(started, since ?? started);
    if (now - healthySince < context.minReadySeconds * 1000) return 'soaking';
  }
  return started !== undefined && context.rollbackFrom !== undefined ? 'rolledback' : 'done';
}

export function zoneOf(node: Node, context: RolloutContext): string | undefined {
  return node.metadata.labels?.[context.zoneLabel] || undefined;
}

/** Times the agent's Events give for a node: its last Applied and Failed (ms since the epoch). */
export interface NodeEventTimes {
  applied?: number;
  failed?: number;
  /** When the controller saw the node reach the target healthy (the pool's Updated or RolledBack episode). */
  arrived?: number;
}

/** The fields of a core/v1 Event the timeline reads. */
export interface NodeEvent {
  metadata: { creationTimestamp?: string };
  involvedObject?: { kind?: string; name?: string };
  reason?: string;
  lastTimestamp?: string;
  eventTime?: string;
  firstTimestamp?: string;
}

export function eventTimeOf(event: NodeEvent): string {
  return (
    event.lastTimestamp ?? event.eventTime ?? event.firstTimestamp ?? event.metadata.creationTimestamp ?? ''
  );
}

/** The latest Applied and Failed Event (the agent's reasons) of each node. */
export function eventTimesByNode(events: Iterable<NodeEvent>): Map<string, NodeEventTimes> {
  const times = new Map<string, NodeEventTimes>();
  for (const event of events) {
    const node = event.involvedObject?.kind === 'Node' ? event.involvedObject.name : undefined;
    const at = Date.parse(eventTimeOf(event));
    if (!node || Number.isNaN(at)) continue;
    const entry = times.get(node) ?? {};
    if (event.reason === 'Applied') entry.applied = Math.max(entry.applied ?? 0, at);
    if (event.reason === 'Failed') entry.failed = Math.max(entry.failed ?? 0, at);
    times.set(node, entry);
  }
  return times;
}

/**
 * A node's track reconstructed from one look at it (a node seen for the first time, or `status
 * --timeline`): waiting until the controller started its update, applying until it was Ready again
 * (or its agent's Applied event), soaking for minReadySeconds, then its state now. A track recorded
 * live (recordState) is exact; this one knows only the transitions the objects still show.
 */
export function reconstructTrack(
  node: Node,
  context: RolloutContext,
  now: number,
  events: NodeEventTimes = {},
): NodeTrack {
  const start = context.startedAt;
  const zone = zoneOf(node, context);
  const track: NodeTrack = { name: node.metadata.name, ...(zone ? { zone } : {}), segments: [] };
  const state = nodeState(node, context, now, events.arrived);
  const started = updateStartedInRollout(node, context);
  const push = (s: TimelineState, at: number) => recordState(track, s, Math.min(Math.max(at, start), now));
  if (started === undefined || started > now) {
    push(state, start);
    return track;
  }
  if (started > start) push('waiting', start);
  push('applying', started);
  const { since } = readiness(node);
  const after = (t: number | undefined) => (t !== undefined && t >= started ? t : undefined);
  switch (state) {
    case 'applying':
    case 'waiting':
      break;
    case 'draining':
    case 'rebooting':
      push(state, started);
      break;
    case 'notready':
      push('notready', after(since) ?? started);
      break;
    case 'failed':
      push('failed', after(events.failed) ?? after(events.applied) ?? started);
      break;
    default: {
      // The controller's record of the arrival, when the pool has one: a Ready condition that changed
      // since (a restart of the node or of `up`) does not repaint the node as applying until then.
      const healthy =
        after(events.arrived) ?? Math.max(after(since) ?? started, after(events.applied) ?? started);
      const soakEnd = healthy + context.minReadySeconds * 1000;
      if (state === 'soaking' || (context.minReadySeconds > 0 && soakEnd > healthy)) push('soaking', healthy);
      if (state !== 'soaking') push(state, Math.max(soakEnd, healthy));
    }
  }
  return track;
}

/** Whether the pool is paused: spec.paused (at once) or the controller's Paused condition (a failure policy). */
export function isPaused(pool: NodeConfigPool): boolean {
  return (
    pool.spec.paused === true ||
    pool.status?.conditions?.some((c) => c.type === 'Paused' && c.status === 'True') === true
  );
}

/** The pool's pause as one look tells it: since its Paused condition turned True (or the start). */
export function reconstructPaused(pool: NodeConfigPool, start: number): Interval[] {
  if (!isPaused(pool)) return [];
  const condition = pool.status?.conditions?.find((c) => c.type === 'Paused' && c.status === 'True');
  return [{ from: Math.max(start, time(condition?.lastTransitionTime) ?? start) }];
}

/** Extends the pause intervals with whether the pool is paused at `at`. */
export function recordPaused(intervals: Interval[], paused: boolean, at: number): void {
  const last = intervals[intervals.length - 1];
  const open = last !== undefined && last.to === undefined;
  if (paused && !open) intervals.push({ from: at });
  if (!paused && open) last.to = at;
}

/** Which of `buckets` equal time buckets of [from, to) the intervals touch. */
export function intervalBuckets(
  intervals: readonly Interval[],
  from: number,
  to: number,
  buckets: number,
): boolean[] {
  const width = (to - from) / Math.max(1, buckets);
  return Array.from({ length: buckets }, (_, i) => {
    const start = from + i * width;
    const end = start + width;
    return intervals.some((r) => r.from < end && (r.to ?? Number.POSITIVE_INFINITY) > start);
  });
}

/** Extends a track with the state seen at `at`: a new segment when it changed. */
export function recordState(track: NodeTrack, state: TimelineState, at: number): void {
  const last = track.segments[track.segments.length - 1];
  if (last && last.to === undefined) {
    if (last.state === state) return;
    if (at <= last.from) {
      // Two changes at one instant: the later one wins the instant.
      last.state = state;
      const before = track.segments[track.segments.length - 2];
      if (before && before.state === state && before.to === last.from) {
        track.segments.pop();
        delete before.to;
      }
      return;
    }
    last.to = at;
  }
  track.segments.push({ state, from: at });
}

/** The state a track shows over [from, to): the most severe state it was in then. */
export function stateDuring(track: NodeTrack, from: number, to: number): TimelineState | undefined {
  let shown: TimelineState | undefined;
  for (const s of track.segments) {
    const end = s.to ?? Number.POSITIVE_INFINITY;
    if (s.from >= to || end <= from) continue;
    if (shown === undefined || SEVERITY[s.state] > SEVERITY[shown]) shown = s.state;
  }
  return shown;
}

/** The state of a track at its end. */
export function lastState(track: NodeTrack): TimelineState | undefined {
  return track.segments[track.segments.length - 1]?.state;
}

export type GroupBy = 'auto' | 'node' | 'zone' | 'batch';

export interface TimelineRow {
  /** Stable key: `node:<name>` or `zone:<zone>` or `batch:<n>`. */
  key: string;
  label: string;
  /** Node names in the row (one for a node row). */
  nodes: string[];
  group: boolean;
}

/** When a node's update started: the start of its first segment that is not waiting. */
function startOf(track: NodeTrack): number {
  return track.segments.find((s) => s.state !== 'waiting')?.from ?? Number.POSITIVE_INFINITY;
}

/**
 * The rows of a timeline: one per node when they fit in `maxRows`, else nodes aggregated by zone
 * (when the zones fit) or into batches in update order. An `expanded` group is followed by its
 * nodes' rows (zoom into a group).
 */
export function timelineRows(
  tracks: readonly NodeTrack[],
  options: { groupBy?: GroupBy; maxRows?: number; expanded?: ReadonlySet<string> } = {},
): TimelineRow[] {
  const maxRows = Math.max(1, options.maxRows ?? 40);
  const byStart = [...tracks].sort((a, b) => startOf(a) - startOf(b) || (a.name < b.name ? -1 : 1));
  const zones = new Map<string, NodeTrack[]>();
  for (const t of byStart) {
    const zone = t.zone ?? '(no zone)';
    zones.set(zone, [...(zones.get(zone) ?? []), t]);
  }
  let groupBy = options.groupBy ?? 'auto';
  if (groupBy === 'auto') {
    if (tracks.length <= maxRows) groupBy = 'node';
    else if (zones.size > 1 && zones.size <= maxRows) groupBy = 'zone';
    else groupBy = 'batch';
  }
  const nodeRow = (t: NodeTrack): TimelineRow => ({
    key: `node:${t.name}`,
    label: t.name,
    nodes: [t.name],
    group: false,
  });
  if (groupBy === 'node') return byStart.map(nodeRow);
  let groups: TimelineRow[];
  if (groupBy === 'zone') {
    groups = [...zones.entries()]
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
      .map(([zone, members]) => ({
        key: `zone:${zone}`,
        label: `${zone} (${members.length})`,
        nodes: members.map((t) => t.name),
        group: true,
      }));
  } else {
    const size = Math.ceil(byStart.length / maxRows);
    groups = [];
    for (let i = 0; i < byStart.length; i += size) {
      const members = byStart.slice(i, i + size);
      groups.push({
        key: `batch:${groups.length + 1}`,
        label: `nodes ${i + 1}-${i + members.length}`,
        nodes: members.map((t) => t.name),
        group: true,
      });
    }
  }
  const byName = new Map(tracks.map((t) => [t.name, t]));
  return groups.flatMap((row) =>
    options.expanded?.has(row.key) ? [row, ...row.nodes.map((n) => nodeRow(byName.get(n)!))] : [row],
  );
}

/** How many of a row's nodes were in each state during one time bucket (by their most severe state). */
export type StateCounts = Partial<Record<TimelineState, number>>;

/** A row's states over `buckets` equal time buckets of [from, to). */
export function rowBuckets(
  row: TimelineRow,
  tracks: ReadonlyMap<string, NodeTrack>,
  from: number,
  to: number,
  buckets: number,
): StateCounts[] {
  const width = (to - from) / Math.max(1, buckets);
  const cells: StateCounts[] = Array.from({ length: buckets }, () => ({}));
  for (const name of row.nodes) {
    const track = tracks.get(name);
    if (!track) continue;
    for (let i = 0; i < buckets; i++) {
      const state = stateDuring(track, from + i * width, from + (i + 1) * width);
      if (state) cells[i]![state] = (cells[i]![state] ?? 0) + 1;
    }
  }
  return cells;
}

/**
 * The one state a bucket of a row shows where only one fits (a character, a single colour): a failed
 * or NotReady node anywhere in a group shows, so problems are never averaged away; otherwise the state
 * most of the row's nodes were in (on a tie, the more severe one: work going on beats waiting).
 */
export function dominantState(cell: StateCounts): TimelineState | undefined {
  if (cell.failed) return 'failed';
  if (cell.notready) return 'notready';
  let best: TimelineState | undefined;
  for (const state of TIMELINE_STATES) {
    const n = cell[state] ?? 0;
    if (n === 0 || best === undefined) {
      if (n > 0) best = state;
      continue;
    }
    const m = cell[best] ?? 0;
    if (n > m || (n === m && SEVERITY[state] > SEVERITY[best])) best = state;
  }
  return best;
}

/** Counts of a set of tracks by their last state. */
export function currentCounts(tracks: Iterable<NodeTrack>): StateCounts {
  const counts: StateCounts = {};
  for (const t of tracks) {
    const s = lastState(t);
    if (s) counts[s] = (counts[s] ?? 0) + 1;
  }
  return counts;
}

/** Builds a pool's timeline from one look at its nodes (see reconstructTrack). */
export function reconstructTimeline(
  pool: NodeConfigPool,
  members: readonly Node[],
  now: number,
  events: ReadonlyMap<string, NodeEventTimes> = new Map(),
): PoolTimeline {
  const earliest = members
    .map((n) => time(n.metadata.annotations?.[UPDATE_STARTED_ANNOTATION]))
    .filter((t): t is number => t !== undefined);
  const context = rolloutContext(pool, earliest.length > 0 ? Math.min(...earliest) : now);
  const target = context.target;
  return {
    pool: pool.metadata.name,
    ...(target ? { target } : {}),
    start: Math.min(context.startedAt, now),
    end: now,
    tracks: members.map((n) => reconstructTrack(n, context, now, events.get(n.metadata.name))),
    paused: reconstructPaused(pool, Math.min(context.startedAt, now)),
  };
}
