// What the dashboard shows, kept current from watches: informers on pools, revisions, nodes and Events
// (with the user's credentials), the fleet status `nodeherd status` prints, and per pool a timeline
// recorded live — every change of a node is recorded when it arrives, so a NotReady of a second shows
// even though snapshots go out at most a few times a second. A node first seen mid-rollout gets the
// track its objects still tell (timeline.ts reconstructTrack).

import type { NodeConfigPool, NodeConfigRevision } from '../../api/types.ts';
import { PATHS } from '../../controller/api-paths.ts';
import { Informer } from '../../kube/informer.ts';
import type { KubeClient } from '../../kube/kube-client.ts';
import type { KubeObject, Node } from '../../kube/types.ts';
import { kubeTime } from '../../util/kube-time.ts';
import { poolMembers, poolsOfNode } from '../pool-objects.ts';
import { type FailureExcerptView, failureExcerpts } from '../status/failure-view.ts';
import { buildFleetStatus, type FleetStatus } from '../status/fleet-status.ts';
import {
  eventTimeOf,
  eventTimesByNode,
  type Interval,
  isPaused,
  type NodeEvent,
  type NodeEventTimes,
  type NodeTrack,
  nodeState,
  type PoolTimeline,
  type RolloutContext,
  reconstructPaused,
  reconstructTrack,
  recordPaused,
  recordState,
  rolloutContext,
} from './timeline.ts';
import { arrivalTimes, episodesByNode, withArrivals, withEpisodes } from './timeline-episodes.ts';

interface CoreEvent extends KubeObject, NodeEvent {
  metadata: KubeObject['metadata'];
  message?: string;
  type?: string;
}

export interface EventView {
  at: string;
  node: string;
  type: string;
  reason: string;
  message: string;
}

export interface RevisionView {
  name: string;
  number: number;
  created?: string;
}

type RolloutRecord = NonNullable<NonNullable<NodeConfigPool['status']>['history']>[number];

export interface PoolDashboard {
  name: string;
  timeline: PoolTimeline;
  history: RolloutRecord[];
  revisions: RevisionView[];
  /** The latest Events of the pool's nodes, newest first. */
  events: EventView[];
  /** Why its nodes failed, in their agents' words (the unit's journal lines): failed now, or behind the rollback. */
  failures: FailureExcerptView[];
  /** The pool's rollbackTo, generation and observedGeneration: whether a request is still pending. */
  generation?: number;
  observedGeneration?: number;
}

export interface DashboardSnapshot {
  server: string;
  observedAt: string;
  /** ms since the epoch, the server's clock: the page draws "now" from it. */
  now: number;
  fleet: FleetStatus;
  pools: PoolDashboard[];
}

const EVENTS_PER_POOL = 30;

/** One rollout of a pool, as recorded: a new target starts a new recording. */
interface PoolRecording {
  context: RolloutContext;
  tracks: Map<string, NodeTrack>;
  paused: Interval[];
}

export interface DashboardModelOptions {
  /** Least time between two snapshots (default 500 ms). */
  throttleMs?: number;
  /** Longest time without a snapshot while a rollout goes on (soaking ends by time alone); default 2 s. */
  tickMs?: number;
  now?: () => number;
}

export class DashboardModel {
  private readonly client: KubeClient;
  private readonly pools: Informer<NodeConfigPool>;
  private readonly revisions: Informer<NodeConfigRevision>;
  private readonly nodes: Informer<Node>;
  private readonly events: Informer<CoreEvent>;
  private readonly recordings = new Map<string, PoolRecording>();
  private readonly listeners = new Set<(snapshot: DashboardSnapshot) => void>();
  private readonly throttleMs: number;
  private readonly now: () => number;
  private latest: DashboardSnapshot | undefined;
  private timer: NodeJS.Timeout | undefined;
  private readonly tick: NodeJS.Timeout;
  private lastAt = 0;
  private ready = false;
  readonly synced: Promise<void>;

  constructor(client: KubeClient, options: DashboardModelOptions = {}) {
    this.client = client;
    this.throttleMs = options.throttleMs ?? 500;
    this.now = options.now ?? Date.now;
    this.pools = new Informer<NodeConfigPool>(client, { path: PATHS.nodeConfigPools });
    this.revisions = new Informer<NodeConfigRevision>(client, { path: PATHS.revisions });
    this.nodes = new Informer<Node>(client, { path: PATHS.nodes });
    this.events = new Informer<CoreEvent>(client, { path: '/api/v1/events' });
    const changed = () => this.schedule();
    this.pools.on(changed);
    this.revisions.on(changed);
    this.events.on(changed);
    this.nodes.on((type, node) => {
      if (this.ready && type !== 'delete') this.recordNode(node, this.now());
      this.schedule();
    });
    const informers = [this.pools, this.revisions, this.nodes, this.events];
    for (const informer of informers) informer.start();
    this.synced = Promise.all(informers.map((i) => i.waitForSync())).then(() => {
      this.ready = true;
      this.emit();
    });
    this.synced.catch(() => {});
    this.tick = setInterval(() => {
      if (this.ready && this.lastAt + (options.tickMs ?? 2000) <= this.now()) this.schedule();
    }, 500);
    this.tick.unref();
  }

  /** The latest snapshot; undefined until the caches are filled. */
  get snapshot(): DashboardSnapshot | undefined {
    return this.latest;
  }

  /** Calls `listener` with every new snapshot; returns how to stop. */
  subscribe(listener: (snapshot: DashboardSnapshot) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  async stop(): Promise<void> {
    clearInterval(this.tick);
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    this.ready = false;
    this.listeners.clear();
    await Promise.all([this.pools, this.revisions, this.nodes, this.events].map((i) => i.stop()));
  }

  private schedule(): void {
    if (!this.ready || this.timer) return;
    this.timer = setTimeout(() => this.emit(), Math.max(0, this.lastAt + this.throttleMs - this.now()));
  }

  /** The recording of `pool`'s current rollout (a new one when its target changed). */
  private recording(pool: NodeConfigPool, now: number): PoolRecording {
    const name = pool.metadata.name;
    const existing = this.recordings.get(name);
    const context = rolloutContext(pool, now);
    if (existing && existing.context.target === context.target) {
      // Same rollout: keep its start (the controller may write the history record after the target).
      existing.context = { ...context, startedAt: existing.context.startedAt };
      return existing;
    }
    const fresh: PoolRecording = {
      context,
      tracks: new Map(),
      paused: reconstructPaused(pool, Math.min(context.startedAt, now)),
    };
    this.recordings.set(name, fresh);
    return fresh;
  }

  private recordNode(node: Node, now: number): void {
    const pools = poolsOfNode(node, this.pools.list());
    if (pools.length !== 1) return;
    const recording = this.recording(pools[0]!, now);
    const track = recording.tracks.get(node.metadata.name);
    if (track) {
      const arrived = arrivalTimes(
        episodesByNode(pools[0]!).get(node.metadata.name),
        recording.context.target,
      );
      recordState(track, nodeState(node, recording.context, now, arrived.arrived), now);
    } else {
      const times = withArrivals(this.eventTimes(), pools[0]!);
      recording.tracks.set(
        node.metadata.name,
        reconstructTrack(node, recording.context, now, times.get(node.metadata.name)),
      );
    }
  }

  private eventTimes(): Map<string, NodeEventTimes> {
    return eventTimesByNode(this.events.list());
  }

  private emit(): void {
    this.timer = undefined;
    const now = this.now();
    this.lastAt = now;
    const pools = this.pools.list();
    const nodes = this.nodes.list();
    const revisions = this.revisions.list();
    const fleet = buildFleetStatus(
      { pools, revisions, nodes },
      { server: this.client.server.origin, observedAt: kubeTime(now) },
    );
    const nodeEvents = this.events
      .list()
      .filter((e) => e.involvedObject?.kind === 'Node' && e.involvedObject.name)
      .sort((a, b) => (eventTimeOf(a) < eventTimeOf(b) ? 1 : -1));
    const views: PoolDashboard[] = [];
    for (const pool of [...pools].sort((a, b) => (a.metadata.name < b.metadata.name ? -1 : 1))) {
      const name = pool.metadata.name;
      const recording = this.recording(pool, now);
      const members = poolMembers(pool, pools, nodes);
      const memberNames = new Set(members.map((n) => n.metadata.name));
      for (const node of members) this.recordNode(node, now);
      for (const gone of [...recording.tracks.keys()].filter((n) => !memberNames.has(n))) {
        recording.tracks.delete(gone);
      }
      recordPaused(recording.paused, isPaused(pool), now);
      const target = recording.context.target;
      const start = Math.min(recording.context.startedAt, now);
      const episodes = episodesByNode(pool);
      views.push({
        name,
        timeline: {
          pool: name,
          ...(target ? { target } : {}),
          start,
          end: now,
          // What the controller recorded (status.episodes) over what this process saw or reconstructed.
          tracks: members.map((n) =>
            withEpisodes(recording.tracks.get(n.metadata.name)!, episodes.get(n.metadata.name), start, now),
          ),
          paused: recording.paused,
        },
        history: pool.status?.history ?? [],
        failures: failureExcerpts(pool, members),
        revisions: revisions
          .filter((r) => r.spec?.pool === name)
          .map((r) => ({
            name: r.metadata.name,
            number: r.spec.revision,
            ...(r.metadata.creationTimestamp ? { created: r.metadata.creationTimestamp } : {}),
          }))
          .sort((a, b) => b.number - a.number),
        events: nodeEvents
          .filter((e) => memberNames.has(e.involvedObject!.name!))
          .slice(0, EVENTS_PER_POOL)
          .map((e) => ({
            at: eventTimeOf(e),
            node: e.involvedObject!.name!,
            type: e.type ?? 'Normal',
            reason: e.reason ?? '',
            message: e.message ?? '',
          })),
        ...(pool.metadata.generation !== undefined ? { generation: pool.metadata.generation } : {}),
        ...(pool.status?.observedGeneration !== undefined
          ? { observedGeneration: pool.status.observedGeneration }
          : {}),
      });
    }
    for (const gone of [...this.recordings.keys()].filter((n) => !pools.some((p) => p.metadata.name === n))) {
      this.recordings.delete(gone);
    }
    this.latest = { server: this.client.server.origin, observedAt: kubeTime(now), now, fleet, pools: views };
    for (const listener of this.listeners) listener(this.latest);
  }
}
