// Pod status for a simulated fleet, written the way kubelets and the node lifecycle controller would:
// a pod bound to a Ready node becomes Running with Ready=True (containers started at once), and when
// its node stops being Ready the pod's Ready condition turns False (kube's MarkPodsNotReady). One
// informer on Pods and one on Nodes serve the whole fleet (thousands of nodes, not a watch each);
// writes go through a work queue keyed by pod, so a node flapping many times costs one write per pod
// per observed change, and only when the status differs.

import pino, { type Logger } from 'pino';
import { isReady, kubeTime, readyCondition } from '../kube/conditions.ts';
import { Informer } from '../kube/informer.ts';
import type { KubeClient } from '../kube/kube-client.ts';
import { isKubeError } from '../kube/kube-error.ts';
import type { Node, Pod } from '../kube/types.ts';
import { runWorker, WorkQueue } from '../kube/work-queue.ts';

export interface SimulatedPodStatusOptions {
  /** A client allowed to patch pods/status (the admin's). */
  client: KubeClient;
  /** Only pods matching this label selector (default: every pod). */
  labelSelector?: string;
  /** Parallel status writes; default 8. */
  workers?: number;
  logger?: Logger;
  now?: () => number;
}

interface StatusPod extends Pod {
  spec?: { nodeName?: string; containers?: { name: string; image?: string }[] };
  status?: {
    phase?: string;
    conditions?: { type: string; status: 'True' | 'False' | 'Unknown'; lastTransitionTime?: string }[];
  };
}

const POD_READY_TYPES = ['Ready', 'ContainersReady'] as const;

function keyOf(pod: Pod): string {
  return `${pod.metadata.namespace ?? ''}/${pod.metadata.name}`;
}

function nodeReady(node: Node | undefined): boolean {
  return isReady(node);
}

function podReady(pod: StatusPod): string | undefined {
  return readyCondition(pod)?.status;
}

export class SimulatedPodStatus {
  private readonly client: KubeClient;
  private readonly options: SimulatedPodStatusOptions;
  private readonly logger: Logger;
  private readonly pods: Informer<StatusPod>;
  private readonly nodes: Informer<Node>;
  private readonly podsByNode = new Map<string, Set<string>>();
  private readonly queue = new WorkQueue();
  private workers: Promise<void>[] = [];
  private running = false;
  /** Status writes made, for tests. */
  readonly stats = { writes: 0 };

  constructor(options: SimulatedPodStatusOptions) {
    this.options = options;
    this.client = options.client;
    this.logger = options.logger ?? pino({ level: 'silent' });
    this.pods = new Informer<StatusPod>(this.client, {
      path: '/api/v1/pods',
      ...(options.labelSelector ? { labelSelector: options.labelSelector } : {}),
      logger: this.logger,
    });
    this.nodes = new Informer<Node>(this.client, { path: '/api/v1/nodes', logger: this.logger });
    this.pods.on((type, pod, old) => {
      const before = old?.spec?.nodeName;
      if (before !== undefined && (type === 'delete' || before !== pod.spec?.nodeName)) {
        this.podsByNode.get(before)?.delete(keyOf(old!));
      }
      if (type === 'delete') return;
      const node = pod.spec?.nodeName;
      if (node === undefined) return;
      let set = this.podsByNode.get(node);
      if (!set) {
        set = new Set();
        this.podsByNode.set(node, set);
      }
      set.add(keyOf(pod));
      this.queue.add(keyOf(pod));
    });
    this.nodes.on((type, node, old) => {
      if (type === 'update' && nodeReady(node) === nodeReady(old)) return;
      for (const key of this.podsByNode.get(node.metadata.name) ?? []) this.queue.add(key);
    });
  }

  async start(): Promise<void> {
    if (this.running) return;
    this.running = true;
    this.pods.start();
    this.nodes.start();
    await Promise.all([this.pods.waitForSync(), this.nodes.waitForSync()]);
    this.workers = Array.from({ length: this.options.workers ?? 8 }, () =>
      runWorker(
        this.queue,
        (key) => this.sync(key),
        (key, err) => this.logger.warn({ err, pod: key }, 'simulated pod status: write failed'),
      ),
    );
  }

  async stop(): Promise<void> {
    this.running = false;
    this.queue.shutDown();
    await Promise.all(this.workers);
    await Promise.all([this.pods.stop(), this.nodes.stop()]);
  }

  private async sync(key: string): Promise<undefined> {
    const slash = key.indexOf('/');
    const pod = this.pods.get(key.slice(slash + 1), key.slice(0, slash));
    if (!pod || pod.metadata.deletionTimestamp !== undefined) return;
    const nodeName = pod.spec?.nodeName;
    if (nodeName === undefined) return;
    const node = this.nodes.get(nodeName);
    if (!node) return;
    const ready = nodeReady(node);
    const running = pod.status?.phase === 'Running';
    let status: Record<string, unknown>;
    const now = kubeTime(this.options.now?.() ?? Date.now());
    if (ready) {
      if (running && podReady(pod) === 'True') return;
      status = {
        phase: 'Running',
        ...(running ? {} : { startTime: now }),
        conditions: [
          { type: 'Initialized', status: 'True', lastTransitionTime: now },
          { type: 'PodScheduled', status: 'True', lastTransitionTime: now },
          ...POD_READY_TYPES.map((type) => ({ type, status: 'True', lastTransitionTime: now })),
        ],
        containerStatuses: (pod.spec?.containers ?? []).map((c) => ({
          name: c.name,
          image: c.image ?? '',
          imageID: '',
          ready: true,
          started: true,
          restartCount: 0,
          state: { running: { startedAt: now } },
        })),
      };
    } else {
      // Only a pod that was Ready is marked: a new pod on a NotReady node simply stays Pending.
      if (podReady(pod) !== 'True') return;
      status = {
        conditions: POD_READY_TYPES.map((type) => ({
          type,
          status: 'False',
          reason: 'NodeNotReady',
          message: `node ${nodeName} is not Ready`,
          lastTransitionTime: now,
        })),
      };
    }
    try {
      const written = await this.client.patch<StatusPod>(
        `/api/v1/namespaces/${encodeURIComponent(pod.metadata.namespace ?? '')}/pods/${encodeURIComponent(pod.metadata.name)}/status`,
        { status },
        'strategic',
      );
      this.stats.writes++;
      this.pods.upsert(written);
    } catch (err) {
      if (!isKubeError(err, 404)) throw err;
    }
  }
}
