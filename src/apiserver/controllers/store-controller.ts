// What the API server's in-process controllers that follow store events share: the store and the object
// service they act through, a queue that runs their work outside the store's synchronous event callback,
// retries after a delay, and a stop that ends the subscription, the queue and the retries.

import type { ObjectService } from '../objects/object-service.ts';
import type { Store, StoreEvent } from '../storage/types.ts';
import { DeferredQueue } from './keys.ts';

export abstract class StoreController {
  protected readonly store: Store;
  protected readonly objects: ObjectService;
  protected readonly queue = new DeferredQueue();
  private unsubscribe: (() => void) | undefined;
  private readonly retries = new Map<string, NodeJS.Timeout>();

  constructor(store: Store, objects: ObjectService) {
    this.store = store;
    this.objects = objects;
  }

  /** Follows the store from now on: each event goes to onEvent, which queues what it needs done. */
  protected followStore(): void {
    this.unsubscribe = this.store.subscribe((event) => this.onEvent(event));
  }

  protected abstract onEvent(event: StoreEvent): void;

  /** Runs `work` in `ms`, once per key however often asked meanwhile (unref'd; stop() cancels it). */
  protected retryLater(key: string, ms: number, work: () => void): void {
    if (this.retries.has(key)) return;
    const timer = setTimeout(() => {
      this.retries.delete(key);
      work();
    }, ms);
    timer.unref();
    this.retries.set(key, timer);
  }

  /** Ends the subscription, drops queued work and cancels the retries. */
  stop(): void {
    this.unsubscribe?.();
    this.queue.close();
    for (const timer of this.retries.values()) clearTimeout(timer);
    this.retries.clear();
  }
}
