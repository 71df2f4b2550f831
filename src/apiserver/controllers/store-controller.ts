// What the API server's in-process controllers that follow store events share: the store and the object
// service they act through, a queue that runs their work outside the store's synchronous event callback,
// and a stop that ends the subscription and the queue.

import type { ObjectService } from '../objects/object-service.ts';
import type { Store, StoreEvent } from '../storage/types.ts';
import { DeferredQueue } from './keys.ts';

export abstract class StoreController {
  protected readonly store: Store;
  protected readonly objects: ObjectService;
  protected readonly queue = new DeferredQueue();
  private unsubscribe: (() => void) | undefined;

  constructor(store: Store, objects: ObjectService) {
    this.store = store;
    this.objects = objects;
  }

  /** Follows the store from now on: each event goes to onEvent, which queues what it needs done. */
  protected followStore(): void {
    this.unsubscribe = this.store.subscribe((event) => this.onEvent(event));
  }

  protected abstract onEvent(event: StoreEvent): void;

  /** Ends the subscription and drops queued work; a subclass stops its own timers and calls this. */
  stop(): void {
    this.unsubscribe?.();
    this.queue.close();
  }
}
