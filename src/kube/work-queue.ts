// A work queue keyed by name, with client-go's guarantees: a key is queued at most once however often
// it is added; a key being processed is never handed to a second worker, and a key added meanwhile is
// processed again once done() is called. Failed keys come back after an exponential per-key delay
// (addRateLimited); an overall token bucket keeps a storm of failures from hammering the API server.

/** What client-go's workqueue reports (controller-runtime exports it as `workqueue_*{name}`). */
export interface WorkQueueMetrics {
  /** Keys waiting, after every change. */
  depth(keys: number): void;
  added(): void;
  retried(): void;
  /** Seconds a key waited in the queue before a worker took it. */
  waited(seconds: number): void;
  /** Seconds a worker held a key. */
  worked(seconds: number): void;
}

export interface WorkQueueOptions {
  /** First retry delay of a failing key; doubles per failure (default 5 ms). */
  baseDelayMs?: number;
  /** Cap of the per-key delay (default 30 s). */
  maxDelayMs?: number;
  /** Overall retry rate (default 10 per second) and burst (default 100). */
  qps?: number;
  burst?: number;
  now?: () => number;
  metrics?: WorkQueueMetrics;
}

export class WorkQueue {
  private readonly baseDelayMs: number;
  private readonly maxDelayMs: number;
  private readonly qps: number;
  private readonly burst: number;
  private readonly now: () => number;
  private readonly queue: string[] = [];
  private readonly dirty = new Set<string>();
  private readonly processing = new Set<string>();
  private readonly failures = new Map<string, number>();
  private readonly delayed = new Map<string, { at: number; timer: NodeJS.Timeout }>();
  private readonly waiters: ((key: string | undefined) => void)[] = [];
  private readonly metrics: WorkQueueMetrics | undefined;
  /** When each queued key was added, and when each key being processed was taken (for metrics). */
  private readonly addedAt = new Map<string, number>();
  private readonly takenAt = new Map<string, number>();
  private tokens: number;
  private tokensAt: number;
  private closed = false;

  constructor(options: WorkQueueOptions = {}) {
    this.baseDelayMs = options.baseDelayMs ?? 5;
    this.maxDelayMs = options.maxDelayMs ?? 30_000;
    this.qps = options.qps ?? 10;
    this.burst = options.burst ?? 100;
    this.now = options.now ?? Date.now;
    this.metrics = options.metrics;
    this.tokens = this.burst;
    this.tokensAt = this.now();
  }

  /** Keys waiting to be processed (not counting delayed ones). */
  get length(): number {
    return this.queue.length;
  }

  /** Whether the key is queued, being processed, or due again after a delay: work on it is not over. */
  pending(key: string): boolean {
    return this.dirty.has(key) || this.processing.has(key) || this.delayed.has(key);
  }

  get shuttingDown(): boolean {
    return this.closed;
  }

  add(key: string): void {
    if (this.closed || this.dirty.has(key)) return;
    this.dirty.add(key);
    this.metrics?.added();
    if (this.processing.has(key)) return;
    this.enqueue(key);
  }

  // A dirty key that no worker holds: to a waiting worker, else to the back of the queue.
  private enqueue(key: string): void {
    if (this.metrics) this.addedAt.set(key, this.now());
    const waiter = this.waiters.shift();
    if (waiter) {
      this.take(key);
      waiter(key);
      return;
    }
    this.queue.push(key);
    this.metrics?.depth(this.queue.length);
  }

  /** Adds the key after delayMs; an earlier pending delay for the same key wins. */
  addAfter(key: string, delayMs: number): void {
    if (this.closed) return;
    if (delayMs <= 0) {
      this.add(key);
      return;
    }
    const at = this.now() + delayMs;
    const pending = this.delayed.get(key);
    if (pending && pending.at <= at) return;
    if (pending) clearTimeout(pending.timer);
    const timer = setTimeout(() => {
      this.delayed.delete(key);
      this.add(key);
    }, delayMs);
    timer.unref();
    this.delayed.set(key, { at, timer });
  }

  /** When (on the queue's clock) a delayed key is due; undefined when it is not waiting on a delay. */
  dueAt(key: string): number | undefined {
    return this.delayed.get(key)?.at;
  }

  /** Re-adds a key that failed, after its backoff. */
  addRateLimited(key: string): void {
    const failures = this.failures.get(key) ?? 0;
    this.failures.set(key, failures + 1);
    this.metrics?.retried();
    const perKey = Math.min(this.maxDelayMs, this.baseDelayMs * 2 ** failures);
    this.addAfter(key, Math.max(perKey, this.takeToken()));
  }

  /** The key succeeded: its next failure starts from the base delay again. */
  forget(key: string): void {
    this.failures.delete(key);
  }

  numRequeues(key: string): number {
    return this.failures.get(key) ?? 0;
  }

  /** The next key to process; undefined once the queue is shut down. */
  get(): Promise<string | undefined> {
    if (this.closed) return Promise.resolve(undefined);
    const key = this.queue.shift();
    if (key !== undefined) {
      this.metrics?.depth(this.queue.length);
      this.take(key);
      return Promise.resolve(key);
    }
    return new Promise((resolve) => this.waiters.push(resolve));
  }

  /** Marks the key processed; if it was added meanwhile, it is queued again. */
  done(key: string): void {
    this.processing.delete(key);
    const takenAt = this.takenAt.get(key);
    if (takenAt !== undefined) {
      this.takenAt.delete(key);
      this.metrics?.worked((this.now() - takenAt) / 1000);
    }
    if (!this.dirty.has(key) || this.closed) return;
    this.enqueue(key);
  }

  shutDown(): void {
    this.closed = true;
    for (const { timer } of this.delayed.values()) clearTimeout(timer);
    this.delayed.clear();
    for (const waiter of this.waiters.splice(0)) waiter(undefined);
  }

  private take(key: string): void {
    this.dirty.delete(key);
    this.processing.add(key);
    if (!this.metrics) return;
    const now = this.now();
    const addedAt = this.addedAt.get(key);
    this.addedAt.delete(key);
    if (addedAt !== undefined) this.metrics.waited((now - addedAt) / 1000);
    this.takenAt.set(key, now);
  }

  // Milliseconds until the overall bucket has a token (the token is taken now, spent in the future).
  private takeToken(): number {
    const now = this.now();
    this.tokens = Math.min(this.burst, this.tokens + ((now - this.tokensAt) / 1000) * this.qps);
    this.tokensAt = now;
    this.tokens -= 1;
    return this.tokens >= 0 ? 0 : Math.ceil((-this.tokens / this.qps) * 1000);
  }
}

/** What a worker did with a key: how long until it wants the key again, if it does. */
export interface WorkOutcome {
  requeueAfterMs?: number;
}

/**
 * client-go's worker loop (processNextWorkItem): takes keys until the queue shuts down. A key handled
 * is forgotten (its failures no longer delay it) and, when asked, queued again after the delay (5 ms
 * late, so what it waits for has passed); a key whose handler threw goes to `failed`, then comes back
 * rate-limited. Either way the key is done, so one added meanwhile is processed again.
 */
export async function runWorker(
  queue: WorkQueue,
  handle: (key: string) => Promise<WorkOutcome | undefined>,
  failed: (key: string, err: unknown) => void,
): Promise<void> {
  for (;;) {
    const key = await queue.get();
    if (key === undefined) return;
    try {
      const outcome = await handle(key);
      if (outcome?.requeueAfterMs !== undefined) queue.addAfter(key, outcome.requeueAfterMs + 5);
      queue.forget(key);
    } catch (err) {
      failed(key, err);
      queue.addRateLimited(key);
    } finally {
      queue.done(key);
    }
  }
}
