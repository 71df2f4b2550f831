// Capped exponential backoff with jitter, for retrying a failed list or watch. The jitter spreads a
// fleet of agents that lost the API server at the same moment, so they do not return in lockstep.

export interface BackoffOptions {
  /** Delay after the first failure before jitter (default 500 ms). */
  initialMs?: number;
  /** Upper bound of any delay (default 30 s). */
  maxMs?: number;
  /** Growth per consecutive failure (default 2). */
  factor?: number;
  /** Random source in [0, 1); injectable for tests. */
  random?: () => number;
}

export class Backoff {
  private readonly initialMs: number;
  private readonly maxMs: number;
  private readonly factor: number;
  private readonly random: () => number;
  private failures = 0;

  constructor(options: BackoffOptions = {}) {
    this.initialMs = options.initialMs ?? 500;
    this.maxMs = options.maxMs ?? 30_000;
    this.factor = options.factor ?? 2;
    this.random = options.random ?? Math.random;
    if (!(this.initialMs > 0) || !(this.maxMs >= this.initialMs) || !(this.factor >= 1)) {
      throw new RangeError('backoff needs 0 < initialMs <= maxMs and factor >= 1');
    }
  }

  /** Consecutive failures since the last reset. */
  get attempts(): number {
    return this.failures;
  }

  /**
   * Records a failure and returns how long to wait: the capped exponential delay, jittered down by
   * up to half ("equal jitter"), so it never drops below half the nominal delay and never busy-loops.
   */
  next(): number {
    const nominal = Math.min(this.maxMs, this.initialMs * this.factor ** this.failures);
    this.failures++;
    return Math.round(nominal / 2 + (this.random() * nominal) / 2);
  }

  /** Call after a success. */
  reset(): void {
    this.failures = 0;
  }
}
