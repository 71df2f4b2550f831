// Follows every object of a collection that matches a label selector, with one list and then one
// long-lived watch with bookmarks: resumed from the last resourceVersion when it ends, re-listed only
// on 410 Expired (objects gone meanwhile are reported deleted then). A watch that ends healthy (it
// delivered events, or lasted a second) is resumed at once; anything else backs off with jitter.
// Used where a caller needs a whole set of objects kept current for the cost of one connection
// (a waiting agent's slot Leases, a simulated fleet's Nodes).

import { Backoff, type BackoffOptions } from './backoff.ts';
import type { WatchHandle } from './kube-watch.ts';
import type { LightKubeClient } from './light-kube-client.ts';
import type { KubeObject } from './types.ts';
import { WakeableSleep } from './wakeable-sleep.ts';

export interface CollectionWatchOptions {
  collectionPath: string;
  labelSelector?: string;
  /**
   * An object was added or changed, or deleted (`deleted`; when found missing at a re-list the object
   * holds only its name).
   */
  onObject(object: KubeObject, deleted: boolean): void;
  /** A list completed: every object it returned has been reported through onObject. */
  onSynced?(): void;
  /** A failed list or watch; the watch keeps going. */
  onError?(error: Error, during: 'list' | 'watch'): void;
  /** Silence after which the connection counts as dead (a few bookmark intervals). */
  inactivityTimeoutMs: number;
  /** Each watch asks the server to end it after a random time in this range (default: the server's). */
  watchTimeoutSeconds?: [number, number];
  backoff: BackoffOptions;
  /** The retry timer alone does not keep the process alive. */
  unrefTimers?: boolean;
}

export class CollectionWatch {
  private readonly client: LightKubeClient;
  private readonly options: CollectionWatchOptions;
  private readonly backoff: Backoff;
  private readonly sleeper: WakeableSleep;
  private stopped = false;
  private running: Promise<void> | undefined;
  private watch: WatchHandle | undefined;
  private resourceVersion: string | undefined;

  constructor(client: LightKubeClient, options: CollectionWatchOptions) {
    this.client = client;
    this.options = options;
    this.backoff = new Backoff(options.backoff);
    this.sleeper = new WakeableSleep({ unref: options.unrefTimers ?? false });
  }

  start(): this {
    this.running ??= this.run();
    return this;
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.watch?.abort();
    this.sleeper.wake();
    await this.running;
  }

  private async run(): Promise<void> {
    const { collectionPath, labelSelector } = this.options;
    let needList = true;
    const known = new Set<string>();
    while (!this.stopped) {
      if (needList) {
        try {
          const list = await this.client.list(collectionPath, { labelSelector });
          if (this.stopped) return;
          this.resourceVersion = list.metadata.resourceVersion;
          const names = new Set(list.items.map((o) => o.metadata?.name ?? ''));
          for (const name of known) if (!names.has(name)) this.options.onObject({ metadata: { name } }, true);
          known.clear();
          for (const object of list.items) {
            known.add(object.metadata?.name ?? '');
            this.options.onObject(object, false);
          }
          needList = false;
          this.options.onSynced?.();
        } catch (error) {
          this.options.onError?.(error as Error, 'list');
          await this.sleep(this.backoff.next());
          continue;
        }
      }
      const started = performance.now();
      const timeout = this.options.watchTimeoutSeconds;
      this.watch = this.client.watch(
        collectionPath,
        {
          labelSelector,
          resourceVersion: this.resourceVersion,
          allowWatchBookmarks: true,
          ...(timeout
            ? { timeoutSeconds: Math.round(timeout[0] + Math.random() * (timeout[1] - timeout[0])) }
            : {}),
        },
        {
          onEvent: (event) => {
            const name = event.object.metadata?.name ?? '';
            if (event.type === 'DELETED') known.delete(name);
            else known.add(name);
            this.options.onObject(event.object, event.type === 'DELETED');
          },
        },
        { inactivityTimeoutMs: this.options.inactivityTimeoutMs },
      );
      const end = await this.watch.done;
      this.watch = undefined;
      if (end.resourceVersion !== undefined) this.resourceVersion = end.resourceVersion;
      if (this.stopped) return;
      const healthy = end.events > 0 || performance.now() - started >= 1000;
      if (end.reason === 'closed' && healthy) {
        this.backoff.reset();
        continue;
      }
      // A re-list after 410 waits its turn too, so a server that keeps answering 410 is not hammered.
      if (end.reason === 'expired') needList = true;
      if (end.error) this.options.onError?.(end.error, 'watch');
      await this.sleep(this.backoff.next());
    }
  }

  private sleep(ms: number): Promise<void> {
    return this.stopped ? Promise.resolve() : this.sleeper.sleep(ms);
  }
}
