// Follows every object of a collection that matches a label selector with the list-watch loop
// (../list-watch.ts): one list, then one long-lived watch with bookmarks, resumed from the last
// resourceVersion; objects gone at a re-list (after 410 Expired) are reported deleted then.
// Used where a caller needs a whole set of objects kept current for the cost of one connection
// (a waiting agent's slot Leases, a simulated fleet's Nodes).

import type { BackoffOptions } from '../backoff.ts';
import { collectionSource, ListWatch } from '../list-watch.ts';
import type { LightKubeClient } from './light-kube-client.ts';
import type { KubeObject } from './types.ts';

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
  private readonly loop: ListWatch<KubeObject>;
  private started = false;

  constructor(client: LightKubeClient, options: CollectionWatchOptions) {
    const { collectionPath } = options;
    const known = new Set<string>();
    this.loop = new ListWatch<KubeObject>(collectionSource<KubeObject>(client, collectionPath), {
      labelSelector: options.labelSelector,
      inactivityTimeoutMs: options.inactivityTimeoutMs,
      watchTimeoutSeconds: options.watchTimeoutSeconds,
      backoff: options.backoff,
      unrefTimers: options.unrefTimers ?? false,
      onList: (items) => {
        const names = new Set(items.map((o) => o.metadata?.name ?? ''));
        for (const name of known) if (!names.has(name)) options.onObject({ metadata: { name } }, true);
        known.clear();
        for (const object of items) {
          known.add(object.metadata?.name ?? '');
          options.onObject(object, false);
        }
        options.onSynced?.();
      },
      onEvent: (event) => {
        const name = event.object.metadata?.name ?? '';
        if (event.type === 'DELETED') known.delete(name);
        else known.add(name);
        options.onObject(event.object, event.type === 'DELETED');
      },
      onError: (error, during) => options.onError?.(error, during),
    });
  }

  start(): this {
    if (!this.started) {
      this.started = true;
      this.loop.start();
    }
    return this;
  }

  async stop(): Promise<void> {
    this.started = true;
    await this.loop.stop();
  }
}
