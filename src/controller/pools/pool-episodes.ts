// The episodes of a pool's nodes (src/api/pool-episodes-schema.ts), recorded as the controller sees
// them happen: each reconcile compares its nodes with the episodes the status holds, opens those that
// began (Failed, NotReady, Drain, Reboot), closes those that ended, and notes a node reaching the target
// (Updated, or RolledBack while a rollback pins the pool). Pure and deterministic: an unchanged world
// gives back the very same list (and no status write). Bounded in bytes: arrivals go first, then the
// oldest finished episodes, failures last.
//
// A reconcile reads every member (at 5,000 nodes, 1,500 times a rollout: docs/controller.md, "CPU per
// pool reconcile"), so a node with nothing to record costs a few field reads and map lookups: the index
// of the previous list (open episodes and last arrival per node, its size in bytes) is kept with the
// list itself, which the pool's cached status holds until it changes.

import {
  type EpisodeKind,
  MAX_EPISODE_MESSAGE_BYTES,
  MAX_EPISODES,
  MAX_EPISODES_BYTES,
} from '../../api/pool-episodes-schema.ts';
import type { NodeConfigPoolStatus } from '../../api/types.ts';
import { truncateUtf8 } from '../../util/truncate-utf8.ts';
import { isoTime } from '../../util/utc-time.ts';
import { failedRevisionOf } from '../node-snapshot.ts';
import { isHealthy } from '../rollout/node-verdict.ts';
import type { NodeSnapshot } from '../rollout/types.ts';

export type PoolEpisode = NonNullable<NodeConfigPoolStatus['episodes']>[number];

type IntervalKind = Exclude<EpisodeKind, 'Updated' | 'RolledBack'>;
const INTERVAL_KINDS: readonly IntervalKind[] = ['Failed', 'NotReady', 'Drain', 'Reboot'];

/** Episode times keep milliseconds (a soak of three seconds is drawn on the timeline). */
const stamp = isoTime;

interface Ongoing {
  revision?: string;
  message?: string;
  /** When it began, if the Node says (a condition's transition); else now. */
  since?: number;
}

function isArrival(e: PoolEpisode): boolean {
  return e.kind === 'Updated' || e.kind === 'RolledBack';
}

/** Whether an episode of `kind` goes on for the node now (no allocation: asked of every member). */
function going(node: NodeSnapshot, kind: IntervalKind): boolean {
  switch (kind) {
    case 'Failed':
      return node.agentState === 'Failed';
    case 'NotReady':
      return !node.ready && !node.deleting;
    case 'Drain':
      return node.drainingFor !== undefined || (node.cordonedByUs && node.drainBlocked !== undefined);
    case 'Reboot':
      return node.rebootRequested !== undefined && node.rebooted !== node.rebootRequested;
  }
}

/** What an ongoing episode of `kind` says (asked only of a node that has one). */
function ongoing(node: NodeSnapshot, kind: IntervalKind): Ongoing {
  switch (kind) {
    case 'Failed': {
      const revision = failedRevisionOf(node.agentMessage) ?? node.desiredRevision;
      // The agent's one line (reason and cause) first, then the excerpt its condition carries.
      const detail = node.failureDetail;
      const excerpt = detail?.includes('\n') ? detail.slice(detail.indexOf('\n') + 1) : undefined;
      const head = node.agentMessage ?? detail?.split('\n')[0];
      const message = [head, excerpt].filter((part) => part !== undefined).join('\n') || undefined;
      return { ...(revision ? { revision } : {}), ...(message ? { message } : {}) };
    }
    case 'NotReady':
      return {
        ...(node.readyChangedAt !== undefined ? { since: node.readyChangedAt } : {}),
        ...(node.notReadyReason ? { message: node.notReadyReason } : {}),
      };
    case 'Drain':
      return {
        ...(node.drainingFor ? { revision: node.drainingFor } : {}),
        ...(node.drainBlocked ? { message: node.drainBlocked } : {}),
      };
    case 'Reboot':
      return node.desiredRevision ? { revision: node.desiredRevision } : {};
  }
}

function cut(message: string | undefined): string | undefined {
  return message === undefined ? undefined : truncateUtf8(message, MAX_EPISODE_MESSAGE_BYTES);
}

function time(value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const ms = Date.parse(value);
  return Number.isNaN(ms) ? undefined : ms;
}

const starts = new WeakMap<PoolEpisode, number>();

/** An episode's start in ms, parsed once per episode object. */
function startOf(e: PoolEpisode): number {
  let ms = starts.get(e);
  if (ms === undefined) {
    ms = time(e.from) ?? 0;
    starts.set(e, ms);
  }
  return ms;
}

export interface EpisodeInput {
  previous: readonly PoolEpisode[] | undefined;
  /** status.episodesDroppedBefore: episodes that began earlier may have been dropped. */
  droppedBefore?: string | undefined;
  nodes: readonly NodeSnapshot[];
  /** The pool's target revision. */
  target: string | undefined;
  /** A rollback pins the pool: nodes reaching the target are rolled back. */
  rollingBack: boolean;
  now: number;
}

interface EpisodeIndex {
  /** Open episodes per node, by kind. */
  open: Map<string, Map<EpisodeKind, PoolEpisode>>;
  lastArrival: Map<string, PoolEpisode>;
  /** The list's size as JSON, in bytes. */
  bytes: number;
}

const indexes = new WeakMap<readonly PoolEpisode[], EpisodeIndex>();

function indexOf(list: readonly PoolEpisode[]): EpisodeIndex {
  const known = indexes.get(list);
  if (known) return known;
  const index = indexFor(list, listBytes(list));
  indexes.set(list, index);
  return index;
}

function indexFor(list: readonly PoolEpisode[], bytes: number): EpisodeIndex {
  const index: EpisodeIndex = { open: new Map(), lastArrival: new Map(), bytes };
  for (const e of list) {
    if (isArrival(e)) index.lastArrival.set(e.node, e);
    else if (e.to === undefined) {
      const byKind = index.open.get(e.node) ?? new Map<EpisodeKind, PoolEpisode>();
      byKind.set(e.kind, e);
      index.open.set(e.node, byKind);
    }
  }
  return index;
}

/** The edits a reconcile makes: episodes replaced (closed, message changed) and added. */
class Edits {
  readonly replaced = new Map<PoolEpisode, PoolEpisode>();
  readonly added: PoolEpisode[] = [];
  get empty(): boolean {
    return this.replaced.size === 0 && this.added.length === 0;
  }
}

export interface EpisodeRecord {
  episodes: PoolEpisode[];
  /** Set once the bound dropped an episode: the latest start of one dropped. */
  droppedBefore?: string;
}

/** The episodes after this look at the nodes: the previous list itself when nothing happened. */
export function recordEpisodes(input: EpisodeInput): EpisodeRecord {
  const previous = input.previous ?? [];
  const droppedBefore = input.droppedBefore;
  const kept = (episodes: PoolEpisode[], dropped?: string) => {
    const latest =
      dropped !== undefined && (droppedBefore === undefined || dropped > droppedBefore)
        ? dropped
        : droppedBefore;
    return latest !== undefined ? { episodes, droppedBefore: latest } : { episodes };
  };
  const index = indexOf(previous);
  const edits = new Edits();
  const droppedMs = time(droppedBefore);
  let openSeen = 0;
  for (const node of input.nodes) {
    const open = index.open.get(node.name);
    if (open) openSeen++;
    // Most members, most of the time: nothing open, nothing going on.
    const quiet =
      open === undefined &&
      node.ready &&
      node.agentState !== 'Failed' &&
      node.drainingFor === undefined &&
      !(node.cordonedByUs && node.drainBlocked !== undefined) &&
      (node.rebootRequested === undefined || node.rebooted === node.rebootRequested);
    if (!quiet) recordIntervals(node, open, edits, input.now);
    const arrived = arrival(node, input, index.lastArrival.get(node.name), droppedMs);
    if (arrived) edits.added.push(arrived);
  }
  return finish(previous, index, edits, input, openSeen, kept);
}

function recordIntervals(
  node: NodeSnapshot,
  open: Map<EpisodeKind, PoolEpisode> | undefined,
  edits: Edits,
  now: number,
): void {
  for (const kind of INTERVAL_KINDS) {
    const known = open?.get(kind);
    if (going(node, kind)) recordOngoing(node, kind, known, edits, now);
    else if (known) edits.replaced.set(known, closed(known, node, now));
  }
}

function finish(
  previous: readonly PoolEpisode[],
  index: EpisodeIndex,
  edits: Edits,
  input: EpisodeInput,
  openSeen: number,
  kept: (episodes: PoolEpisode[], dropped?: string) => EpisodeRecord,
): EpisodeRecord {
  // A node that left the pool ends its episodes (looked for only when some open node was not seen).
  if (openSeen < index.open.size) {
    const present = new Set(input.nodes.map((n) => n.name));
    for (const [node, byKind] of index.open) {
      if (present.has(node)) continue;
      for (const e of byKind.values()) edits.replaced.set(e, { ...e, to: stamp(input.now) });
    }
  }
  if (edits.empty) return kept(previous as PoolEpisode[]);
  const next = [...previous.map((e) => edits.replaced.get(e) ?? e), ...edits.added];
  let bytes = index.bytes;
  for (const [was, now] of edits.replaced) bytes += sizeOf(now) - sizeOf(was);
  for (const e of edits.added) bytes += sizeOf(e);
  const bounded = bound(next, bytes);
  return kept(bounded.episodes, bounded.droppedBefore);
}

function recordOngoing(
  node: NodeSnapshot,
  kind: IntervalKind,
  known: PoolEpisode | undefined,
  edits: Edits,
  now: number,
): void {
  const seen = ongoing(node, kind);
  const message = cut(seen.message);
  if (known && (seen.revision === undefined || known.revision === seen.revision)) {
    // The same episode: a failure's excerpt or a drain's blocker may have become more precise.
    if (message !== undefined && known.message !== message && kind !== 'NotReady')
      edits.replaced.set(known, { ...known, message });
    return;
  }
  if (known) edits.replaced.set(known, { ...known, to: stamp(now) }); // the same kind, another revision
  edits.added.push({
    node: node.name,
    kind,
    ...(seen.revision ? { revision: seen.revision } : {}),
    from: seen.since !== undefined && seen.since <= now ? stamp(seen.since) : stamp(now),
    ...(message !== undefined ? { message } : {}),
  });
}

/** An episode that ended: NotReady when the node turned Ready (its condition says when), others now. */
function closed(episode: PoolEpisode, node: NodeSnapshot, now: number): PoolEpisode {
  const readyAt = episode.kind === 'NotReady' ? node.readyChangedAt : undefined;
  const from = time(episode.from) ?? now;
  const to = readyAt !== undefined && readyAt >= from && readyAt <= now ? readyAt : now;
  return { ...episode, to: stamp(to) };
}

/** A node that reached the target healthy since it last did: Updated (RolledBack during a rollback). */
function arrival(
  node: NodeSnapshot,
  input: EpisodeInput,
  last: PoolEpisode | undefined,
  droppedMs: number | undefined,
): PoolEpisode | undefined {
  const target = input.target;
  if (target === undefined || node.currentRevision !== target || node.desiredRevision !== target) return;
  if (node.agentState !== 'Done') return;
  // Once per update: the controller's start of it (nodeherd.io/update-started) is newer than the last arrival.
  const started = node.updateStartedAt;
  if (started === undefined && last === undefined) return; // never updated by this pool: nothing happened
  // Its arrival may have been recorded and dropped by the bound: not again (or it would churn).
  if (last === undefined && droppedMs !== undefined && (started === undefined || started <= droppedMs))
    return;
  if (last && last.revision === target && (started === undefined || startOf(last) >= started)) return;
  if (!isHealthy(node)) return;
  return {
    node: node.name,
    kind: input.rollingBack ? 'RolledBack' : 'Updated',
    revision: target,
    from: stamp(input.now),
  };
}

const sizes = new WeakMap<PoolEpisode, number>();

function sizeOf(e: PoolEpisode): number {
  let size = sizes.get(e);
  if (size === undefined) {
    size = Buffer.byteLength(JSON.stringify(e)) + 1; // and its comma
    sizes.set(e, size);
  }
  return size;
}

/** Which episodes give way first: arrivals, then finished ones, finished failures last; open ones never. */
function dropClass(e: PoolEpisode): number {
  if (isArrival(e)) return 0;
  if (e.to === undefined) return 3;
  return e.kind === 'Failed' ? 2 : 1;
}

/**
 * The list's size as JSON (plus one: sizeOf counts a comma after each episode). A list read back from
 * the API server is a new object after every status write, so this is one native stringify, not one
 * per episode.
 */
function listBytes(list: readonly PoolEpisode[]): number {
  return Buffer.byteLength(JSON.stringify(list)) + 1;
}

/** Keeps the episodes within MAX_EPISODES and MAX_EPISODES_BYTES, dropping oldest first within a class. */
export function bound(
  episodes: PoolEpisode[],
  bytes = listBytes(episodes),
): { episodes: PoolEpisode[]; droppedBefore?: string } {
  let size = bytes;
  if (episodes.length <= MAX_EPISODES && size <= MAX_EPISODES_BYTES) {
    indexes.set(episodes, indexFor(episodes, size));
    return { episodes };
  }
  const dropped = new Set<PoolEpisode>();
  let count = episodes.length;
  for (let cls = 0; cls <= 3 && (count > MAX_EPISODES || size > MAX_EPISODES_BYTES); cls++) {
    for (const e of episodes) {
      if (count <= MAX_EPISODES && size <= MAX_EPISODES_BYTES) break;
      if (dropClass(e) !== cls) continue;
      dropped.add(e);
      count--;
      size -= sizeOf(e);
    }
  }
  let droppedBefore: string | undefined;
  for (const e of dropped) if (droppedBefore === undefined || e.from > droppedBefore) droppedBefore = e.from;
  const rest = episodes.filter((e) => !dropped.has(e));
  // The next reconcile's index starts from this size instead of adding it up again.
  indexes.set(rest, indexFor(rest, size));
  return droppedBefore !== undefined ? { episodes: rest, droppedBefore } : { episodes: rest };
}
