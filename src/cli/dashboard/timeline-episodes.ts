// The pool's recorded episodes (status.episodes, written by the controller as they happen: issue 36)
// laid over the tracks a timeline reconstructs or records: a node that failed, went NotReady, was
// drained or rebooted shows so for as long as it did, whenever the timeline is drawn and whatever the
// Node objects say now. Pure; the dashboard's model and `nodeherd status --timeline` both use it.

import type { NodeConfigPool } from '../../api/types.ts';
import type { Node } from '../../kube/types.ts';
import {
  type NodeEventTimes,
  type NodeTrack,
  type PoolTimeline,
  reconstructTimeline,
  type Segment,
  type TimelineState,
} from './timeline.ts';

export type PoolEpisode = NonNullable<NonNullable<NodeConfigPool['status']>['episodes']>[number];

/** The state each kind of interval episode paints, in the order they are painted (the last wins). */
const PAINTED: readonly [PoolEpisode['kind'], TimelineState][] = [
  ['Drain', 'draining'],
  ['Reboot', 'rebooting'],
  ['NotReady', 'notready'],
  ['Failed', 'failed'],
];

function time(value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const ms = Date.parse(value);
  return Number.isNaN(ms) ? undefined : ms;
}

/** The track with [from, to) in `state` (to undefined: until the track's end); segments are split. */
export function paint(
  segments: readonly Segment[],
  state: TimelineState,
  from: number,
  to?: number,
): Segment[] {
  const end = to ?? Number.POSITIVE_INFINITY;
  if (end <= from) return [...segments];
  const out: Segment[] = [];
  const push = (s: TimelineState, a: number, b: number) => {
    if (b <= a) return;
    const last = out[out.length - 1];
    if (last && last.state === s && last.to === a) {
      if (b === Number.POSITIVE_INFINITY) delete last.to;
      else last.to = b;
      return;
    }
    out.push(b === Number.POSITIVE_INFINITY ? { state: s, from: a } : { state: s, from: a, to: b });
  };
  let painted = false;
  for (const seg of segments) {
    const segEnd = seg.to ?? Number.POSITIVE_INFINITY;
    // What lies before the painted span, the span itself once reached, then what lies after it.
    if (seg.from < from) push(seg.state, seg.from, Math.min(segEnd, from));
    if (!painted && segEnd > from) {
      push(state, from, end);
      painted = true;
    }
    if (segEnd > end) push(seg.state, Math.max(seg.from, end), segEnd);
  }
  if (!painted) push(state, from, end);
  return out;
}

const byNodeCache = new WeakMap<readonly PoolEpisode[], Map<string, PoolEpisode[]>>();
const NONE = new Map<string, PoolEpisode[]>();

/** The pool's episodes by node name (kept per list: the dashboard asks on every Node event). */
export function episodesByNode(pool: NodeConfigPool): ReadonlyMap<string, PoolEpisode[]> {
  const episodes = pool.status?.episodes;
  if (!episodes) return NONE;
  const known = byNodeCache.get(episodes);
  if (known) return known;
  const byNode = new Map<string, PoolEpisode[]>();
  for (const e of episodes) {
    const list = byNode.get(e.node) ?? [];
    list.push(e);
    byNode.set(e.node, list);
  }
  byNodeCache.set(episodes, byNode);
  return byNode;
}

/** When the node last reached `target` (its Updated or RolledBack episode), for reconstructTrack. */
export function arrivalTimes(
  episodes: readonly PoolEpisode[] | undefined,
  target: string | undefined,
): Pick<NodeEventTimes, 'arrived'> {
  let arrived: number | undefined;
  for (const e of episodes ?? []) {
    if ((e.kind === 'Updated' || e.kind === 'RolledBack') && e.revision === target) arrived = time(e.from);
  }
  return arrived !== undefined ? { arrived } : {};
}

/** A track with the node's recorded episodes laid over it, within [start, end]. */
export function withEpisodes(
  track: NodeTrack,
  episodes: readonly PoolEpisode[] | undefined,
  start: number,
  end: number,
): NodeTrack {
  if (!episodes || episodes.length === 0) return track;
  let segments: Segment[] = track.segments;
  for (const [kind, state] of PAINTED) {
    for (const e of episodes) {
      if (e.kind !== kind) continue;
      const from = time(e.from);
      const to = time(e.to);
      if (from === undefined || from > end || (to !== undefined && to <= start)) continue;
      segments = paint(segments, state, Math.max(from, start), to);
    }
  }
  return segments === track.segments ? track : { ...track, segments };
}

/** The Events' times of each node with the arrivals the pool recorded. */
export function withArrivals(
  times: ReadonlyMap<string, NodeEventTimes>,
  pool: NodeConfigPool,
  episodes: ReadonlyMap<string, PoolEpisode[]> = episodesByNode(pool),
): Map<string, NodeEventTimes> {
  const merged = new Map(times);
  for (const [node, list] of episodes) {
    const arrival = arrivalTimes(list, pool.status?.targetRevision);
    if (arrival.arrived !== undefined) merged.set(node, { ...merged.get(node), ...arrival });
  }
  return merged;
}

/** A pool's timeline from one look at it: reconstructed tracks, the recorded episodes laid over them. */
export function recordedTimeline(
  pool: NodeConfigPool,
  members: readonly Node[],
  now: number,
  times: ReadonlyMap<string, NodeEventTimes>,
): PoolTimeline {
  const episodes = episodesByNode(pool);
  const timeline = reconstructTimeline(pool, members, now, withArrivals(times, pool, episodes));
  return {
    ...timeline,
    tracks: timeline.tracks.map((t) => withEpisodes(t, episodes.get(t.name), timeline.start, timeline.end)),
  };
}
