// The DaemonSet updater: nodeherd's update strategies for DaemonSets that are OnDelete and carry
// nodeherd.io/update-strategy (AdvancedRollingUpdate or OTA). Informers on DaemonSets and
// ControllerRevisions of its own; Nodes and Pods may be shared with the rollout controller (which
// already watches both), otherwise it watches them itself. A work queue keyed by namespace/name of the
// DaemonSet; node readiness changes requeue every DaemonSet nodeherd manages, so a node that comes
// back is updated at once.

import pino, { type Logger } from 'pino';
import { DAEMONSET_STRATEGY_ANNOTATION } from '../../api/node-protocol.ts';
import type { EventRecorder } from '../../kube/event-recorder.ts';
import type { Informer } from '../../kube/informer.ts';
import type { KubeClient } from '../../kube/kube-client.ts';
import type { Node, Pod } from '../../kube/types.ts';
import { runWorker, WorkQueue, type WorkQueueMetrics } from '../../kube/work-queue.ts';
import { jsonEqual } from '../../util/json-equal.ts';
import { isNodeReady } from './daemon-nodes.ts';
import { DaemonSetCaches, daemonSetKey } from './daemonset-caches.ts';
import { DaemonSetReconciler } from './daemonset-reconciler.ts';

export interface DaemonSetUpdaterOptions {
  client: KubeClient;
  recorder: EventRecorder;
  logger?: Logger;
  /** A Node informer the caller starts and stops (shared caches); otherwise the updater makes one. */
  nodes?: Informer<Node>;
  /** Likewise for Pods (all pods; the updater keeps only those a DaemonSet controls). */
  pods?: Informer<Pod>;
  /** DaemonSets reconciled in parallel; default 2. */
  workers?: number;
  /** Parallel pod writes per reconcile; default 16. */
  writeConcurrency?: number;
  now?: () => number;
  /** Hooks for the work queue's metrics (workqueue_*{name="daemonset"}). */
  queueMetrics?: WorkQueueMetrics;
}

export class DaemonSetUpdater {
  private readonly options: DaemonSetUpdaterOptions;
  private readonly logger: Logger;
  private readonly caches: DaemonSetCaches;
  private readonly queue: WorkQueue;
  private readonly reconciler: DaemonSetReconciler;
  private workers: Promise<void>[] = [];
  private running = false;
  private synced = false;

  constructor(options: DaemonSetUpdaterOptions) {
    this.options = options;
    this.queue = new WorkQueue(options.queueMetrics ? { metrics: options.queueMetrics } : {});
    const logger = options.logger ?? pino({ level: 'silent' });
    this.logger = logger;
    const { client } = options;
    this.caches = new DaemonSetCaches({
      client,
      logger,
      ...(options.nodes ? { nodes: options.nodes } : {}),
      ...(options.pods ? { pods: options.pods } : {}),
      touched: (key) => this.queue.add(key),
      podDeleted: (uid) => this.reconciler.podGone(uid),
    });
    this.reconciler = new DaemonSetReconciler({
      client,
      recorder: options.recorder,
      caches: this.caches,
      logger,
      now: options.now ?? Date.now,
      writeConcurrency: options.writeConcurrency ?? 16,
    });
    this.wire();
  }

  get ready(): boolean {
    return this.running && this.synced;
  }

  /** Starts its informers, waits for every cache (shared ones included), then the workers. */
  async start(): Promise<void> {
    if (this.running) return;
    this.running = true;
    await this.caches.start();
    if (!this.running) return;
    this.synced = true;
    for (const daemonSet of this.caches.daemonSets.list()) this.queue.add(daemonSetKey(daemonSet));
    const workers = this.options.workers ?? 2;
    this.workers = Array.from({ length: workers }, () =>
      runWorker(
        this.queue,
        (key) => this.reconciler.reconcile(key),
        (key, err) =>
          this.logger.warn(
            { err, daemonSet: key, retries: this.queue.numRequeues(key) },
            'DaemonSet reconcile failed; retrying',
          ),
      ),
    );
    this.logger.info({ workers }, 'DaemonSet updater started');
  }

  async stop(): Promise<void> {
    this.running = false;
    this.queue.shutDown();
    await Promise.all(this.workers);
    await this.caches.stop();
    this.synced = false;
  }

  private wire(): void {
    const { daemonSets, nodes } = this.caches;
    daemonSets.on((type, daemonSet) => {
      if (type === 'delete') this.reconciler.forget(daemonSetKey(daemonSet));
      this.queue.add(daemonSetKey(daemonSet));
    });
    nodes.on((type, node, old) => {
      const changed =
        type !== 'update' ||
        isNodeReady(node) !== isNodeReady(old) ||
        !jsonEqual(node.metadata.labels, old?.metadata.labels);
      if (!changed || !this.synced) return;
      for (const daemonSet of daemonSets.list()) {
        if (daemonSet.metadata.annotations?.[DAEMONSET_STRATEGY_ANNOTATION] !== undefined) {
          this.queue.add(daemonSetKey(daemonSet));
        }
      }
    });
  }
}
