// The node agent: one instance per node, everything injected (API client, executors, host, clock,
// logger), no global state, so a simulator can run thousands in one process. It watches its Node
// and desired revision, reconciles one change at a time, and retries what failed to deliver.

import { PACKAGE_MANAGER_ANNOTATION, POOL_LABEL } from '../api/node-protocol.ts';
import type { LightKubeClient } from '../kube/light/light-kube-client.ts';
import type { ActionExecutors } from './apply/action-executor.ts';
import type { ApplyHooks } from './apply/apply-runner.ts';
import { NodeProbeRunner, type ProbeRunner } from './apply/health-probe.ts';
import { KubeSecretSource } from './apply/kube-secret-source.ts';
import { poolRollbackPolicy, type RollbackPolicy } from './apply/pool-rollback-policy.ts';
import { type AgentStatus, Reconciler, type RestartDecision } from './apply/reconciler.ts';
import { configOf, type RevisionRef } from './apply/revision-ref.ts';
import { SecretDigests } from './apply/secret-digests.ts';
import { type Clock, systemClock } from './clock.ts';
import { DriftChecker } from './drift/drift-checker.ts';
import { ManagedPathWatcher } from './drift/managed-path-watcher.ts';
import { type DriftPolicySource, poolDriftPolicy } from './drift/pool-drift-policy.ts';
import type { CommandRunner } from './executors/command-runner.ts';
import { dropInPath, unitFilePath } from './executors/unit-names.ts';
import { StartGate } from './gate/start-gate.ts';
import type { HostControl } from './host/host-control.ts';
import { type Logger, silentLogger } from './logger.ts';
import { AgentMetrics } from './metrics/agent-metrics.ts';
import { NodeUpdateApi } from './ota/node-update-api.ts';
import { Prestager } from './prestage/prestager.ts';
import { OsReboots } from './reboot/os-reboots.ts';
import { poolRebootSettings, type RebootSettingsSource } from './reboot/pool-reboot-settings.ts';
import { NodeReporter } from './report/node-reporter.ts';
import { SlotKeeper } from './serial/slot-keeper.ts';
import { DesiredRevisionWatcher, type WatchTuning } from './watch/desired-revision-watcher.ts';

export const DEFAULT_SELF_UNIT = 'nodeherd-agent.service';
/** Units, enablement, state and packages are not watched: they are checked this often. */
const DEFAULT_DRIFT_INTERVAL_MS = 5 * 60_000;
const DEFAULT_DRIFT_DEBOUNCE_MS = 250;

export interface DriftOptions {
  /** Default true: check for drift at start, after every apply, on file changes and periodically. */
  enabled?: boolean;
  /** Period of the full check (default 5 min); 0: only at start, after applies and on file changes. */
  intervalMs?: number;
  /** Where the node's files are on this machine ('/' on a real node); unset: no inotify. */
  watchRoot?: string;
  /** Quiet time after a file event before the check (default 250 ms). */
  debounceMs?: number;
  /** Default: the pool's spec.drift.policy. */
  policy?: DriftPolicySource;
}
/** The sentinel of OS-requested reboots is checked this often (besides at start and after applies). */
const DEFAULT_REBOOT_CHECK_INTERVAL_MS = 5 * 60_000;

export interface OsRebootOptions {
  /** Default true: check the reboot sentinel and reboot when the controller asks. */
  enabled?: boolean;
  /** Period of the sentinel check (default 5 min); 0: only at start, after applies and reboots. */
  intervalMs?: number;
  /** Default: the pool's spec.reboots.osRequested (pool-reboot-settings.ts says when it is read). */
  settings?: RebootSettingsSource;
  /** Runs the pool's sentinel command on the node; absent: none can run (a failed check says so). */
  commands?: CommandRunner;
}

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
  /** Serial: how long slots are left to a live controller (default CONTROLLER_GRACE_MS; tests lengthen it). */
  serialControllerGraceMs?: number;
  /** Drift detection and repair (drift/drift-checker.ts). */
  drift?: DriftOptions;
  /** OS-requested reboots (reboot/os-reboots.ts). */
  reboots?: OsRebootOptions;
  hooks?: ApplyHooks;
  /**
   * The package manager the Node reports (PACKAGE_MANAGER_ANNOTATION); default executors.packages'
   * manager (the real backend says `dnf5` on a dnf5 node: executors/package-managers.ts).
   */
  packageManager?: string;
  /**
   * false: the agent does not answer pre-stage asks (nodeherd.io/prestage-revision), as an agent of a
   * release before pre-staging does; simulated fleets use it for a mixed-release fleet. Default true.
   */
  prestage?: boolean;
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
  private readonly serialSlots: SlotKeeper;
  private readonly driftChecker: DriftChecker | undefined;
  private readonly osReboots: OsReboots | undefined;
  /** Pre-staging: downloads for the revision the controller says the node is next in line for. */
  private readonly prestager: Prestager;
  private rebootTimer: NodeJS.Timeout | undefined;
  /** What asked for the next reboot-sentinel check; undefined: none due. */
  private rebootCheckDue: string | undefined;
  private pathWatcher: ManagedPathWatcher | undefined;
  private driftTimer: NodeJS.Timeout | undefined;
  /** What asked for the next drift check (start, apply, file, interval); undefined: none due. */
  private driftDue: string | undefined;
  /** The revision whose paths are watched. */
  private watchedHash: string | undefined;
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
  /** Digests of the Secret values written, in the root-only state directory (drift checks them). */
  private readonly secretDigests: SecretDigests;

  constructor(options: NodeAgentOptions) {
    this.options = options;
    this.nodeName = options.nodeName;
    this.secretDigests = options.executors.secretDigests ?? new SecretDigests(options.stateDir);
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
    this.serialSlots = new SlotKeeper({
      client: options.client,
      identity: options.nodeName,
      clock: this.clock,
      logger: this.logger,
      onChange: () => this.kick(),
      ...(options.serialControllerGraceMs !== undefined
        ? { controllerGraceMs: options.serialControllerGraceMs }
        : {}),
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
        secretDigests: this.secretDigests,
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
    if (options.drift?.enabled !== false) {
      this.driftChecker = new DriftChecker({
        executors: {
          ...options.executors,
          secrets: options.executors.secrets ?? new KubeSecretSource(options.client),
          secretDigests: this.secretDigests,
        },
        reporter: this.reporter,
        metrics: this.metrics,
        logger: this.logger,
        policy: options.drift?.policy ?? poolDriftPolicy(options.client, this.logger),
        selfUnit: options.selfUnit ?? DEFAULT_SELF_UNIT,
      });
    }
    if (options.reboots?.enabled !== false) {
      this.osReboots = new OsReboots({
        stateDir: options.stateDir,
        host: options.host,
        files: options.executors.files,
        commands: options.reboots?.commands,
        settings:
          options.reboots?.settings ??
          poolRebootSettings({
            client: options.client,
            logger: this.logger,
            clock: this.clock,
            stateDir: options.stateDir,
          }),
        reporter: this.reporter,
        metrics: this.metrics,
        clock: this.clock,
        logger: this.logger,
        onHostRestart: (kind) =>
          options.onHostRestart ? options.onHostRestart(kind) : Promise.resolve('continue'),
      });
    }
    this.prestager = new Prestager({
      client: options.client,
      packages: options.executors.packages,
      reporter: this.reporter,
      logger: this.logger,
      lastApplied: () => this.reconciler.lastAppliedRevision?.spec.config,
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

  /** Loads local state, checks for drift, then starts watching. Resolves once watching has begun. */
  async start(): Promise<void> {
    if (this.started) throw new Error('an agent starts once');
    this.started = true;
    await this.secretDigests.load();
    await this.reconciler.load();
    if (this.driftChecker) {
      // Before the first reconcile, and without the API server if need be: what a crash or a hand
      // left on disk is known (and, per policy, repaired) before anything else happens.
      await this.checkDrift('start');
      this.watchManagedPaths();
      const intervalMs = this.options.drift?.intervalMs ?? DEFAULT_DRIFT_INTERVAL_MS;
      if (intervalMs > 0) {
        this.driftTimer = setInterval(() => this.requestDriftCheck('interval'), intervalMs);
        this.driftTimer.unref?.();
      }
    }
    if (this.osReboots) {
      await this.osReboots.load();
      // Checked in the loop, once the Node is known: a sentinel command may take its time.
      this.rebootCheckDue = 'start';
      const intervalMs = this.options.reboots?.intervalMs ?? DEFAULT_REBOOT_CHECK_INTERVAL_MS;
      if (intervalMs > 0) {
        this.rebootTimer = setInterval(() => this.requestRebootCheck('interval'), intervalMs);
        this.rebootTimer.unref?.();
      }
    }
    this.watcher.start();
    // Retried with the other reports until it is written: the controller gives this node no revision
    // for another manager (controller/rollout/package-manager-fit.ts).
    void this.reporter.annotate(
      PACKAGE_MANAGER_ANNOTATION,
      this.options.packageManager ?? this.options.executors.packages.manager,
    );
    this.logger.info({ revision: this.reconciler.status.currentRevision }, 'agent started');
  }

  /** Stops watching and waits for a running reconcile to finish its current step. */
  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.retryTimer);
    clearTimeout(this.reportTimer);
    clearInterval(this.driftTimer);
    clearInterval(this.rebootTimer);
    this.pathWatcher?.close();
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

  /** Asks for a drift check; it runs in the reconcile loop, never beside an apply. */
  requestDriftCheck(trigger: string): void {
    if (this.stopped || !this.driftChecker) return;
    this.driftDue ??= trigger;
    if (!this.loop) this.loop = this.runLoop();
  }

  /** Asks for a check of the reboot sentinel; it runs in the reconcile loop, never beside an apply. */
  requestRebootCheck(trigger: string): void {
    if (this.stopped || !this.osReboots) return;
    this.rebootCheckDue ??= trigger;
    if (!this.loop) this.loop = this.runLoop();
  }

  private async runLoop(): Promise<void> {
    try {
      while (
        (this.dirty || this.driftDue !== undefined || this.rebootCheckDue !== undefined) &&
        !this.stopped &&
        !this.reconciler.status.halted
      ) {
        if (this.dirty) {
          this.dirty = false;
          clearTimeout(this.retryTimer);
          const applied = this.reconciler.lastAppliedRevision?.hash;
          try {
            const snapshot = this.watcher.snapshot();
            // Before anything else: a reboot this apply makes then answers a reboot request too.
            if (snapshot.nodeSynced) await this.osReboots?.observe(snapshot.node);
            const result = await this.reconciler.reconcile(snapshot);
            this.lastError = undefined;
            if (result.retryAt !== undefined) this.scheduleRetry(result.retryAt);
          } catch (error) {
            // Local state could not be read or written (disk full, permissions): try again later.
            this.lastError = (error as Error).message;
            this.logger.error({ error: error as Error }, 'reconcile failed');
            this.scheduleRetry(this.clock.now() + 10_000);
          }
          if (this.driftChecker && this.reconciler.lastAppliedRevision?.hash !== applied) {
            this.watchManagedPaths();
            this.driftDue ??= 'apply';
          }
          // Packages an apply installed may have asked for a reboot (Debian's postinst hooks do).
          if (this.osReboots && this.reconciler.lastAppliedRevision?.hash !== applied)
            this.rebootCheckDue ??= 'apply';
          await this.stepOsReboot();
          await this.stepPrestage();
        }
        if (this.driftDue !== undefined && !this.dirty && !this.stopped) {
          const trigger = this.driftDue;
          this.driftDue = undefined;
          await this.checkDrift(trigger);
        }
        if (
          this.rebootCheckDue !== undefined &&
          !this.dirty &&
          !this.stopped &&
          !this.reconciler.status.halted
        ) {
          const trigger = this.rebootCheckDue;
          this.rebootCheckDue = undefined;
          await this.checkRebootSentinel(trigger);
        }
        if (this.reporter.pending) this.scheduleReportRetry();
        else this.reportFailures = 0;
      }
    } finally {
      this.loop = undefined;
      for (const waiter of this.idleWaiters.splice(0)) waiter();
    }
  }

  /** Answers or carries out a reboot request (the controller's nodeherd.io/reboot-requested). */
  private async stepOsReboot(): Promise<void> {
    const snapshot = this.watcher.snapshot();
    if (!this.osReboots || !snapshot.nodeSynced || this.reconciler.status.halted) return;
    try {
      const step = await this.osReboots.step(
        snapshot.node,
        this.reconciler.settledForReboot(snapshot),
        this.poolName(),
      );
      if (step === 'halt') this.reconciler.haltForReboot();
    } catch (error) {
      // The request record could not be written (disk full): the next reconcile tries again.
      this.lastError = (error as Error).message;
      this.logger.error({ error: error as Error }, 'reboot request failed');
      this.scheduleRetry(this.clock.now() + 10_000);
    }
  }

  /** Answers a pre-stage ask (the controller's nodeherd.io/prestage-revision), between applies. */
  private async stepPrestage(): Promise<void> {
    const snapshot = this.watcher.snapshot();
    if (!snapshot.nodeSynced || this.reconciler.status.halted || this.dirty) return;
    if (this.options.prestage === false) return;
    try {
      await this.prestager.step(snapshot.node);
    } catch (error) {
      // The answer could not be written: the reporter keeps it and tries again.
      this.logger.error({ error: error as Error }, 'pre-stage failed');
    }
  }

  private async checkRebootSentinel(trigger: string): Promise<void> {
    if (!this.osReboots) return;
    this.metrics.rebootChecks.inc({ trigger });
    try {
      // The pool is read by the periodic check only (starting and applying cost no extra request),
      // unless there is none.
      const periodic = (this.options.reboots?.intervalMs ?? DEFAULT_REBOOT_CHECK_INTERVAL_MS) > 0;
      const mayRead = !periodic || trigger === 'interval' || trigger === 'simulation';
      await this.osReboots.check(this.poolName(), this.reconciler.lastAppliedRevision?.name, mayRead);
    } catch (error) {
      this.logger.error({ error: error as Error, trigger }, 'reboot sentinel check failed');
    }
  }

  /** The node's pool: its last applied revision's, else the Node's pool label. */
  private poolName(): string | undefined {
    return (
      this.reconciler.lastAppliedRevision?.spec.pool ??
      this.watcher.snapshot().node?.metadata?.labels?.[POOL_LABEL]
    );
  }

  private async checkDrift(trigger: string): Promise<void> {
    const base = this.reconciler.driftBase();
    if (!base || !this.driftChecker) return;
    this.metrics.driftChecks.inc({ trigger });
    try {
      await this.driftChecker.check(base);
    } catch (error) {
      // E.g. systemctl did not answer: the next check (file event, interval, apply) tries again.
      this.logger.error({ error: error as Error, trigger }, 'drift check failed');
    }
  }

  /** Watches the files, unit files and drop-ins of the last applied revision (with a watch root). */
  private watchManagedPaths(): void {
    const root = this.options.drift?.watchRoot;
    const base = this.reconciler.lastAppliedRevision;
    if (root === undefined || !base || base.hash === this.watchedHash || this.stopped) return;
    this.watchedHash = base.hash;
    this.pathWatcher ??= new ManagedPathWatcher({
      root,
      debounceMs: this.options.drift?.debounceMs ?? DEFAULT_DRIFT_DEBOUNCE_MS,
      logger: this.logger,
      onChange: () => this.requestDriftCheck('file'),
    });
    this.pathWatcher.setPaths(managedPaths(base));
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

/** Where the revision's files, unit files and drop-ins live on the node. */
function managedPaths(revision: RevisionRef): string[] {
  const config = configOf(revision);
  return [
    ...config.files.map((f) => f.path),
    ...config.units.flatMap((u) => [
      ...(u.content !== undefined ? [unitFilePath(u.name)] : []),
      ...u.dropIns.map((d) => dropInPath(u.name, d.name)),
    ]),
  ];
}
