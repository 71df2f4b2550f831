// Delivers store events to subscribers synchronously and strictly in revision order. A listener may write
// to the store (e.g. a garbage collector deleting dependents): that nested write's event is queued and
// delivered after every listener has seen the current one, instead of overtaking it.
import type { StoreEvent } from './types.ts';

export type StoreListener = (event: StoreEvent) => void;

interface Subscription {
  listener: StoreListener;
  active: boolean;
}

export class EventDispatcher {
  #subscriptions: readonly Subscription[] = [];
  readonly #queue: StoreEvent[] = [];
  #dispatching = false;
  readonly #onListenerError: (error: unknown, event: StoreEvent) => void;

  constructor(onListenerError: (error: unknown, event: StoreEvent) => void) {
    this.#onListenerError = onListenerError;
  }

  /** True when an event would reach someone; lets writers skip building events nobody reads. */
  get hasListeners(): boolean {
    return this.#subscriptions.length > 0;
  }

  subscribe(listener: StoreListener): () => void {
    // Each call is its own subscription, so subscribing one function twice and unsubscribing once is exact.
    const subscription: Subscription = { listener, active: true };
    this.#subscriptions = [...this.#subscriptions, subscription];
    return () => {
      if (!subscription.active) return;
      subscription.active = false;
      this.#subscriptions = this.#subscriptions.filter((s) => s !== subscription);
    };
  }

  publish(event: StoreEvent): void {
    this.#queue.push(event);
    if (this.#dispatching) return;
    this.#dispatching = true;
    try {
      for (let next = this.#queue.shift(); next !== undefined; next = this.#queue.shift()) {
        this.#deliver(next);
      }
    } finally {
      this.#dispatching = false;
    }
  }

  #deliver(event: StoreEvent): void {
    for (const subscription of this.#subscriptions) {
      // Unsubscribed by an earlier listener during this very event: it must not hear it.
      if (!subscription.active) continue;
      try {
        subscription.listener(event);
      } catch (error) {
        // The write is committed: one failing listener must neither fail it nor starve the others.
        this.#onListenerError(error, event);
      }
    }
  }
}
