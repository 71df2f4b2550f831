// The DaemonSet updater: nodeherd's update strategies for DaemonSets that are OnDelete and carry
// nodeherd.io/update-strategy (AdvancedRollingUpdate or OTA). Informers on DaemonSets and
// ControllerRevisions of its own; Nodes and Pods may be shared with the rollout controller (which
// already watches both), otherwise it watches them itself. A work queue keyed by namespace/name of the
// DaemonSet; node readiness changes requeue every DaemonSet nodeherd manages, so a node that comes
// back is updated at once.

import pino, { type Logger } from 'pino';
import { DAEMONSET_STRATEGY_ANNOTATION } from '../../api/node-protocol.ts';
import type { EventRecorder } from '../../kube/event-recorder.ts';
import { Informer } from '../../kube/informer.ts';
import type { KubeClient } from '../../kube/kube-client.ts';
import type { Node, Pod } from '../../kube/types.ts';
import { runWorker, WorkQueue, type WorkQueueMetrics } from '../../kube/work-queue.ts';
import { jsonEqual } from '../../util/json-equal.ts';
import { isNodeReady } from './daemon-nodes.ts';
import { DaemonSetIndex } from './daemonset-index.ts';
import { DaemonSetReconciler } from './daemonset-reconciler.ts';
import {
  type ControllerRevision,
  controllingDaemonSet,
  type DaemonPod,
  type DaemonSet,
} from './daemonset-types.ts';

const DAEMONSETS_PATH = '/apis/apps/v1/daemonsets';
const CONTROLLER_REVISIONS_PATH = '/apis/apps/v1/controllerrevisions';

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

/** What start() and stop() need of an informer, whatever it caches. */
interface CacheLifecycle {
  start(): void;
  stop(): Promise<void>;
  waitForSync(): Promise<void>;
}

export class DaemonSetUpdater {
  private readonly options: DaemonSetUpdaterOptions;
  private readonly logger: Logger;
  private readonly daemonSets: Informer<DaemonSet>;
  private readonly revisions: Informer<ControllerRevision>;
  private readonly nodes: Informer<Node>;
  private readonly pods: Informer<Pod>;
  /** The informers this updater started (and stops). */
  private readonly owned: CacheLifecycle[];
  private readonly podIndex = new DaemonSetIndex<DaemonPod>();
  private readonly revisionIndex = new DaemonSetIndex<ControllerRevision>();
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
    this.daemonSets = new Informer<DaemonSet>(client, { path: DAEMONSETS_PATH, logger });
    this.revisions = new Informer<ControllerRevision>(client, { path: CONTROLLER_REVISIONS_PATH, logger });
    // Daemon pods carry controller-revision-hash: watching only those keeps other pods out of memory.
    this.pods =
      options.pods ??
      new Informer<Pod>(client, { path: '/api/v1/pods', labelSelector: 'controller-revision-hash', logger });
    this.nodes = options.nodes ?? new Informer<Node>(client, { path: '/api/v1/nodes', logger });
    this.owned = [this.daemonSets, this.revisions];
    if (!options.pods) this.owned.push(this.pods);
    if (!options.nodes) this.owned.push(this.nodes);
    this.reconciler = new DaemonSetReconciler({
      client,
      recorder: options.recorder,
      daemonSets: this.daemonSets,
      nodes: this.nodes,
      pods: this.pods,
      podIndex: this.podIndex,
      revisionIndex: this.revisionIndex,
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
    for (const informer of this.owned) informer.start();
    await Promise.all(
      ([this.daemonSets, this.revisions, this.nodes, this.pods] as CacheLifecycle[]).map((i) =>
        i.waitForSync(),
      ),
    );
    if (!this.running) return;
    // A shared informer may have filled before our handlers saw it all: index from the caches.
    this.podIndex.reset(this.pods.list() as DaemonPod[]);
    this.revisionIndex.reset(this.revisions.list());
    this.synced = true;
    for (const daemonSet of this.daemonSets.list()) this.queue.add(keyOf(daemonSet));
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
    await Promise.all(this.owned.map((i) => i.stop()));
    this.synced = false;
  }

  private wire(): void {
    this.daemonSets.on((type, daemonSet) => {
      if (type === 'delete') this.reconciler.forget(keyOf(daemonSet));
      this.queue.add(keyOf(daemonSet));
    });
    this.revisions.on((type, revision, old) => {
      for (const key of this.revisionIndex.apply(type, revision, old)) this.queue.add(key);
    });
    this.pods.on((type, pod, old) => {
      if (controllingDaemonSet(pod) === undefined && (!old || controllingDaemonSet(old) === undefined))
        return;
      if (type === 'delete') this.reconciler.podGone(pod.metadata.uid);
      for (const key of this.podIndex.apply(type, pod as DaemonPod, old as DaemonPod | undefined)) {
        this.queue.add(key);
      }
    });
    this.nodes.on((type, node, old) => {
      const changed =
        type !== 'update' ||
        isNodeReady(node) !== isNodeReady(old) ||
        !jsonEqual(node.metadata.labels, old?.metadata.labels);
      if (!changed || !this.synced) return;
      for (const daemonSet of this.daemonSets.list()) {
        if (daemonSet.metadata.annotations?.[DAEMONSET_STRATEGY_ANNOTATION] !== undefined) {
          this.queue.add(keyOf(daemonSet));
        }
      }
    });
  }
}

function keyOf(daemonSet: DaemonSet): string {
  return `${daemonSet.metadata.namespace ?? ''}/${daemonSet.metadata.name}`;
}
