// The kubelet of a simulated node, as the control plane sees it: it registers its Node, renews its
// Lease in kube-node-lease every renew interval (the heartbeat the node lifecycle controller watches),
// and posts Node status only when its readiness changes, plus a slow periodic report like kubelet's
// nodeStatusReportFrequency. It never rewrites the Node just to say it is alive.
//
// The kubelet "process" can be restarted, stopped and fail to start (the simulated systemd drives
// this when an agent restarts kubelet.service). While the process is down nothing is renewed, so
// a kubelet that stays down turns Ready=Unknown through the lifecycle controller, exactly as a real
// one does. After a (re)start it reports Ready=False (KubeletNotReady) for a while, then Ready=True.

import { Backoff } from '../kube/backoff.ts';
import { isKubeError } from '../kube/kube-error.ts';
import { resourcePath } from '../kube/light/api-paths.ts';
import type { LightKubeClient } from '../kube/light/light-kube-client.ts';
import type { KubeObject } from '../kube/light/types.ts';
import { HeartbeatWheel, type WheelMembership } from './heartbeat-wheel.ts';
import { NodeLease } from './node-lease.ts';
import {
  type NodeDescription,
  nodeConditions,
  nodeLabels,
  nodeObject,
  nodeStatus,
  READY,
  type ReadyState,
  readyConditionOf,
} from './node-object.ts';

export interface KubeletTiming {
  /** Lease duration (kubelet default 40 s). */
  leaseDurationSeconds?: number;
  /** How often the Lease is renewed (default: a quarter of the lease duration, kubelet's 10 s). */
  renewIntervalMs?: number;
  /** Status is re-posted at least this often even when nothing changed (kubelet default 5 min). */
  statusReportIntervalMs?: number;
  /** How long a (re)started kubelet reports Ready=False before Ready=True (default 5 s). */
  startupNotReadyMs?: number;
}

export interface SimulatedKubeletOptions extends KubeletTiming {
  node: NodeDescription;
  client: LightKubeClient;
  /** A wheel shared by many kubelets; its period must be the renew interval. Default: its own. */
  wheel?: HeartbeatWheel;
  /** The machine's boot id, reported as nodeInfo.bootID (changes when the machine reboots). */
  bootId?: () => string;
  /** Failed requests (the kubelet retries on its own). */
  onError?: (error: Error, during: KubeletActivity) => void;
  now?: () => number;
  /**
   * The version of the kubelet binary on the machine (its installed package's), read when the process
   * starts: a kubelet reports the version it runs, so an upgraded package shows once kubelet restarts.
   * Default: the description's kubeletVersion.
   */
  version?: () => string | undefined;
}

export type KubeletActivity = 'register' | 'lease' | 'status';

/** stopped: never started or the node is off; registering: creating its Node; running: up. */
export type KubeletPhase = 'stopped' | 'registering' | 'running';

/** The kubelet process as systemd sees it. */
export type KubeletProcess = 'running' | 'restarting' | 'stopped' | 'failed';

export interface KubeletCounters {
  registrations: number;
  leaseRenewals: number;
  statusPosts: number;
  failures: number;
}

export interface KubeletSnapshot {
  name: string;
  phase: KubeletPhase;
  process: KubeletProcess;
  /** Whether heartbeats are currently sent (running, process up, not partitioned). */
  heartbeating: boolean;
  /** What the kubelet reports (or would report) as its Ready condition. */
  ready: ReadyState;
  /** The Ready condition last accepted by the server from this kubelet. */
  postedReady: boolean | undefined;
  /** Node uid of the current registration. */
  uid: string | undefined;
  counters: KubeletCounters;
}

const NOT_READY_STARTING: ReadyState = {
  ready: false,
  reason: 'KubeletNotReady',
  message: 'PLEG is not healthy: pleg has yet to be successful',
};

/** Status posts tried in a row before waiting for the next heartbeat (kubelet's nodeStatusUpdateRetry). */
const NODE_STATUS_UPDATE_RETRY = 5;
/** Lease renewals tried in a row before waiting for the next heartbeat (the lease controller's maxUpdateRetries). */
const NODE_LEASE_UPDATE_RETRY = 5;

export class SimulatedKubelet {
  readonly name: string;
  readonly description: NodeDescription;
  readonly renewIntervalMs: number;
  private readonly client: LightKubeClient;
  private readonly lease: NodeLease;
  private readonly wheel: HeartbeatWheel;
  private readonly ownWheel: boolean;
  private readonly statusReportIntervalMs: number;
  private readonly startupNotReadyMs: number;
  private readonly onError: ((error: Error, during: KubeletActivity) => void) | undefined;
  private readonly now: () => number;
  private readonly bootId: (() => string) | undefined;
  private readonly installedVersion: (() => string | undefined) | undefined;
  /** The version the running process reports, read at its start; the last one accepted by the server. */
  private runningVersion: string | undefined;
  private postedVersion: string | undefined;
  private readonly nodePath: string;
  private readonly statusPath: string;
  private readonly counters: KubeletCounters = {
    registrations: 0,
    leaseRenewals: 0,
    statusPosts: 0,
    failures: 0,
  };

  private phaseValue: KubeletPhase = 'stopped';
  private processValue: KubeletProcess = 'running';
  /** Incremented by start/stop so late answers of an earlier life are ignored. */
  private epoch = 0;
  private membership: WheelMembership | undefined;
  private uid: string | undefined;
  /** Reasons the kubelet reports NotReady, by source; Ready=True when there are none. */
  private readonly notReady = new Map<string, ReadyState>();
  private readonly timers = new Map<string, NodeJS.Timeout>();
  private partitionedUntil = 0;
  /** The Node was deleted behind the kubelet's back (seen by the shared watch). */
  private nodeDeleted = false;
  private readySince: number;
  private lastReady: ReadyState = READY;
  private postedReady: ReadyState | undefined;
  private lastStatusPostAt = Number.NEGATIVE_INFINITY;
  private statusDirty = false;
  private statusInFlight: Promise<void> | undefined;
  private leaseInFlight = false;

  constructor(options: SimulatedKubeletOptions) {
    this.name = options.node.name;
    this.description = options.node;
    this.client = options.client;
    this.now = options.now ?? Date.now;
    const leaseSeconds = options.leaseDurationSeconds ?? 40;
    this.renewIntervalMs = options.wheel?.periodMs ?? options.renewIntervalMs ?? (leaseSeconds * 1000) / 4;
    this.statusReportIntervalMs = options.statusReportIntervalMs ?? 5 * 60_000;
    this.startupNotReadyMs = options.startupNotReadyMs ?? 5_000;
    this.onError = options.onError;
    this.bootId = options.bootId;
    this.installedVersion = options.version;
    this.lease = new NodeLease(this.client, this.name, { leaseDurationSeconds: leaseSeconds, now: this.now });
    this.ownWheel = options.wheel === undefined;
    this.wheel = options.wheel ?? new HeartbeatWheel({ periodMs: this.renewIntervalMs });
    this.nodePath = resourcePath({ apiVersion: 'v1', resource: 'nodes', name: this.name });
    this.statusPath = resourcePath({
      apiVersion: 'v1',
      resource: 'nodes',
      name: this.name,
      subresource: 'status',
    });
    this.readySince = this.now();
  }

  get phase(): KubeletPhase {
    return this.phaseValue;
  }

  get process(): KubeletProcess {
    return this.processValue;
  }

  /**
   * Heartbeats go out: the node runs, the kubelet process is up, the network is not cut and its Node
   * was not deleted.
   */
  get heartbeating(): boolean {
    return (
      this.phaseValue === 'running' &&
      this.processValue === 'running' &&
      !this.partitioned &&
      !this.nodeDeleted
    );
  }

  /** The Ready condition the kubelet reports now. */
  get ready(): ReadyState {
    for (const state of this.notReady.values()) return state;
    return READY;
  }

  snapshot(): KubeletSnapshot {
    return {
      name: this.name,
      phase: this.phaseValue,
      process: this.processValue,
      heartbeating: this.heartbeating,
      ready: this.ready,
      postedReady: this.postedReady?.ready,
      uid: this.uid,
      counters: { ...this.counters },
    };
  }

  /**
   * Registers the Node (or adopts an existing one, as a restarted kubelet does), creates or renews
   * the Lease and starts the heartbeat. Retries registration with backoff until it succeeds or
   * stop() is called; resolves once registered (or stopped). With notReadyAtStart, it registers
   * Ready=False for the startup window first, as a booting machine's kubelet does.
   */
  async start(options: { notReadyAtStart?: boolean } = {}): Promise<void> {
    if (this.phaseValue !== 'stopped') return;
    const epoch = ++this.epoch;
    this.phaseValue = 'registering';
    this.processValue = 'running';
    this.readVersion();
    this.nodeDeleted = false;
    // A booting kubelet registers NotReady until its runtime is up; a fleet start skips that
    // window (one status post fewer per node) unless asked.
    if (options.notReadyAtStart) this.setNotReady('starting', NOT_READY_STARTING, this.startupNotReadyMs);
    const backoff = new Backoff({ initialMs: 200, maxMs: 7_000 });
    while (epoch === this.epoch) {
      try {
        await this.register();
        break;
      } catch (err) {
        this.report(err as Error, 'register');
        await this.sleep(backoff.next());
      }
    }
    if (epoch !== this.epoch) return;
    this.phaseValue = 'running';
    this.lease.setOwner(this.uid);
    this.lastStatusPostAt = this.now();
    this.membership = this.wheel.add((now) => this.heartbeat(now));
    if (this.statusDirty) void this.flushStatus();
    await this.renewLease();
  }

  /** Stops heartbeats and timers; the Node and its Lease stay (they go stale, like a dead kubelet's). */
  stop(): void {
    this.epoch++;
    this.phaseValue = 'stopped';
    if (this.membership) this.wheel.remove(this.membership);
    this.membership = undefined;
    for (const timer of this.timers.values()) clearTimeout(timer);
    this.timers.clear();
    this.notReady.clear();
    this.partitionedUntil = 0;
    this.lease.reset();
    if (this.ownWheel) this.wheel.stop();
  }

  /** systemd began restarting kubelet.service: the process is down until started() or failed(). */
  restarting(): void {
    this.processValue = 'restarting';
  }

  /** systemd stopped kubelet.service. */
  stopped(): void {
    this.processValue = 'stopped';
  }

  /** kubelet.service failed to (re)start: no heartbeats until it starts again. */
  failed(): void {
    this.processValue = 'failed';
    this.clearNotReady('starting');
  }

  /**
   * kubelet.service (re)started: Ready=False for the startup window, then Ready=True. Resolves once
   * the NotReady status reached the server (or failed to), so whoever restarted the kubelet can rely
   * on the control plane having seen it.
   */
  async started(): Promise<void> {
    this.processValue = 'running';
    this.readVersion();
    this.setNotReady('starting', NOT_READY_STARTING, this.startupNotReadyMs);
    if (this.phaseValue === 'running') {
      void this.renewLease();
      await this.flushStatus();
    }
  }

  /** Reports Ready=False for `durationMs` (or until clearNotReady) under `source`. */
  setNotReady(source: string, state: Omit<ReadyState, 'ready'>, durationMs?: number): void {
    const existing = this.timers.get(source);
    if (existing) clearTimeout(existing);
    this.timers.delete(source);
    this.notReady.set(source, { ready: false, reason: state.reason, message: state.message });
    if (durationMs !== undefined && Number.isFinite(durationMs)) {
      const timer = setTimeout(() => {
        this.timers.delete(source);
        this.clearNotReady(source);
      }, durationMs);
      timer.unref();
      this.timers.set(source, timer);
    }
    this.readinessChanged();
  }

  clearNotReady(source: string): void {
    const timer = this.timers.get(source);
    if (timer) clearTimeout(timer);
    this.timers.delete(source);
    if (this.notReady.delete(source)) this.readinessChanged();
  }

  /**
   * Cuts the node off the API server for `durationMs` (Infinity: until heal()): no Lease renewals, no
   * status, so the lifecycle controller marks it Ready=Unknown after its grace period.
   */
  partition(durationMs: number): void {
    this.partitionedUntil = this.now() + durationMs;
    const timer = this.timers.get('partition');
    if (timer) clearTimeout(timer);
    if (Number.isFinite(durationMs)) {
      const heal = setTimeout(() => this.heal(), durationMs);
      heal.unref();
      this.timers.set('partition', heal);
    }
  }

  /** Ends a partition: renews the Lease and re-posts status at once, as a reconnecting kubelet does. */
  heal(): void {
    const timer = this.timers.get('partition');
    if (timer) clearTimeout(timer);
    this.timers.delete('partition');
    this.partitionedUntil = 0;
    if (!this.heartbeating) return;
    void this.renewLease();
    this.statusDirty = true;
    void this.flushStatus();
  }

  /**
   * What the server holds for this Node (from a shared watch). A kubelet syncs its status against
   * the server every few seconds; here the watch tells it when the server's Ready differs from what
   * it reports (e.g. the lifecycle controller marked it Unknown after a late renewal), so it re-posts.
   */
  observe(node: KubeObject | undefined): void {
    if (!this.heartbeating) return;
    if (node === undefined) {
      // Someone deleted the Node. Like kubelet, which registers once per start, stay unregistered
      // (no Lease, no status) until the next start; renewing would only recreate an orphan Lease.
      this.nodeDeleted = true;
      return;
    }
    if (node.metadata?.uid !== this.uid) return;
    // A post in flight sets the server's view; an event from before it must not trigger another.
    if (this.statusInFlight) return;
    const condition = readyConditionOf(node);
    const expected = this.ready.ready ? 'True' : 'False';
    if (condition?.status !== expected || condition?.reason !== this.ready.reason) {
      this.statusDirty = true;
      void this.flushStatus();
    }
  }

  /** One wheel turn: renew the Lease; post status when a post failed or the report is due. */
  private heartbeat(now: number): void {
    if (!this.heartbeating) return;
    void this.renewLease();
    if (this.statusDirty || now - this.lastStatusPostAt >= this.statusReportIntervalMs) {
      this.statusDirty = true;
      void this.flushStatus();
    }
  }

  /** The version the kubelet reports: its binary's, as installed when the process started. */
  get version(): string | undefined {
    return this.runningVersion ?? this.description.kubeletVersion;
  }

  private readVersion(): void {
    const installed = this.installedVersion?.();
    if (installed !== undefined) this.runningVersion = installed;
    if (this.runningVersion !== this.postedVersion) this.statusDirty = true;
  }

  /** The description with the version the running kubelet reports. */
  private get reported(): NodeDescription {
    const version = this.version;
    return version === undefined ? this.description : { ...this.description, kubeletVersion: version };
  }

  private get partitioned(): boolean {
    return this.partitionedUntil > this.now();
  }

  private async register(): Promise<void> {
    const now = this.now();
    const ready = this.ready;
    let node: KubeObject;
    try {
      node = await this.client.create(
        '/api/v1/nodes',
        nodeObject(this.reported, ready, now, now, this.bootId?.()),
      );
    } catch (err) {
      if (!isKubeError(err, 409)) throw err;
      // Re-registration: keep the Node (and its annotations, the agent's state), refresh what the
      // kubelet owns: its labels and its status.
      await this.client.patch(this.nodePath, { metadata: { labels: nodeLabels(this.description) } }, 'merge');
      node = await this.client.patch(
        this.statusPath,
        { status: nodeStatus(this.reported, ready, now, now, this.bootId?.()) },
        'strategic',
      );
    }
    this.counters.registrations++;
    this.uid = node.metadata?.uid;
    this.readySince = now;
    this.lastReady = ready;
    this.postedReady = ready;
    this.postedVersion = this.runningVersion;
    const current = this.ready;
    this.statusDirty = current.ready !== ready.ready || current.reason !== ready.reason;
  }

  /**
   * Renews the Lease, trying again at once after a failure up to the kubelet's maxUpdateRetries (5 tries)
   * and then on the next heartbeat: one failed request must not bring the node 10 s closer to the
   * lifecycle controller's grace period (four in a row would have it marked Unknown).
   */
  private async renewLease(): Promise<void> {
    if (this.leaseInFlight || !this.heartbeating) return;
    const epoch = this.epoch;
    this.leaseInFlight = true;
    try {
      for (let tries = 1; this.heartbeating && epoch === this.epoch; tries++) {
        try {
          await this.lease.renew();
          if (epoch === this.epoch) this.counters.leaseRenewals++;
          return;
        } catch (err) {
          if (epoch === this.epoch) this.report(err as Error, 'lease');
          if (tries >= NODE_LEASE_UPDATE_RETRY) return;
        }
      }
    } finally {
      this.leaseInFlight = false;
    }
  }

  private readinessChanged(): void {
    const ready = this.ready;
    if (ready.ready !== this.lastReady.ready) this.readySince = this.now();
    if (ready.ready === this.lastReady.ready && ready.reason === this.lastReady.reason) return;
    this.lastReady = ready;
    this.statusDirty = true;
    if (this.heartbeating) void this.flushStatus();
  }

  /**
   * Posts the current conditions; one post at a time, repeated while changes arrive during it. A failed
   * post is tried again at once, up to the kubelet's nodeStatusUpdateRetry (5 tries) in all, and after
   * that on the next heartbeat: a NotReady that waited for the heartbeat would let the node look Ready
   * to the control plane for up to a heartbeat after its kubelet restarted.
   */
  private flushStatus(): Promise<void> {
    if (this.statusInFlight) return this.statusInFlight;
    const epoch = this.epoch;
    const run = async () => {
      let failures = 0;
      while (this.statusDirty && this.heartbeating && epoch === this.epoch) {
        this.statusDirty = false;
        const ready = this.ready;
        const now = this.now();
        // A restarted kubelet of another version says so (kubelet sets nodeInfo in every status sync).
        const version = this.runningVersion;
        const nodeInfo = version !== this.postedVersion ? { nodeInfo: { kubeletVersion: version } } : {};
        try {
          await this.client.patch(
            this.statusPath,
            { status: { conditions: nodeConditions(ready, now, this.readySince), ...nodeInfo } },
            'strategic',
          );
          if (epoch !== this.epoch) return;
          this.counters.statusPosts++;
          this.postedReady = ready;
          this.postedVersion = version;
          this.lastStatusPostAt = now;
        } catch (err) {
          if (epoch !== this.epoch) return;
          this.statusDirty = true;
          this.report(err as Error, 'status');
          // After the kubelet's tries, left to the next heartbeat.
          if (++failures >= NODE_STATUS_UPDATE_RETRY) return;
        }
      }
    };
    const flight = run().finally(() => {
      if (this.statusInFlight === flight) this.statusInFlight = undefined;
    });
    this.statusInFlight = flight;
    return flight;
  }

  private report(error: Error, during: KubeletActivity): void {
    this.counters.failures++;
    try {
      this.onError?.(error, during);
    } catch {
      // A failing error handler must not stop the kubelet.
    }
  }

  private sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(resolve, ms);
      timer.unref();
    });
  }
}
