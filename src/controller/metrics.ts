// Prometheus metrics of the controller, in a registry of its own (several controllers in one process,
// as in tests, do not collide): nodes per pool and state, rollout and batch durations, node failures,
// rollbacks, reconcile timing, work queues (controller-runtime's `workqueue_*{name}`), whether this
// replica leads, and the build. A label never appears in a metric's name, and summing a metric over a
// label means something (nodes per phase add up to the pool's nodes).

import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from 'prom-client';
import type { WorkQueueMetrics } from '../kube/work-queue.ts';
import { buildInfoLabels } from '../util/build-info.ts';

/** The pool status counts exported as `nodeherd_pool_status_<count>`. */
const STATUS_COUNTS = [
  'nodes',
  'updated',
  'ready',
  'unavailable',
  'failed',
  'applying',
  'rebootRequired',
  'drifted',
] as const;
/** Metric names are snake case. */
const STATUS_METRIC_NAMES: Partial<Record<(typeof STATUS_COUNTS)[number], string>> = {
  nodes: 'nodeherd_pool_status_nodes',
  rebootRequired: 'nodeherd_pool_status_reboot_required_nodes',
};
export type PoolStatusCount = (typeof STATUS_COUNTS)[number];
/** The values of a condition series' `status` label, as kube-state-metrics writes them. */
const CONDITION_STATUSES = ['true', 'false', 'unknown'];

/** Facts the controller's caches hold, read at each scrape rather than at each reconcile. */
export interface ScrapeSources {
  /** Pool members whose OS asks for a reboot: since when (seconds since the epoch). */
  rebootRequired(): { pool: string; node: string; since: number }[];
  /** Held Serial slot Leases: their pool, holder and acquireTime (seconds since the epoch). */
  serialSlots(): { pool: string; lease: string; node: string; acquired: number }[];
}

export class ControllerMetrics {
  readonly registry = new Registry();
  /** Nodes per pool and rollout phase (Updated, Updating, Failed, ...). */
  readonly nodesByPhase: Gauge<'pool' | 'phase'>;
  /** Nodes per pool and agent state (Idle, Applying, Verifying, Done, Failed, Unknown). */
  readonly nodesByAgentState: Gauge<'pool' | 'state'>;
  /** The pool's status counts, one gauge each (kube-state-metrics' `*_status_replicas_*` shape). */
  readonly poolStatus: Record<PoolStatusCount, Gauge<'pool'>>;
  readonly rolloutDuration: Histogram<'pool' | 'result'>;
  readonly batchDuration: Histogram<'pool'>;
  readonly nodeUpdateDuration: Histogram<'pool'>;
  readonly nodeFailures: Counter<'pool' | 'reason'>;
  readonly rollbacks: Counter<'pool' | 'reason'>;
  readonly rolloutsStarted: Counter<'pool'>;
  readonly reconcileDuration: Histogram<'kind'>;
  readonly reconcileErrors: Counter<'kind'>;
  readonly leader: Gauge;
  /** The pool's conditions, kube-state-metrics' `*_status_condition{condition,status}` shape. */
  readonly poolCondition: Gauge<'pool' | 'condition' | 'status'>;
  /** What the caches hold at the moment of a scrape (per node and per slot), once a controller attaches. */
  private scrapeSources: ScrapeSources | undefined;
  /** The condition types each pool's series have, to drop those a pool loses. */
  private readonly conditionTypes = new Map<string, Set<string>>();
  private readonly queueDepth: Gauge<'name'>;
  private readonly queueAdds: Counter<'name'>;
  private readonly queueRetries: Counter<'name'>;
  private readonly queueLatency: Histogram<'name'>;
  private readonly workDuration: Histogram<'name'>;

  constructor() {
    const registers = [this.registry];
    // Process metrics (RSS, heap, event-loop lag, GC) under the usual names.
    collectDefaultMetrics({ register: this.registry });
    this.nodesByPhase = new Gauge({
      name: 'nodeherd_pool_nodes',
      help: 'Nodes of a pool, by rollout phase.',
      labelNames: ['pool', 'phase'],
      registers,
    });
    this.nodesByAgentState = new Gauge({
      name: 'nodeherd_pool_agents',
      help: 'Agents of a pool, by the state they report on their Node.',
      labelNames: ['pool', 'state'],
      registers,
    });
    const statusHelp: Record<PoolStatusCount, string> = {
      nodes: 'Nodes the pool selects (status.nodes).',
      updated: 'Nodes on the target revision (status.updated).',
      ready: 'Nodes on the target revision and healthy (status.ready).',
      unavailable: 'Nodes not available: unhealthy, cordoned or being updated (status.unavailable).',
      failed: 'Nodes that failed the target revision (status.failed).',
      applying: 'Nodes applying a revision (status.applying).',
      rebootRequired:
        'Nodes whose OS asks for a reboot and that have not been asked to reboot yet (status.rebootRequired).',
      drifted:
        'Nodes whose agent reports drift from the applied revision (status.drifted, ConfigDrift=True).',
    };
    this.poolStatus = Object.fromEntries(
      STATUS_COUNTS.map((count) => [
        count,
        new Gauge({
          name: STATUS_METRIC_NAMES[count] ?? `nodeherd_pool_status_${count}_nodes`,
          help: statusHelp[count],
          labelNames: ['pool'],
          registers,
        }),
      ]),
    ) as Record<PoolStatusCount, Gauge<'pool'>>;
    this.rolloutDuration = new Histogram({
      name: 'nodeherd_rollout_duration_seconds',
      help: 'From the start of a rollout to its end, by result.',
      labelNames: ['pool', 'result'],
      buckets: [10, 30, 60, 120, 300, 600, 1800, 3600, 7200, 21600, 86400],
      registers,
    });
    this.batchDuration = new Histogram({
      name: 'nodeherd_batch_duration_seconds',
      help: 'From starting a batch of nodes to the last of them being updated and soaked.',
      labelNames: ['pool'],
      buckets: [1, 5, 10, 30, 60, 120, 300, 600, 1800],
      registers,
    });
    this.nodeUpdateDuration = new Histogram({
      name: 'nodeherd_node_update_duration_seconds',
      help: 'From starting a node (drain included) to the node being healthy on the target.',
      labelNames: ['pool'],
      buckets: [1, 5, 10, 30, 60, 120, 300, 600],
      registers,
    });
    this.nodeFailures = new Counter({
      name: 'nodeherd_node_failures_total',
      help: 'Nodes that failed a rollout, by reason.',
      labelNames: ['pool', 'reason'],
      registers,
    });
    this.rollbacks = new Counter({
      name: 'nodeherd_rollbacks_total',
      help: 'Rollbacks, by reason (FailurePolicy, RollbackRequested).',
      labelNames: ['pool', 'reason'],
      registers,
    });
    this.rolloutsStarted = new Counter({
      name: 'nodeherd_rollouts_started_total',
      help: 'Rollouts started.',
      labelNames: ['pool'],
      registers,
    });
    this.reconcileDuration = new Histogram({
      name: 'nodeherd_reconcile_duration_seconds',
      help: 'Time of one reconcile, by kind of key.',
      labelNames: ['kind'],
      buckets: [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5],
      registers,
    });
    this.reconcileErrors = new Counter({
      name: 'nodeherd_reconcile_errors_total',
      help: 'Reconciles that failed and were retried.',
      labelNames: ['kind'],
      registers,
    });
    this.poolCondition = new Gauge({
      name: 'nodeherd_pool_status_condition',
      help: "The pool's conditions (Ready, Reconciling, Stalled, Progressing, ...): 1 on the series of its status (true, false, unknown), 0 on the others.",
      labelNames: ['pool', 'condition', 'status'],
      registers,
    });
    this.scrapedGauges(registers);
    this.leader = new Gauge({
      name: 'nodeherd_controller_leader',
      help: '1 while this replica leads.',
      registers,
    });
    new Gauge({
      name: 'nodeherd_controller_build_info',
      help: 'The build of this controller (value 1).',
      labelNames: ['version', 'nodeversion'],
      registers,
    }).set(buildInfoLabels, 1);
    // client-go's workqueue metrics, under controller-runtime's names.
    this.queueDepth = new Gauge({
      name: 'workqueue_depth',
      help: 'Current depth of workqueue.',
      labelNames: ['name'],
      registers,
    });
    this.queueAdds = new Counter({
      name: 'workqueue_adds_total',
      help: 'Total number of adds handled by workqueue.',
      labelNames: ['name'],
      registers,
    });
    this.queueRetries = new Counter({
      name: 'workqueue_retries_total',
      help: 'Total number of retries handled by workqueue.',
      labelNames: ['name'],
      registers,
    });
    const queueBuckets = [1e-8, 1e-7, 1e-6, 1e-5, 1e-4, 1e-3, 0.01, 0.1, 1, 10, 100, 1000];
    this.queueLatency = new Histogram({
      name: 'workqueue_queue_duration_seconds',
      help: 'How long in seconds an item stays in workqueue before being requested.',
      labelNames: ['name'],
      buckets: queueBuckets,
      registers,
    });
    this.workDuration = new Histogram({
      name: 'workqueue_work_duration_seconds',
      help: 'How long in seconds processing an item from workqueue takes.',
      labelNames: ['name'],
      buckets: queueBuckets,
      registers,
    });
  }

  /** Hooks for a WorkQueue, its series labelled `name`. */
  workQueue(name: string): WorkQueueMetrics {
    const labels = { name };
    this.queueDepth.set(labels, 0);
    return {
      depth: (keys) => this.queueDepth.set(labels, keys),
      added: () => this.queueAdds.inc(labels),
      retried: () => this.queueRetries.inc(labels),
      waited: (seconds) => this.queueLatency.observe(labels, seconds),
      worked: (seconds) => this.workDuration.observe(labels, seconds),
    };
  }

  /** The gauges read from the attached sources at each scrape. */
  private scrapedGauges(registers: Registry[]): void {
    const sources = () => this.scrapeSources;
    new Gauge({
      name: 'nodeherd_node_reboot_required_since_timestamp_seconds',
      help: 'Since when the OS of a node of the pool asks for a reboot (its nodeherd.io/RebootRequired condition turned True), while it does; the node has not rebooted since.',
      labelNames: ['pool', 'node'],
      registers,
      collect() {
        this.reset();
        for (const n of sources()?.rebootRequired() ?? []) this.set({ pool: n.pool, node: n.node }, n.since);
      },
    });
    new Gauge({
      name: 'nodeherd_serial_slot_acquired_timestamp_seconds',
      help: "When the node holding a Serial slot Lease took it or was handed it (the Lease's acquireTime), while it is held.",
      labelNames: ['pool', 'lease', 'node'],
      registers,
      collect() {
        this.reset();
        for (const s of sources()?.serialSlots() ?? [])
          this.set({ pool: s.pool, lease: s.lease, node: s.node }, s.acquired);
      },
    });
  }

  /** Per-node and per-slot facts read from the controller's caches at each scrape. */
  attach(sources: ScrapeSources): void {
    this.scrapeSources = sources;
  }

  /** Stops reading `sources` (a stopped controller's), unless another controller attached since. */
  detach(sources: ScrapeSources): void {
    if (this.scrapeSources === sources) this.scrapeSources = undefined;
  }

  /** Sets the pool's condition series to its conditions now, dropping those of conditions it lost. */
  setPoolConditions(pool: string, conditions: readonly { type: string; status: string }[]): void {
    const types = new Set(conditions.map((c) => c.type));
    for (const lost of this.conditionTypes.get(pool) ?? [])
      if (!types.has(lost))
        for (const status of CONDITION_STATUSES) this.poolCondition.remove({ pool, condition: lost, status });
    this.conditionTypes.set(pool, types);
    for (const c of conditions) {
      const status = c.status.toLowerCase();
      for (const value of CONDITION_STATUSES)
        this.poolCondition.set({ pool, condition: c.type, status: value }, value === status ? 1 : 0);
    }
  }

  /**
   * Drops every series of a deleted pool (an alert on it would otherwise fire forever). remove() takes
   * a series' every label, so the series are listed first (get() is async only for collect() gauges).
   */
  forgetPool(pool: string): void {
    this.setPoolConditions(pool, []);
    this.conditionTypes.delete(pool);
    const gauges: Gauge<string>[] = [
      this.nodesByPhase,
      this.nodesByAgentState,
      ...Object.values(this.poolStatus),
    ];
    for (const gauge of gauges)
      void gauge.get().then((metric) => {
        for (const { labels } of metric.values) if (labels.pool === pool) gauge.remove(labels);
      });
  }
}
