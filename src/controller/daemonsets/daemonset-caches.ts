// What a DaemonSet controller reads, kept from watches: DaemonSets, their ControllerRevisions, daemon
// pods and Nodes, with the pods and revisions indexed by the DaemonSet that controls them. nodeherd's
// DaemonSet updater and the simulated DaemonSet controller (kube-controller-manager's stand-in on the
// embedded control plane) both read through it; what either does about a change stays its own.

import type { Logger } from 'pino';
import { Informer } from '../../kube/informer.ts';
import type { KubeClient } from '../../kube/kube-client.ts';
import type { Node, Pod } from '../../kube/types.ts';
import { DaemonSetIndex } from './daemonset-index.ts';
import {
  CONTROLLER_REVISION_HASH_LABEL,
  type ControllerRevision,
  controllingDaemonSet,
  type DaemonPod,
  type DaemonSet,
  isControlledBy,
} from './daemonset-types.ts';

export interface DaemonSetCachesOptions {
  client: KubeClient;
  logger: Logger;
  /** A Node informer the caller starts and stops (shared caches); otherwise the caches make one. */
  nodes?: Informer<Node>;
  /** Likewise for Pods (any pods; only those a DaemonSet controls are indexed). */
  pods?: Informer<Pod>;
  /** A pod or ControllerRevision event concerns this DaemonSet (namespace/name). */
  touched(key: string): void;
  /** A pod a DaemonSet controls was deleted (its DELETED event arrived). */
  podDeleted(uid: string | undefined): void;
}

/** What start() and stop() need of an informer, whatever it caches. */
interface CacheLifecycle {
  start(): void;
  stop(): Promise<void>;
  waitForSync(): Promise<void>;
}

/** namespace/name: a DaemonSet's key on a work queue and in the indexes. */
export function daemonSetKey(daemonSet: DaemonSet): string {
  return `${daemonSet.metadata.namespace ?? ''}/${daemonSet.metadata.name}`;
}

export class DaemonSetCaches {
  readonly daemonSets: Informer<DaemonSet>;
  readonly revisions: Informer<ControllerRevision>;
  readonly pods: Informer<Pod>;
  readonly nodes: Informer<Node>;
  readonly podIndex = new DaemonSetIndex<DaemonPod>();
  readonly revisionIndex = new DaemonSetIndex<ControllerRevision>();
  /** The informers these caches started (and stop). */
  private readonly owned: CacheLifecycle[];

  constructor(options: DaemonSetCachesOptions) {
    const { client, logger } = options;
    this.daemonSets = new Informer<DaemonSet>(client, { path: '/apis/apps/v1/daemonsets', logger });
    this.revisions = new Informer<ControllerRevision>(client, {
      path: '/apis/apps/v1/controllerrevisions',
      logger,
    });
    // Daemon pods carry controller-revision-hash: watching only those keeps other pods out of memory.
    this.pods =
      options.pods ??
      new Informer<Pod>(client, {
        path: '/api/v1/pods',
        labelSelector: CONTROLLER_REVISION_HASH_LABEL,
        logger,
      });
    this.nodes = options.nodes ?? new Informer<Node>(client, { path: '/api/v1/nodes', logger });
    this.owned = [this.daemonSets, this.revisions];
    if (!options.pods) this.owned.push(this.pods);
    if (!options.nodes) this.owned.push(this.nodes);

    this.revisions.on((type, revision, old) => {
      for (const key of this.revisionIndex.apply(type, revision, old)) options.touched(key);
    });
    this.pods.on((type, pod, old) => {
      if (controllingDaemonSet(pod) === undefined && (!old || controllingDaemonSet(old) === undefined))
        return;
      if (type === 'delete') options.podDeleted(pod.metadata.uid);
      for (const key of this.podIndex.apply(type, pod as DaemonPod, old as DaemonPod | undefined)) {
        options.touched(key);
      }
    });
  }

  /** Starts its own informers and waits for every cache (shared ones included), then indexes them. */
  async start(): Promise<void> {
    for (const informer of this.owned) informer.start();
    await Promise.all(
      ([this.daemonSets, this.revisions, this.nodes, this.pods] as CacheLifecycle[]).map((i) =>
        i.waitForSync(),
      ),
    );
    // A shared informer may have filled before our handlers saw it all: index from the caches.
    this.podIndex.reset(this.pods.list() as DaemonPod[]);
    this.revisionIndex.reset(this.revisions.list());
  }

  async stop(): Promise<void> {
    await Promise.all(this.owned.map((i) => i.stop()));
  }

  /** The DaemonSet of a key (namespace/name), if the cache has it. */
  daemonSet(key: string): DaemonSet | undefined {
    const slash = key.indexOf('/');
    return this.daemonSets.get(key.slice(slash + 1), key.slice(0, slash));
  }

  /** The pods this DaemonSet controls (matched by uid, as Kubernetes matches them). */
  controlledPods(key: string, daemonSet: DaemonSet): DaemonPod[] {
    return this.podIndex.of(key).filter((pod) => isControlledBy(pod, daemonSet));
  }
}

/** Daemon pods by the node they are bound to (an unbound pod under ''). */
export function podsByNode(pods: readonly DaemonPod[]): Map<string, DaemonPod[]> {
  const byNode = new Map<string, DaemonPod[]>();
  for (const pod of pods) {
    const node = pod.spec?.nodeName ?? '';
    const list = byNode.get(node);
    if (list) list.push(pod);
    else byNode.set(node, [pod]);
  }
  return byNode;
}
