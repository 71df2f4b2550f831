// Prometheus metrics of the controller, in a registry of its own (several controllers in one process,
// as in tests, do not collide): nodes per pool and state, rollout and batch durations, node failures,
// rollbacks, reconcile timing, and whether this replica leads.

import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from 'prom-client';

export class ControllerMetrics {
  readonly registry = new Registry();
  /** Nodes per pool and rollout phase (Updated, Updating, Failed, ...). */
  readonly nodesByPhase: Gauge<'pool' | 'phase'>;
  /** Nodes per pool and agent state (Idle, Applying, Verifying, Done, Failed, Unknown). */
  readonly nodesByAgentState: Gauge<'pool' | 'state'>;
  readonly poolNodes: Gauge<'pool' | 'count'>;
  readonly rolloutDuration: Histogram<'pool' | 'result'>;
  readonly batchDuration: Histogram<'pool'>;
  readonly nodeUpdateDuration: Histogram<'pool'>;
  readonly nodeFailures: Counter<'pool' | 'reason'>;
  readonly rollbacks: Counter<'pool' | 'reason'>;
  readonly rolloutsStarted: Counter<'pool'>;
  readonly reconcileDuration: Histogram<'kind'>;
  readonly reconcileErrors: Counter<'kind'>;
  readonly queueDepth: Gauge;
  readonly leader: Gauge;

  constructor() {
    const registers = [this.registry];
    // Process metrics (RSS, heap, event-loop lag, GC) under the usual names.
    collectDefaultMetrics({ register: this.registry });
    this.nodesByPhase = new Gauge({
      name: 'nodeherd_pool_nodes_by_phase',
      help: 'Nodes of a pool by rollout phase.',
      labelNames: ['pool', 'phase'],
      registers,
    });
    this.nodesByAgentState = new Gauge({
      name: 'nodeherd_pool_nodes_by_agent_state',
      help: 'Nodes of a pool by the state their agent reports.',
      labelNames: ['pool', 'state'],
      registers,
    });
    this.poolNodes = new Gauge({
      name: 'nodeherd_pool_nodes',
      help: 'Nodes of a pool: total, updated, ready, unavailable, failed, applying.',
      labelNames: ['pool', 'count'],
      registers,
    });
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
    this.queueDepth = new Gauge({
      name: 'nodeherd_workqueue_depth',
      help: 'Keys waiting in the work queue.',
      registers,
    });
    this.leader = new Gauge({
      name: 'nodeherd_controller_leader',
      help: '1 while this replica leads.',
      registers,
    });
  }

  forgetPool(pool: string): void {
    for (const metric of [this.nodesByPhase, this.nodesByAgentState, this.poolNodes])
      metric.remove({ pool } as never);
  }
}
