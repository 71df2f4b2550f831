// What the watches of one identity may leave unread, together. The slow-watcher cap of a watch
// (http/watch-stream.ts) bounds one watch; priority and fairness (chain/priority-and-fairness.ts)
// bounds how many watches an identity holds, and gives each of its watches a shared budget here, so
// that what one identity's unread watches make the server hold is bounded by the budget, not by the
// number of watches times the cap. A watch whose identity is over its budget is cut off, as a slow
// watcher is, and its client re-lists.

import type { IncomingMessage, ServerResponse } from 'node:http';

export class WatchBudget {
  readonly #limit: number;
  readonly #responses = new Set<ServerResponse>();

  constructor(limitBytes: number) {
    this.#limit = limitBytes;
  }

  /** Counts `res` against the budget until it closes. */
  add(res: ServerResponse): void {
    this.#responses.add(res);
    res.once('close', () => this.#responses.delete(res));
  }

  /** Whether the identity's watches together hold more unsent output than the budget. */
  get exceeded(): boolean {
    let total = 0;
    for (const res of this.#responses) total += res.writableLength;
    return total > this.#limit;
  }

  get size(): number {
    return this.#responses.size;
  }
}

/** The budget of the identity a watch request belongs to, set by priority and fairness. */
const budgets = new WeakMap<IncomingMessage, WatchBudget>();

export function setWatchBudget(req: IncomingMessage, budget: WatchBudget): void {
  budgets.set(req, budget);
}

export function watchBudgetOf(req: IncomingMessage): WatchBudget | undefined {
  return budgets.get(req);
}
