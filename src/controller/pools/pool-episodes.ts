// The episodes of a pool's nodes (src/api/pool-episodes-schema.ts), recorded as the controller sees
// them happen: each reconcile compares its nodes with the episodes the status holds, opens those that
// began (Failed, NotReady, Drain, Reboot), closes those that ended, and notes a node reaching the target
// (Updated, or RolledBack while a rollback pins the pool). Pure and deterministic: an unchanged world
// gives the same list (and no status write). Bounded in bytes: the oldest finished episodes go first.

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

/** Episode times keep milliseconds (a soak of three seconds is drawn on the timeline). */
function kubeTime(ms: number): string {
  return isoTime(ms);
}

export type PoolEpisode = NonNullable<NodeConfigPoolStatus['episodes']>[number];

type IntervalKind = Exclude<EpisodeKind, 'Updated' | 'RolledBack'>;

interface Ongoing {
  revision?: string;
  message?: string;
  /** When it began, if the Node says (a condition's transition); else now. */
  since?: number;
}

/** The episodes going on for a node now, by kind. */
function ongoing(node: NodeSnapshot): Map<IntervalKind, Ongoing> {
  const now = new Map<IntervalKind, Ongoing>();
  if (node.agentState === 'Failed') {
    const revision = failedRevisionOf(node.agentMessage) ?? node.desiredRevision;
    // The agent's one line (reason and cause) first, then the excerpt its condition carries.
    const detail = node.failureDetail;
    const excerpt = detail?.includes('\n') ? detail.slice(detail.indexOf('\n') + 1) : undefined;
    const head = node.agentMessage ?? detail?.split('\n')[0];
    const message = [head, excerpt].filter((part) => part !== undefined).join('\n') || undefined;
    now.set('Failed', { ...(revision ? { revision } : {}), ...(message ? { message } : {}) });
  }
  if (!node.ready && !node.deleting) {
    now.set('NotReady', {
      ...(node.readyChangedAt !== undefined ? { since: node.readyChangedAt } : {}),
      ...(node.notReadyReason ? { message: node.notReadyReason } : {}),
    });
  }
  if (node.drainingFor !== undefined || (node.cordonedByUs && node.drainBlocked !== undefined)) {
    now.set('Drain', {
      ...(node.drainingFor ? { revision: node.drainingFor } : {}),
      ...(node.drainBlocked ? { message: node.drainBlocked } : {}),
    });
  }
  if (node.rebootRequested !== undefined && node.rebooted !== node.rebootRequested) {
    now.set('Reboot', node.desiredRevision ? { revision: node.desiredRevision } : {});
  }
  return now;
}

function cut(message: string | undefined): string | undefined {
  return message === undefined ? undefined : truncateUtf8(message, MAX_EPISODE_MESSAGE_BYTES);
}

function time(value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const ms = Date.parse(value);
  return Number.isNaN(ms) ? undefined : ms;
}

export interface EpisodeInput {
  previous: readonly PoolEpisode[] | undefined;
  nodes: readonly NodeSnapshot[];
  /** The pool's target revision. */
  target: string | undefined;
  /** A rollback pins the pool: nodes reaching the target are rolled back. */
  rollingBack: boolean;
  now: number;
}

/** The episodes after this look at the nodes. */
export function recordEpisodes(input: EpisodeInput): PoolEpisode[] {
  const { nodes, now } = input;
  const at = kubeTime(now);
  const episodes = (input.previous ?? []).map((e) => ({ ...e }));
  const open = new Map<string, PoolEpisode>();
  const lastArrival = new Map<string, PoolEpisode>();
  for (const e of episodes) {
    if (e.kind === 'Updated' || e.kind === 'RolledBack') lastArrival.set(e.node, e);
    else if (e.to === undefined) open.set(`${e.node}/${e.kind}`, e);
  }
  const seen = new Set<string>();
  for (const node of nodes) {
    seen.add(node.name);
    const going = ongoing(node);
    for (const [kind, now_] of going) {
      const key = `${node.name}/${kind}`;
      const known = open.get(key);
      const message = cut(now_.message);
      if (known && (now_.revision === undefined || known.revision === now_.revision)) {
        // The same episode: a failure's excerpt or a drain's blocker may have become more precise.
        if (message !== undefined && known.message !== message && kind !== 'NotReady')
          known.message = message;
        continue;
      }
      if (known) known.to = at; // the same kind about another revision: a new episode
      const from = now_.since !== undefined && now_.since <= now ? kubeTime(now_.since) : at;
      const episode: PoolEpisode = {
        node: node.name,
        kind,
        ...(now_.revision ? { revision: now_.revision } : {}),
        from,
        ...(message !== undefined ? { message } : {}),
      };
      episodes.push(episode);
      open.set(key, episode);
    }
    for (const [key, episode] of open) {
      if (episode.node !== node.name || going.has(episode.kind as IntervalKind)) continue;
      // Ended: NotReady when the node turned Ready (its condition says when), the others now.
      const readyAt = episode.kind === 'NotReady' ? node.readyChangedAt : undefined;
      const from = time(episode.from) ?? now;
      episode.to = readyAt !== undefined && readyAt >= from && readyAt <= now ? kubeTime(readyAt) : at;
      open.delete(key);
    }
    const arrived = arrival(node, input, lastArrival.get(node.name));
    if (arrived) {
      episodes.push(arrived);
      lastArrival.set(node.name, arrived);
    }
  }
  // A node that left the pool ends its episodes.
  for (const episode of open.values()) if (!seen.has(episode.node)) episode.to = at;
  return bound(episodes);
}

/** A node that reached the target healthy since it last did: Updated (RolledBack during a rollback). */
function arrival(
  node: NodeSnapshot,
  input: EpisodeInput,
  last: PoolEpisode | undefined,
): PoolEpisode | undefined {
  const target = input.target;
  if (target === undefined || node.currentRevision !== target || node.desiredRevision !== target) return;
  if (node.agentState !== 'Done' || !isHealthy(node)) return;
  // Once per update: the controller's start of it (nodeherd.io/update-started) is newer than the last arrival.
  const started = node.updateStartedAt;
  if (last && last.revision === target && (started === undefined || (time(last.from) ?? 0) >= started))
    return;
  if (started === undefined && last === undefined) return; // never updated by this pool: nothing happened
  return {
    node: node.name,
    kind: input.rollingBack ? 'RolledBack' : 'Updated',
    revision: target,
    from: kubeTime(input.now),
  };
}

/** Keeps the episodes within MAX_EPISODES and MAX_EPISODES_BYTES: the oldest finished ones go first. */
export function bound(episodes: PoolEpisode[]): PoolEpisode[] {
  let size = Buffer.byteLength(JSON.stringify(episodes));
  let list = episodes;
  while (list.length > 0 && (list.length > MAX_EPISODES || size > MAX_EPISODES_BYTES)) {
    let drop = list.findIndex((e) => e.to !== undefined || e.kind === 'Updated' || e.kind === 'RolledBack');
    if (drop < 0) drop = 0;
    size -= Buffer.byteLength(JSON.stringify(list[drop])) + 1;
    list = [...list.slice(0, drop), ...list.slice(drop + 1)];
  }
  return list;
}
