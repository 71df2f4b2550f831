// Prometheus metrics of the controller, in a registry of its own (several controllers in one process,
// as in tests, do not collide): nodes per pool and state, rollout and batch durations, node failures,
// rollbacks, reconcile timing, work queues (controller-runtime's `workqueue_*{name}`), whether this
// replica leads, and the build. A label never appears in a metric's name, and summing a metric over a
// label means something (nodes per phase add up to the pool's nodes).

import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from 'prom-client';
import type { WorkQueueMetrics } from '../kube/work-queue.ts';
import { buildInfoLabels } from '../util/build-info.ts';
import {
  buildAll,
  counter,
  gauge,
  histogram,
  type MetricDeclaration,
  withProperties,
} from '../util/metric-declarations.ts';

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

const STATUS_HELP: Record<PoolStatusCount, string> = {
  nodes: 'Nodes the pool selects (status.nodes).',
  updated: 'Nodes on the target revision (status.updated).',
  ready: 'Nodes on the target revision and healthy (status.ready).',
  unavailable: 'Nodes not available: unhealthy, cordoned or being updated (status.unavailable).',
  failed: 'Nodes that failed the target revision (status.failed).',
  applying: 'Nodes applying a revision (status.applying).',
  rebootRequired:
    'Nodes whose OS asks for a reboot and that have not been asked to reboot yet (status.rebootRequired).',
  drifted: 'Nodes whose agent reports drift from the applied revision (status.drifted, ConfigDrift=True).',
};

/** The pool's status counts, one gauge each (kube-state-metrics' `*_status_replicas_*` shape). */
const POOL_STATUS_SERIES = Object.fromEntries(
  STATUS_COUNTS.map((count) => [
    count,
    gauge(STATUS_METRIC_NAMES[count] ?? `nodeherd_pool_status_${count}_nodes`, STATUS_HELP[count], ['pool']),
  ]),
) as Record<PoolStatusCount, MetricDeclaration<'gauge', 'pool'>>;

/** Nodes per pool: by rollout phase (Updated, Updating, Failed, ...) and by agent state (Idle, Applying, ...). */
const NODE_SERIES = {
  nodesByPhase: gauge('nodeherd_pool_nodes', 'Nodes of a pool, by rollout phase.', ['pool', 'phase']),
  nodesByAgentState: gauge(
    'nodeherd_pool_agents',
    'Agents of a pool, by the state they report on their Node.',
    ['pool', 'state'],
  ),
};

const ROLLOUT_SERIES = {
  rolloutDuration: histogram(
    'nodeherd_rollout_duration_seconds',
    'From the start of a rollout to its end, by result.',
    [10, 30, 60, 120, 300, 600, 1800, 3600, 7200, 21600, 86400],
    ['pool', 'result'],
  ),
  batchDuration: histogram(
    'nodeherd_batch_duration_seconds',
    'From starting a batch of nodes to the last of them being updated and soaked.',
    [1, 5, 10, 30, 60, 120, 300, 600, 1800],
    ['pool'],
  ),
  nodeUpdateDuration: histogram(
    'nodeherd_node_update_duration_seconds',
    'From starting a node (drain included) to the node being healthy on the target.',
    [1, 5, 10, 30, 60, 120, 300, 600],
    ['pool'],
  ),
  nodeFailures: counter('nodeherd_node_failures_total', 'Nodes that failed a rollout, by reason.', [
    'pool',
    'reason',
  ]),
  rollbacks: counter('nodeherd_rollbacks_total', 'Rollbacks, by reason (FailurePolicy, RollbackRequested).', [
    'pool',
    'reason',
  ]),
  rolloutsStarted: counter('nodeherd_rollouts_started_total', 'Rollouts started.', ['pool']),
  reconcileDuration: histogram(
    'nodeherd_reconcile_duration_seconds',
    'Time of one reconcile, by kind of key.',
    [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5],
    ['kind'],
  ),
  reconcileErrors: counter('nodeherd_reconcile_errors_total', 'Reconciles that failed and were retried.', [
    'kind',
  ]),
  /** The pool's conditions, kube-state-metrics' `*_status_condition{condition,status}` shape. */
  poolCondition: gauge(
    'nodeherd_pool_status_condition',
    "The pool's conditions (Ready, Reconciling, Stalled, Progressing, ...): 1 on the series of its status (true, false, unknown), 0 on the others.",
    ['pool', 'condition', 'status'],
  ),
};

const REPLICA_SERIES = {
  leader: gauge('nodeherd_controller_leader', '1 while this replica leads.'),
  buildInfo: gauge('nodeherd_controller_build_info', 'The build of this controller (value 1).', [
    'version',
    'nodeversion',
  ]),
};

const QUEUE_BUCKETS = [1e-8, 1e-7, 1e-6, 1e-5, 1e-4, 1e-3, 0.01, 0.1, 1, 10, 100, 1000];
/** client-go's workqueue metrics, under controller-runtime's names. */
const WORKQUEUE_SERIES = {
  depth: gauge('workqueue_depth', 'Current depth of workqueue.', ['name']),
  adds: counter('workqueue_adds_total', 'Total number of adds handled by workqueue.', ['name']),
  retries: counter('workqueue_retries_total', 'Total number of retries handled by workqueue.', ['name']),
  latency: histogram(
    'workqueue_queue_duration_seconds',
    'How long in seconds an item stays in workqueue before being requested.',
    QUEUE_BUCKETS,
    ['name'],
  ),
  workDuration: histogram(
    'workqueue_work_duration_seconds',
    'How long in seconds processing an item from workqueue takes.',
    QUEUE_BUCKETS,
    ['name'],
  ),
};

/** The prom-client metric a declaration becomes (its label names typed). */
type PromMetric<D> =
  D extends MetricDeclaration<'counter', infer L>
    ? Counter<L>
    : D extends MetricDeclaration<'gauge', infer L>
      ? Gauge<L>
      : D extends MetricDeclaration<'histogram', infer L>
        ? Histogram<L>
        : never;

/**
 * Creates the metrics of `table` in `registry`, in its order. Here rather than beside the declarations
 * (src/util): the agent reads those too and must not load prom-client.
 */
function registerAll<D extends Record<string, MetricDeclaration>>(
  registry: Registry,
  table: D,
): { [K in keyof D]: PromMetric<D[K]> } {
  const registers = [registry];
  return buildAll(table, ({ type, name, help, labelNames, buckets }) => {
    const configuration = { name, help, labelNames, registers };
    if (type === 'counter') return new Counter(configuration);
    if (type === 'gauge') return new Gauge(configuration);
    return new Histogram({ ...configuration, buckets: [...(buckets ?? [])] });
  }) as { [K in keyof D]: PromMetric<D[K]> };
}

/** The registry and its metrics, in the order of the exposition; the metrics are typed fields. */
function controllerSeries() {
  const registry = new Registry();
  // Process metrics (RSS, heap, event-loop lag, GC) under the usual names.
  collectDefaultMetrics({ register: registry });
  /** What the caches hold at the moment of a scrape (per node and per slot), once a controller attaches. */
  const scrape: { sources?: ScrapeSources | undefined } = {};
  const nodes = registerAll(registry, NODE_SERIES);
  const poolStatus = registerAll(registry, POOL_STATUS_SERIES);
  const rollout = registerAll(registry, ROLLOUT_SERIES);
  registerScrapedGauges(registry, () => scrape.sources);
  const replica = registerAll(registry, REPLICA_SERIES);
  /** Fed by the controller's WorkQueues (workQueue()). */
  const queue = registerAll(registry, WORKQUEUE_SERIES);
  return { registry, scrape, ...nodes, poolStatus, ...rollout, ...replica, queue };
}

/** The gauges read from the attached sources at each scrape (a collect() each, so not in a table). */
function registerScrapedGauges(registry: Registry, sources: () => ScrapeSources | undefined): void {
  const registers = [registry];
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

export class ControllerMetrics extends withProperties(controllerSeries) {
  /** The condition types each pool's series have, to drop those a pool loses. */
  private readonly conditionTypes = new Map<string, Set<string>>();

  constructor() {
    super();
    this.buildInfo.set(buildInfoLabels, 1);
  }

  /** Hooks for a WorkQueue, its series labelled `name`. */
  workQueue(name: string): WorkQueueMetrics {
    const labels = { name };
    const queue = this.queue;
    queue.depth.set(labels, 0);
    return {
      depth: (keys) => queue.depth.set(labels, keys),
      added: () => queue.adds.inc(labels),
      retried: () => queue.retries.inc(labels),
      waited: (seconds) => queue.latency.observe(labels, seconds),
      worked: (seconds) => queue.workDuration.observe(labels, seconds),
    };
  }

  /** Per-node and per-slot facts read from the controller's caches at each scrape. */
  attach(sources: ScrapeSources): void {
    this.scrape.sources = sources;
  }

  /** Stops reading `sources` (a stopped controller's), unless another controller attached since. */
  detach(sources: ScrapeSources): void {
    if (this.scrape.sources === sources) this.scrape.sources = undefined;
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
