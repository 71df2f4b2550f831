// One watch over all simulated Nodes, shared by a whole fleet: it tells each simulated kubelet what
// the server holds for its Node (so it can re-post status the lifecycle controller overwrote) and
// lets the fleet report the server's view of every node, for the cost of one connection instead of
// a status GET per node every few seconds. The list, watch, resume and backoff are a CollectionWatch.

import { CollectionWatch } from '../kube/light/collection-watch.ts';
import type { LightKubeClient } from '../kube/light/light-kube-client.ts';
import type { KubeObject } from '../kube/light/types.ts';

export interface NodeCollectionWatchOptions {
  labelSelector?: string;
  /** A Node was added or changed (object), or deleted (undefined). */
  onNode(name: string, node: KubeObject | undefined): void;
  onError?(error: Error): void;
  /** Inactivity after which the connection counts as dead (default 3 × 15 s bookmarks). */
  inactivityTimeoutMs?: number;
}

export class NodeCollectionWatch {
  private readonly options: NodeCollectionWatchOptions;
  private readonly watch: CollectionWatch;
  private syncedResolve: (() => void) | undefined;
  /** Resolves after the first list (or at stop). */
  readonly synced: Promise<void>;

  constructor(client: LightKubeClient, options: NodeCollectionWatchOptions) {
    this.options = options;
    this.synced = new Promise((resolve) => {
      this.syncedResolve = resolve;
    });
    this.watch = new CollectionWatch(client, {
      collectionPath: '/api/v1/nodes',
      ...(options.labelSelector !== undefined ? { labelSelector: options.labelSelector } : {}),
      onObject: (node, deleted) => this.dispatch(node, deleted),
      onSynced: () => this.syncedResolve?.(),
      onError: (error) => this.report(error),
      inactivityTimeoutMs: options.inactivityTimeoutMs ?? 45_000,
      backoff: { initialMs: 250, maxMs: 10_000 },
      unrefTimers: true,
    });
  }

  start(): this {
    this.watch.start();
    return this;
  }

  async stop(): Promise<void> {
    this.syncedResolve?.();
    await this.watch.stop();
  }

  private dispatch(node: KubeObject, deleted: boolean): void {
    const name = node.metadata?.name;
    if (!name) return;
    try {
      this.options.onNode(name, deleted ? undefined : node);
    } catch (err) {
      this.report(err as Error);
    }
  }

  private report(error: Error): void {
    try {
      this.options.onError?.(error);
    } catch {
      // Reporting must not stop the watch.
    }
  }
}
