// One watch over all simulated Nodes, shared by a whole fleet: it tells each simulated kubelet what
// the server holds for its Node (so it can re-post status the lifecycle controller overwrote) and
// lets the fleet report the server's view of every node, for the cost of one connection instead of
// a status GET per node every few seconds. List once, then watch with bookmarks and resume from the
// last resourceVersion; 410 Expired re-lists; failures back off with jitter.

import { Backoff } from '../kube/light/backoff.ts';
import type { WatchHandle } from '../kube/light/kube-watch.ts';
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
  private readonly client: LightKubeClient;
  private readonly options: NodeCollectionWatchOptions;
  private readonly backoff = new Backoff({ initialMs: 250, maxMs: 10_000 });
  private readonly known = new Set<string>();
  private resourceVersion: string | undefined;
  private active: WatchHandle | undefined;
  private stopped = false;
  private running: Promise<void> | undefined;
  private wake: (() => void) | undefined;
  private syncedResolve: (() => void) | undefined;
  readonly synced: Promise<void>;

  constructor(client: LightKubeClient, options: NodeCollectionWatchOptions) {
    this.client = client;
    this.options = options;
    this.synced = new Promise((resolve) => {
      this.syncedResolve = resolve;
    });
  }

  start(): this {
    this.running ??= this.run();
    return this;
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.active?.abort();
    this.wake?.();
    this.syncedResolve?.();
    await this.running;
  }

  private async run(): Promise<void> {
    let needList = true;
    while (!this.stopped) {
      if (needList) {
        try {
          await this.list();
          needList = false;
          this.backoff.reset();
          this.syncedResolve?.();
          this.syncedResolve = undefined;
        } catch (err) {
          this.report(err as Error);
          await this.sleep(this.backoff.next());
          continue;
        }
      }
      const started = performance.now();
      this.active = this.client.watch(
        '/api/v1/nodes',
        {
          labelSelector: this.options.labelSelector,
          resourceVersion: this.resourceVersion,
          allowWatchBookmarks: true,
        },
        {
          onEvent: (event) =>
            this.dispatch(event.type === 'DELETED' ? undefined : event.object, event.object),
        },
        { inactivityTimeoutMs: this.options.inactivityTimeoutMs ?? 45_000 },
      );
      const end = await this.active.done;
      this.active = undefined;
      if (this.stopped) return;
      if (end.resourceVersion !== undefined) this.resourceVersion = end.resourceVersion;
      if (end.reason === 'expired') {
        needList = true;
        continue;
      }
      if (end.reason === 'closed' && (end.events > 0 || performance.now() - started > 1000)) {
        this.backoff.reset();
        continue;
      }
      if (end.error) this.report(end.error);
      await this.sleep(this.backoff.next());
    }
  }

  private async list(): Promise<void> {
    const list = await this.client.list('/api/v1/nodes', { labelSelector: this.options.labelSelector });
    this.resourceVersion = list.metadata.resourceVersion;
    const present = new Set<string>();
    for (const node of list.items) {
      const name = node.metadata?.name;
      if (name === undefined) continue;
      present.add(name);
      this.dispatch(node, node);
    }
    // Nodes deleted while the watch was down.
    for (const name of [...this.known]) {
      if (!present.has(name)) this.dispatch(undefined, { metadata: { name } });
    }
  }

  private dispatch(node: KubeObject | undefined, subject: KubeObject): void {
    const name = subject.metadata?.name;
    if (name === undefined) return;
    if (node) this.known.add(name);
    else this.known.delete(name);
    try {
      this.options.onNode(name, node);
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

  private sleep(ms: number): Promise<void> {
    if (this.stopped) return Promise.resolve();
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        this.wake = undefined;
        resolve();
      }, ms);
      timer.unref();
      this.wake = () => {
        clearTimeout(timer);
        this.wake = undefined;
        resolve();
      };
    });
  }
}
