// The rollout controller: the informers the reconcilers share (NodeConfigPools, NodeConfigs, revisions,
// Nodes, Pods, Secrets, Serial Leases), one work queue keyed by `kind/name`, and workers. It composes
// the reconcilers (pools/, nodes/, configs/): each declares what it watches and how events map to its
// keys (reconciler.ts); the DaemonSet updater (daemonsets/) runs beside them with its own queue.

import pino, { type Logger } from 'pino';
import {
  CURRENT_REVISION_ANNOTATION,
  SERIAL_LEASE_NAMESPACE,
  SERIAL_POOL_LABEL,
} from '../api/node-protocol.ts';
import type { NodeConfig, NodeConfigPool, NodeConfigRevision } from '../api/types.ts';
import type { ClusterConfig } from '../kube/cluster-config.ts';
import { isReady } from '../kube/conditions.ts';
import { EventRecorder } from '../kube/event-recorder.ts';
import { Informer, trimNode, trimPod, withoutManagedFields } from '../kube/informer.ts';
import { KubeClient } from '../kube/kube-client.ts';
import type { KubeObject, Lease, Node, Pod, Secret } from '../kube/types.ts';
import { WorkQueue } from '../kube/work-queue.ts';
import { PATHS } from './api-paths.ts';
import { ConfigReconciler } from './configs/config-reconciler.ts';
import { type RenderSettleOptions, renderSettleOptions } from './configs/config-settle.ts';
import { type ControllerContext, type Informers, nodeSubject } from './controller-context.ts';
import { DaemonSetUpdater } from './daemonsets/daemonset-updater.ts';
import { DecisionExecutor } from './decision-executor.ts';
import { DisruptionPlanner } from './disruption-planner.ts';
import { drainSettings } from './drain/drain-settings.ts';
import { NodeDrainer } from './drain/node-drainer.ts';
import { ControllerMetrics, type ScrapeSources } from './metrics.ts';
import { NodeHealthTracker } from './node-health-tracker.ts';
import { NodeReconciler } from './nodes/node-reconciler.ts';
import type { NotifierOptions } from './notifications/notifier.ts';
import { PoolNotifications } from './notifications/pool-notifications.ts';
import { PodIndex } from './pod-index.ts';
import { PoolReconciler } from './pools/pool-reconciler.ts';
import { PoolRenderer } from './pools/pool-render.ts';
import { RolloutTracker } from './pools/rollout-tracker.ts';
import { type KeyReconciler, poolsOfNode } from './reconciler.ts';
import { RevisionWriter } from './revisions/revision-writer.ts';
import { scrapeSources } from './scrape-sources.ts';

export interface RolloutControllerOptions {
  kubeConfig: ClusterConfig;
  logger?: Logger;
  /** Keys reconciled in parallel (a key is never reconciled twice at once); default 4. */
  workers?: number;
  /** Parallel node writes within one reconcile; default 32. */
  writeConcurrency?: number;
  metrics?: ControllerMetrics;
  /** Names this replica in Events. */
  identity?: string;
  now?: () => number;
  /**
   * nodeherd's update strategies for DaemonSets (daemonsets/); default on. Off, the controller never
   * lists DaemonSets or ControllerRevisions nor deletes daemon pods: the rules only that needs come with
   * the feature (DAEMONSET_UPDATE_RULES, the kustomize component deploy/components/daemonset-updates).
   */
  daemonSetUpdates?: boolean;
  /**
   * How long a pool's NodeConfigs must stay unchanged before they are rendered, and the bound on that
   * wait after the first change of a burst (configs/config-settle.ts); default 500 ms and 5 s.
   */
  renderSettle?: Partial<RenderSettleOptions>;
  /** Drain retry delays (tests shorten them). */
  drainBackoff?: { initialMs: number; maxMs: number };
  /** Webhook notifications' queue, retries and timeouts (tests scale them down). */
  notifier?: NotifierOptions;
}

export class RolloutController {
  readonly metrics: ControllerMetrics;
  readonly client: KubeClient;
  private readonly options: RolloutControllerOptions;
  private readonly logger: Logger;
  private readonly informers: Informers;
  private readonly queue: WorkQueue;
  private readonly recorder: EventRecorder;
  private readonly drainer: NodeDrainer;
  /** Rollout events to the webhooks pools name (notifications/). */
  readonly notifications: PoolNotifications;
  /** The reconcilers by the kind of their keys on the shared queue. */
  private readonly reconcilers: Map<string, KeyReconciler>;
  private readonly health = new NodeHealthTracker();
  private readonly daemonSets: DaemonSetUpdater | undefined;
  private readonly now: () => number;
  private readonly scrapeSources: ScrapeSources;
  private workers: Promise<void>[] = [];
  private running = false;
  private synced = false;

  constructor(options: RolloutControllerOptions) {
    this.options = options;
    this.logger = options.logger ?? pino({ level: 'silent' });
    this.metrics = options.metrics ?? new ControllerMetrics();
    this.queue = new WorkQueue({ metrics: this.metrics.workQueue('rollout') });
    this.now = options.now ?? Date.now;
    this.client = new KubeClient(options.kubeConfig, { maxSockets: (options.writeConcurrency ?? 32) + 8 });
    const logger = this.logger;
    // The caches keep only what the controller reads (issue 17: at 5,000 nodes the full Node objects,
    // with their managedFields, images and node info, were most of the controller's memory).
    const lean = { logger, transform: withoutManagedFields };
    this.informers = {
      pools: new Informer<NodeConfigPool>(this.client, { path: PATHS.nodeConfigPools, ...lean }),
      configs: new Informer<NodeConfig>(this.client, { path: PATHS.nodeConfigs, ...lean }),
      revisions: new Informer<NodeConfigRevision>(this.client, { path: PATHS.revisions, ...lean }),
      nodes: new Informer<Node>(this.client, { path: PATHS.nodes, logger, transform: trimNode }),
      pods: new Informer<Pod>(this.client, { path: PATHS.pods, logger, transform: trimPod }),
      secrets: new Informer<Secret>(this.client, { path: PATHS.secrets, ...lean }),
      // Kept whole: a slot Lease is written back (replace) from this cache.
      leases: new Informer<Lease>(this.client, {
        path: `/apis/coordination.k8s.io/v1/namespaces/${SERIAL_LEASE_NAMESPACE}/leases`,
        labelSelector: SERIAL_POOL_LABEL,
        logger,
      }),
    };
    this.scrapeSources = scrapeSources(this.informers);
    this.metrics.attach(this.scrapeSources);
    this.recorder = new EventRecorder(this.client, {
      component: 'nodeherd-controller',
      ...(options.identity ? { instance: options.identity } : {}),
      logger,
    });
    this.notifications = new PoolNotifications({
      pools: this.informers.pools,
      secret: (namespace, name) => this.informers.secrets.get(name, namespace),
      recorder: this.recorder,
      active: () => this.running && this.synced,
      now: this.now,
      ...(options.notifier ? { notifier: options.notifier } : {}),
    });
    const planner = new DisruptionPlanner((name) => this.informers.revisions.get(name));
    const podIndex = new PodIndex();
    const revisionWriter = new RevisionWriter(this.client, this.informers.revisions);
    let executor: DecisionExecutor | undefined;
    this.drainer = new NodeDrainer({
      client: this.client,
      podsOn: (node) => podIndex.on(node),
      nodeReady: (node) =>
        (this.informers.nodes.get(node)?.status?.conditions ?? []).some(
          (c) => c.type === 'Ready' && c.status === 'True',
        ),
      onDrained: async (node, revision) => {
        const from = this.informers.nodes.get(node)?.metadata.annotations?.[CURRENT_REVISION_ANNOTATION];
        await executor!.finishDrain(node, revision);
        if (planner.disruption(from, revision) === 'Reboot')
          this.notifications.reboot(node, this.poolsOf(node), revision);
        this.enqueueNode(node);
      },
      onForced: (node, pod) => {
        const subject = this.informers.nodes.get(node);
        if (subject)
          this.recorder.warning(
            nodeSubject(subject),
            'ForceDeleted',
            `deleted pod ${pod.metadata.namespace}/${pod.metadata.name}: its eviction was refused past spec.drain.timeoutSeconds (onTimeout Force)`,
          );
      },
      // A node in two pools is in neither's rollout (NodeInMultiplePools): the first one's settings.
      settingsFor: (node) => drainSettings(this.informers.pools.get(this.poolsOf(node)[0] ?? '')?.spec.drain),
      onBlocked: (node, reason) => {
        const subject = this.informers.nodes.get(node);
        if (subject && reason) this.recorder.warning(nodeSubject(subject), 'DrainBlocked', reason);
        this.notifications.drainBlocked(node, this.poolsOf(node), reason);
      },
      onEvicted: (node, pod) => {
        const subject = this.informers.nodes.get(node);
        if (subject) {
          this.recorder.normal(
            {
              apiVersion: 'v1',
              kind: 'Node',
              name: node,
              ...(subject.metadata.uid ? { uid: subject.metadata.uid } : {}),
            },
            'Evicted',
            `evicted pod ${pod.metadata.namespace}/${pod.metadata.name}`,
          );
        }
      },
      onProgress: (node) => this.enqueueNode(node),
      logger,
      ...(options.drainBackoff ? { backoff: options.drainBackoff } : {}),
    });
    const ctx: ControllerContext = {
      client: this.client,
      informers: this.informers,
      pods: podIndex,
      recorder: this.recorder,
      metrics: this.metrics,
      health: this.health,
      planner,
      drainer: this.drainer,
      revisionWriter,
      logger,
      now: this.now,
      writeConcurrency: options.writeConcurrency ?? 32,
    };
    executor = new DecisionExecutor(ctx);
    const tracker = new RolloutTracker(this.metrics);
    const reconcilers: KeyReconciler[] = [
      new PoolReconciler(
        ctx,
        new PoolRenderer(ctx, renderSettleOptions(options.renderSettle)),
        executor,
        tracker,
      ),
      new NodeReconciler(ctx, executor),
      new ConfigReconciler(ctx),
    ];
    this.reconcilers = new Map(reconcilers.map((r) => [r.kind, r]));
    this.wire(podIndex);
    // DaemonSet update strategies (daemonsets/): their own queue and workers, the Node and Pod caches shared.
    const { nodes, pods } = this.informers;
    this.daemonSets =
      options.daemonSetUpdates === false
        ? undefined
        : new DaemonSetUpdater({
            client: this.client,
            recorder: this.recorder,
            nodes,
            pods,
            logger: this.logger,
            now: this.now,
            queueMetrics: this.metrics.workQueue('daemonset'),
          });
  }

  /** Caches synced and workers running. */
  get ready(): boolean {
    return this.running && this.synced;
  }

  /**
   * Whether this replica has acted on everything it knows of a pool: it is running, its caches hold the
   * pool and the given Nodes at exactly these resourceVersions, and neither the pool's key nor a Node's
   * is queued, being reconciled or due again. A status read just before this holds is then the
   * controller's last word on that state of the world, not one it is about to replace (a status
   * written before a change the controller has yet to see says nothing about that change).
   */
  caughtUp(pool: KubeObject, nodes: readonly KubeObject[]): boolean {
    if (!this.ready) return false;
    const same = (cached: KubeObject | undefined, seen: KubeObject) =>
      cached !== undefined && cached.metadata.resourceVersion === seen.metadata.resourceVersion;
    return (
      same(this.informers.pools.get(pool.metadata.name), pool) &&
      !this.queue.pending(`pool/${pool.metadata.name}`) &&
      nodes.every(
        (n) =>
          same(this.informers.nodes.get(n.metadata.name), n) &&
          !this.queue.pending(`node/${n.metadata.name}`),
      )
    );
  }

  /** Starts the informers, waits until their caches are filled, then starts the workers. */
  async start(): Promise<void> {
    if (this.running) return;
    this.running = true;
    const all = Object.values(this.informers) as Informer<never>[];
    for (const informer of all) informer.start();
    this.daemonSets
      ?.start()
      .catch((err) => this.logger.debug({ err }, 'DaemonSet updater stopped before it started'));
    await Promise.all(all.map((i) => i.waitForSync()));
    if (!this.running) return;
    this.synced = true;
    for (const reconciler of this.reconcilers.values())
      for (const name of reconciler.initialKeys(this.informers)) this.queue.add(`${reconciler.kind}/${name}`);
    const workers = this.options.workers ?? 4;
    this.workers = Array.from({ length: workers }, () => this.work());
    this.logger.info({ workers }, 'rollout controller started');
  }

  /** Stops taking work, lets reconciles in flight finish, stops drains and watches. */
  async stop(): Promise<void> {
    // A stopped controller's caches go stale: a replica that no longer leads exports no node series.
    this.metrics.detach(this.scrapeSources);
    await this.daemonSets?.stop();
    if (!this.running && !this.synced) {
      await Promise.all((Object.values(this.informers) as Informer<never>[]).map((i) => i.stop()));
      return;
    }
    this.running = false;
    this.queue.shutDown();
    await Promise.all(this.workers);
    await this.drainer.stopAll();
    await this.notifications.stop();
    await Promise.all((Object.values(this.informers) as Informer<never>[]).map((i) => i.stop()));
    await this.recorder.flush();
    this.client.close();
    this.synced = false;
    this.logger.info('rollout controller stopped');
  }

  private poolsOf(node: string): string[] {
    return [...poolsOfNode(this.informers, this.informers.nodes.get(node))];
  }

  private enqueueNode(node: string): void {
    for (const pool of poolsOfNode(this.informers, this.informers.nodes.get(node)))
      this.queue.add(`pool/${pool}`);
  }

  /** The caches the reconcilers share (node health, pods by node, drains), then each reconciler's watches. */
  private wire(podIndex: PodIndex): void {
    const { nodes, pods } = this.informers;
    nodes.on((type, node) => {
      if (type === 'delete') return;
      const ready = isReady(node);
      this.health.noteChange(node.metadata.name, this.now(), ready, this.synced);
    });
    pods.on((type, pod, old) => {
      if (type === 'delete') podIndex.remove(pod);
      else podIndex.update(pod, old);
      const node = pod.spec?.nodeName ?? old?.spec?.nodeName;
      if (node) this.drainer.wake(node);
    });
    for (const reconciler of this.reconcilers.values())
      reconciler.watch(this.informers, (name) => this.queue.add(`${reconciler.kind}/${name}`));
  }

  private async work(): Promise<void> {
    for (;;) {
      const key = await this.queue.get();
      if (key === undefined) return;
      const slash = key.indexOf('/');
      const kind = key.slice(0, slash);
      const name = key.slice(slash + 1);
      const timer = this.metrics.reconcileDuration.startTimer({ kind });
      try {
        const outcome = await this.reconcilers.get(kind)?.reconcile(name);
        if (outcome?.requeueAfterMs !== undefined) this.queue.addAfter(key, outcome.requeueAfterMs + 5);
        this.queue.forget(key);
      } catch (err) {
        this.metrics.reconcileErrors.inc({ kind });
        this.logger.warn({ err, key, retries: this.queue.numRequeues(key) }, 'reconcile failed; retrying');
        this.queue.addRateLimited(key);
      } finally {
        timer();
        this.queue.done(key);
      }
    }
  }
}
