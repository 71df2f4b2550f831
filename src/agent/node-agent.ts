// The node agent: one instance per node, everything injected (API client, executors, host, clock,
// logger), no global state, so a simulator can run thousands in one process. It watches its Node
// and desired revision, reconciles one change at a time, and retries what failed to deliver.

import type { LightKubeClient } from '../kube/light/light-kube-client.ts';
import type { ActionExecutors } from './apply/action-executor.ts';
import type { ApplyHooks } from './apply/apply-runner.ts';
import { NodeProbeRunner, type ProbeRunner } from './apply/health-probe.ts';
import { KubeSecretSource } from './apply/kube-secret-source.ts';
import { poolRollbackPolicy, type RollbackPolicy } from './apply/pool-rollback-policy.ts';
import { type AgentStatus, Reconciler, type RestartDecision } from './apply/reconciler.ts';
import { type Clock, systemClock } from './clock.ts';
import { StartGate } from './gate/start-gate.ts';
import type { HostControl } from './host/host-control.ts';
import { type Logger, silentLogger } from './logger.ts';
import { AgentMetrics } from './metrics/agent-metrics.ts';
import { NodeUpdateApi } from './ota/node-update-api.ts';
import { NodeReporter } from './report/node-reporter.ts';
import { SerialSlots } from './serial/serial-slots.ts';
import { DesiredRevisionWatcher, type WatchTuning } from './watch/desired-revision-watcher.ts';

export const DEFAULT_SELF_UNIT = 'nodeherd-agent.service';
/** setTimeout's longest delay; a later retry (a Spread start days away) re-arms when it fires. */
const MAX_TIMER_MS = 2 ** 31 - 1;

export interface NodeAgentOptions {
  nodeName: string;
  /** The agent's own API client (its node credential). The agent does not close it. */
  client: LightKubeClient;
  /** Where last-applied, the journal and the agent's records live. */
  stateDir: string;
  executors: Omit<ActionExecutors, 'secrets'> & Partial<Pick<ActionExecutors, 'secrets'>>;
  host: HostControl;
  /** Default: HTTP and exec probes on this machine. */
  probes?: ProbeRunner;
  /** Default: ask the pool (failurePolicy.action Rollback). */
  rollbackPolicy?: RollbackPolicy;
  /**
   * After a reboot or self-restart was requested and this process still runs. Default: continue
   * (simulated hosts reboot at once; a self-restart that returned did not concern this process).
   */
  onHostRestart?(kind: 'reboot' | 'self'): Promise<RestartDecision>;
  /** The agent's own unit, restarted last when it changes (default nodeherd-agent.service). */
  selfUnit?: string;
  clock?: Clock;
  logger?: Logger;
  metrics?: AgentMetrics;
  watch?: WatchTuning;
  /** Namespace for Events (default 'default'). */
  eventNamespace?: string;
  /** Units get this long to become active after an apply (default 60 s). */
  unitTimeoutMs?: number;
  /** Pause between verification checks (default 250 ms). */
  verifyIntervalMs?: number;
  /** Backoff of retries after a failed apply (default 10 s doubling to 10 min). */
  retry?: { initialMs: number; maxMs: number };
  /** Backoff of retries of undelivered reports (default 1 s doubling to 60 s). */
  reportRetry?: { initialMs: number; maxMs: number };
  /** Repair drifted files at start (default true). */
  repairDrift?: boolean;
  hooks?: ApplyHooks;
}

export class NodeAgent {
  readonly nodeName: string;
  readonly metrics: AgentMetrics;
  private readonly options: NodeAgentOptions;
  private readonly logger: Logger;
  private readonly clock: Clock;
  private readonly reporter: NodeReporter;
  private readonly reconciler: Reconciler;
  private readonly watcher: DesiredRevisionWatcher;
  private readonly serialSlots: SerialSlots;
  /** The over-the-air update API of this node (served on the local HTTP server by the binary). */
  readonly updates: NodeUpdateApi;
  private loop: Promise<void> | undefined;
  private dirty = false;
  private started = false;
  private stopped = false;
  private retryTimer: NodeJS.Timeout | undefined;
  private reportTimer: NodeJS.Timeout | undefined;
  private reportFailures = 0;
  private lastError: string | undefined;
  private readonly idleWaiters: (() => void)[] = [];

  constructor(options: NodeAgentOptions) {
    this.options = options;
    this.nodeName = options.nodeName;
    this.logger = (options.logger ?? silentLogger).child({ node: options.nodeName });
    this.clock = options.clock ?? systemClock;
    this.metrics = options.metrics ?? new AgentMetrics();
    this.reporter = new NodeReporter({
      client: options.client,
      nodeName: options.nodeName,
      clock: this.clock,
      logger: this.logger,
      ...(options.eventNamespace !== undefined ? { eventNamespace: options.eventNamespace } : {}),
    });
    this.serialSlots = new SerialSlots({
      client: options.client,
      identity: options.nodeName,
      clock: this.clock,
      logger: this.logger,
      onChange: () => this.kick(),
      ...(options.watch?.bookmarkIntervalMs !== undefined
        ? { bookmarkIntervalMs: options.watch.bookmarkIntervalMs }
        : {}),
    });
    this.reconciler = new Reconciler({
      gate: new StartGate({ serial: this.serialSlots, clock: this.clock, logger: this.logger }),
      stateDir: options.stateDir,
      executors: {
        ...options.executors,
        secrets: options.executors.secrets ?? new KubeSecretSource(options.client),
      },
      host: options.host,
      probes: options.probes ?? new NodeProbeRunner(),
      reporter: this.reporter,
      metrics: this.metrics,
      clock: this.clock,
      logger: this.logger,
      rollbackPolicy: options.rollbackPolicy ?? poolRollbackPolicy(options.client, this.logger),
      onHostRestart: options.onHostRestart ?? (async () => 'continue'),
      selfUnit: options.selfUnit ?? DEFAULT_SELF_UNIT,
      unitTimeoutMs: options.unitTimeoutMs ?? 60_000,
      verifyIntervalMs: options.verifyIntervalMs ?? 250,
      retry: options.retry ?? { initialMs: 10_000, maxMs: 10 * 60_000 },
      ...(options.hooks ? { hooks: options.hooks } : {}),
    });
    this.watcher = new DesiredRevisionWatcher({
      client: options.client,
      nodeName: options.nodeName,
      logger: this.logger,
      ...(options.watch ? { tuning: options.watch } : {}),
      onNode: (node) => this.reporter.observe(node),
      onChange: () => this.kick(),
    });
    this.updates = new NodeUpdateApi({
      client: options.client,
      nodeName: options.nodeName,
      selfUnit: options.selfUnit ?? DEFAULT_SELF_UNIT,
      node: () => this.watcher.snapshot().node,
      lastApplied: () => this.reconciler.lastAppliedRevision,
      agentState: () => this.reconciler.status.state,
    });
  }

  /** Loads local state, repairs drift, then starts watching. Resolves once watching has begun. */
  async start(): Promise<void> {
    if (this.started) throw new Error('an agent starts once');
    this.started = true;
    await this.reconciler.load();
    if (this.options.repairDrift !== false) await this.reconciler.repairDrift();
    this.watcher.start();
    this.logger.info({ revision: this.reconciler.status.currentRevision }, 'agent started');
  }

  /** Stops watching and waits for a running reconcile to finish its current step. */
  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.retryTimer);
    clearTimeout(this.reportTimer);
    await this.watcher.stop();
    await this.loop;
    // A held Serial slot is kept: the next agent on this node re-adopts it.
    await this.serialSlots.close();
    await this.reconciler.close();
    for (const waiter of this.idleWaiters.splice(0)) waiter();
  }

  get status(): AgentStatus & { lastError: string | undefined; synced: boolean } {
    return {
      ...this.reconciler.status,
      lastError: this.lastError,
      synced: this.watcher.snapshot().nodeSynced,
    };
  }

  /** The Serial slot this agent holds, and whether it watches slot Leases (tests, /healthz). */
  get serialSlot(): { held: { pool: string; slot: number } | undefined; watching: boolean } {
    return { held: this.serialSlots.held, watching: this.serialSlots.watching };
  }

  /** API requests and informer statistics, for benchmarks and /metrics. */
  stats() {
    return { requests: this.options.client.stats(), informers: this.watcher.stats() };
  }

  /** For /healthz: unhealthy while the agent cannot use its own state (disk full, permissions). */
  health(): { healthy: boolean; body: unknown } {
    const status = this.status;
    const slot = this.serialSlots.held;
    return {
      healthy: status.lastError === undefined,
      body: { node: this.nodeName, ...status, ...(slot ? { serialSlot: slot } : {}) },
    };
  }

  /** Metrics text for /metrics. */
  renderMetrics(): string {
    this.metrics.syncApiRequests(this.options.client.stats());
    return this.metrics.render();
  }

  /** Resolves when no reconcile is running or queued (tests, benchmarks). */
  whenIdle(): Promise<void> {
    if (!this.loop) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  /** Asks for a reconcile; runs at once unless one is running, in which case another follows it. */
  kick(): void {
    if (this.stopped) return;
    this.dirty = true;
    if (!this.loop) this.loop = this.runLoop();
  }

  private async runLoop(): Promise<void> {
    try {
      while (this.dirty && !this.stopped) {
        this.dirty = false;
        clearTimeout(this.retryTimer);
        try {
          const result = await this.reconciler.reconcile(this.watcher.snapshot());
          this.lastError = undefined;
          if (result.retryAt !== undefined) this.scheduleRetry(result.retryAt);
        } catch (error) {
          // Local state could not be read or written (disk full, permissions): try again later.
          this.lastError = (error as Error).message;
          this.logger.error({ error: error as Error }, 'reconcile failed');
          this.scheduleRetry(this.clock.now() + 10_000);
        }
        if (this.reporter.pending) this.scheduleReportRetry();
        else this.reportFailures = 0;
      }
    } finally {
      this.loop = undefined;
      for (const waiter of this.idleWaiters.splice(0)) waiter();
    }
  }

  private scheduleRetry(at: number): void {
    clearTimeout(this.retryTimer);
    if (this.stopped) return;
    this.retryTimer = setTimeout(
      () => this.kick(),
      Math.min(MAX_TIMER_MS, Math.max(0, at - this.clock.now())),
    );
    this.retryTimer.unref?.();
  }

  private scheduleReportRetry(): void {
    if (this.reportTimer || this.stopped) return;
    const { initialMs, maxMs } = this.options.reportRetry ?? { initialMs: 1000, maxMs: 60_000 };
    const delay = Math.min(maxMs, initialMs * 2 ** this.reportFailures++);
    this.reportTimer = setTimeout(() => {
      this.reportTimer = undefined;
      this.reporter.retry().then(
        (ok) => {
          if (ok) this.reportFailures = 0;
          else this.scheduleReportRetry();
        },
        () => this.scheduleReportRetry(),
      );
    }, delay);
    this.reportTimer.unref?.();
  }
}
